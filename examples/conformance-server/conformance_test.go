package main_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	toolfailurev1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/servicetest"
	"github.com/omcp/toolfailure/mcpfailure"
)

// TestConformanceSuite runs the official MCP conformance suite's server
// scenarios three times: against the Go server with the toolFailure
// middleware on, against "toolfailure proxy --listen --upstream" in front of
// it over HTTP, and against "toolfailure proxy --listen" with the server as
// a stdio child. The server passes every scenario, and both proxies get the
// same verdict on every scenario as the server alone.
//
// The suite runs at its default protocol version, 2025-11-25: the Go SDK
// does not speak 2026-07-28 (the suite's --spec-version draft) yet.
//
// The suite and a Node of its required version come from this directory's
// package-lock.json (npm ci here). Without them the test is skipped, unless
// TOOLFAILURE_REQUIRE_NODE is set, as in CI, where it fails instead.
func TestConformanceSuite(t *testing.T) {
	t.Parallel()
	node, suite := suiteOrSkip(t)
	tg := startTargets(t)

	// The three runs are independent (each its own sessions and results directory): they run at
	// the same time, and are compared once all three are done.
	proxies := []struct{ name, url string }{{"proxy over HTTP", tg.viaHTTP}, {"proxy over stdio", tg.viaStdio}}
	proxied := make([]map[string]verdict, len(proxies))
	var wg sync.WaitGroup
	for i, run := range proxies {
		wg.Go(func() { proxied[i] = runSuite(t, node, suite, run.name, run.url) })
	}
	want := runSuite(t, node, suite, "direct", tg.direct)
	wg.Wait()
	if len(want) == 0 {
		t.Fatal("the suite reported no scenarios")
	}
	t.Logf("%d scenarios", len(want))
	for name, v := range want {
		if !v.ok() {
			t.Errorf("direct: scenario %s: %s", name, v)
		}
	}
	for i, run := range proxies {
		got := proxied[i]
		for _, name := range sortedKeys(want, got) {
			if got[name] != want[name] {
				t.Errorf("%s: scenario %s: %s, directly %s", run.name, name, got[name], want[name])
			}
		}
	}

	// The middleware was on: the failing scenario's result was classified
	// and recorded under the server's label.
	list, err := mcpfailure.NewFailureClient(nil, tg.svc.URL, tg.svc.LookupKey).ListFailures(t.Context(),
		&toolfailurev1.ListFailuresRequest{Filter: &toolfailurev1.FailureFilter{Tool: "test_error_handling"}})
	if err != nil {
		t.Fatalf("ListFailures: %v", err)
	}
	// Any of the scenario's calls will do: the newest record can be the
	// proxy's own, when the middleware's call behind it missed its budget
	// on a loaded machine and the proxy classified the failure instead.
	if !slices.ContainsFunc(list.GetFailures(), func(f *toolfailurev1.Failure) bool { return f.GetServer() == "conformance-server" }) {
		t.Errorf("no record of test_error_handling from conformance-server: %v", list.GetFailures())
	}
}

// targets are the three servers under test, and the service behind them.
type targets struct {
	svc                       servicetest.Service
	direct, viaHTTP, viaStdio string
}

// startTargets starts the service on the embedded store, the Go server with
// the middleware on, "toolfailure proxy --listen --upstream" in front of it
// over HTTP, and "toolfailure proxy --listen" with the server as a stdio
// child, each until the test ends.
// testBudget is the Classify budget of the servers and proxies under test.
const testBudget = "10s"

func startTargets(t *testing.T) targets {
	t.Helper()
	svc := servicetest.Start(t, servicetest.Embedded(t))
	env := append(os.Environ(), "TOOLFAILURE_SERVER="+svc.URL, "TOOLFAILURE_KEY="+svc.ReportKey)
	listening := regexp.MustCompile(`(http://\S+/mcp)`)
	// The suites check what a classified failure carries, not how fast the
	// service answers: on a loaded machine a Classify call can miss the
	// default budget, and the failure then rightly goes out without the key
	// (the fail-open path, tested in mcpfailure), which would fail the row.
	direct := start(t, env, listening, "server", serverBin, "--listen", "127.0.0.1:0", "--budget", testBudget)
	return targets{
		svc:      svc,
		direct:   direct,
		viaHTTP:  start(t, env, listening, "proxy-http", toolfailureBin, "proxy", "--listen", "127.0.0.1:0", "--budget", testBudget, "--upstream", direct),
		viaStdio: start(t, env, listening, "proxy-stdio", toolfailureBin, "proxy", "--listen", "127.0.0.1:0", "--budget", testBudget, "--", serverBin, "--budget", testBudget),
	}
}

// verdict is one scenario's line in the suite's summary.
type verdict struct{ passed, failed, warnings int }

func (v verdict) ok() bool { return v.passed > 0 && v.failed == 0 }

func (v verdict) String() string {
	return fmt.Sprintf("%d passed, %d failed, %d warnings", v.passed, v.failed, v.warnings)
}

// summaryLine is a line of the suite's summary: "✓ tools-list: 1 passed, 0 failed"
// (", 1 warnings" when there are some).
var summaryLine = regexp.MustCompile(`^[✓✗!⚠]\s*(\S+): (\d+) passed, (\d+) failed(?:, (\d+) warnings?)?`)

// runSuite runs the suite against url and returns its verdict per scenario. It reports with
// t.Logf and t.Errorf only, so that runs can go on in goroutines of their own.
func runSuite(t *testing.T, node, suite, name, url string) map[string]verdict {
	t.Helper()
	cmd := exec.Command(node, suite, "server", "--url", url, "-o", filepath.Join(t.TempDir(), "results"))
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	summary := string(out)
	if i := strings.Index(summary, "=== SUMMARY ==="); i >= 0 {
		summary = summary[i:]
	}
	t.Logf("conformance suite, %s (%s):\n%s", name, url, summary)
	if err != nil {
		t.Errorf("conformance suite, %s: %v", name, err)
	}
	verdicts := map[string]verdict{}
	sc := bufio.NewScanner(strings.NewReader(summary))
	for sc.Scan() {
		m := summaryLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		var v verdict
		fmt.Sscan(m[2], &v.passed)
		fmt.Sscan(m[3], &v.failed)
		if m[4] != "" {
			fmt.Sscan(m[4], &v.warnings)
		}
		verdicts[m[1]] = v
	}
	return verdicts
}

func sortedKeys(maps ...map[string]verdict) []string {
	var keys []string
	for _, m := range maps {
		for k := range m {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return keys
}

// suiteOrSkip finds the Node binary and the suite that npm ci installed here. The suites are
// not in the -short inner loop: they take minutes, and the full run has them.
func suiteOrSkip(t *testing.T) (node, suite string) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the Node conformance suites: not in the -short inner loop")
	}
	node, _ = filepath.Abs(filepath.Join("node_modules", ".bin", "node"))
	suite, _ = filepath.Abs(filepath.Join("node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"))
	for _, f := range []string{node, suite} {
		if _, err := os.Stat(f); err != nil {
			msg := fmt.Sprintf("the MCP conformance suite is not installed (%s missing): run npm ci in examples/conformance-server", filepath.Base(f))
			if os.Getenv("TOOLFAILURE_REQUIRE_NODE") != "" {
				t.Fatal("TOOLFAILURE_REQUIRE_NODE is set: " + msg)
			}
			t.Skip(msg + " (set TOOLFAILURE_REQUIRE_NODE=1 to fail instead)")
		}
	}
	return node, suite
}

// The binaries under test, built once by TestMain.
var toolfailureBin, serverBin string

func TestMain(m *testing.M) {
	// Started by the SEP-3313 runner as its client scenario's client: the
	// Dispatcher is a library, so this binary lends it a main.
	if os.Getenv(sep3313ClientEnv) != "" && len(os.Args) > 1 {
		os.Exit(sep3313DispatcherClient(os.Args[len(os.Args)-1]))
	}
	dir, err := os.MkdirTemp("", "toolfailure-conformance-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	toolfailureBin = filepath.Join(dir, "toolfailure")
	serverBin = filepath.Join(dir, "conformance-server")
	// One go build for both, which links them at the same time; each is named for its
	// directory.
	pkgs := []string{"github.com/omcp/toolfailure/cmd/toolfailure", "."}
	if b, err := exec.Command("go", append([]string{"build", "-o", dir + string(filepath.Separator)}, pkgs...)...).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build %s: %v\n%s", strings.Join(pkgs, " "), err, b)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// start runs a program until the test ends and returns the first group of
// the first line of its stderr that matches re (servicetest.StartAndScan).
func start(t *testing.T, env []string, re *regexp.Regexp, what string, argv ...string) string {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	return servicetest.StartAndScan(t, cmd, re, what)
}
