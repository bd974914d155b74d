// Package examples_test runs the TypeScript and Python examples against a
// real service, and the toolfailure binary's proxy in front of their
// servers: Go client (go-sdk) → toolfailure proxy → the TypeScript or
// Python server → the service → PostgreSQL.
//
// The Node tests need the dependencies of examples/typescript installed
// (npm ci there). Without node or node_modules they are skipped, unless
// TOOLFAILURE_REQUIRE_NODE is set, as it is in CI, where a skip would hide
// a broken example.
package examples_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omcp/toolfailure/conformance"
	"github.com/omcp/toolfailure/internal/pgtest"
	"github.com/omcp/toolfailure/internal/pgtest/pgmigrated"
	"github.com/omcp/toolfailure/internal/servicetest"
	"github.com/omcp/toolfailure/mcpfailure"
)

// toolfailureBin is the binary under test, built once by TestMain.
var toolfailureBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "toolfailure-examples-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	toolfailureBin = filepath.Join(dir, "toolfailure")
	build := exec.Command("go", "build", "-o", toolfailureBin, "github.com/omcp/toolfailure/cmd/toolfailure")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build the toolfailure binary: %v\n%s", err, out)
		os.Exit(1)
	}
	code := pgtest.Run(m)
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// service is a toolfailure service started from the binary on a migrated
// PostgreSQL schema of its own, with one key per scope the examples need.
type service struct {
	url       string
	reportKey string
	lookupKey string
}

var servingLine = regexp.MustCompile(`serving .* on (http://[^\s"]+)`)

func startService(t *testing.T) *service {
	t.Helper()
	// The examples are not about migrating: the schema comes migrated from the test binary's
	// pool (pgtest.Migrated), and the service's own migration at start-up finds nothing to do.
	dbURL := pgmigrated.URL(t)
	report := mintKey(t, dbURL, "report")
	lookup := mintKey(t, dbURL, "lookup")

	cmd := exec.Command(toolfailureBin, "serve", "--listen", "127.0.0.1:0", "--database-url", dbURL)
	url := servicetest.StartAndScan(t, cmd, servingLine, "the service")
	waitHealthy(t, url)
	return &service{url: url, reportKey: report, lookupKey: lookup}
}

func mintKey(t *testing.T, dbURL, scopes string) string {
	t.Helper()
	out, err := exec.Command(toolfailureBin, "keys", "create", "--tenant", "acme", "--scopes", scopes, "--database-url", dbURL).Output()
	if err != nil {
		t.Fatalf("keys create: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func waitHealthy(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(url + "/healthz")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("service at %s not healthy after 30 s: %v", url, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// env returns the process environment with the service's settings for the
// example tests, and with the keys removed when key is empty: a server
// started without TOOLFAILURE_KEY knows nothing about toolFailure.
func (s *service) env(key string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TOOLFAILURE_") {
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "TOOLFAILURE_SERVER="+s.url, "PYTHONDONTWRITEBYTECODE=1")
	if key != "" {
		// The Python helper's budget for the service (TOOLFAILURE_BUDGET_MS):
		// a quarter of a second is the production default, and a test machine
		// running the race-built service beside every other package's tests
		// is slower than production.
		out = append(out, "TOOLFAILURE_KEY="+key, "TOOLFAILURE_LOOKUP_KEY="+s.lookupKey, "TOOLFAILURE_BUDGET_MS=10000")
	}
	return out
}

// requireOrSkip skips t, or fails it when the environment asks for Node.
func requireOrSkip(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("TOOLFAILURE_REQUIRE_NODE") != "" {
		t.Fatalf("TOOLFAILURE_REQUIRE_NODE is set: "+format, args...)
	}
	t.Skipf(format+" (set TOOLFAILURE_REQUIRE_NODE=1 to fail instead)", args...)
}

var buildTS struct {
	once sync.Once
	out  []byte
	err  error
}

// typescript returns the directory of the TypeScript example, compiled. The
// Node runs are not in the -short inner loop; the full run has them.
func typescript(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs node: not in the -short inner loop")
	}
	if _, err := exec.LookPath("node"); err != nil {
		requireOrSkip(t, "node is not installed")
	}
	dir, err := filepath.Abs("typescript")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		requireOrSkip(t, "the TypeScript example's dependencies are not installed: run npm ci in examples/typescript")
	}
	buildTS.once.Do(func() {
		cmd := exec.Command("node", filepath.Join("node_modules", "typescript", "bin", "tsc"), "-p", ".")
		cmd.Dir = dir
		buildTS.out, buildTS.err = cmd.CombinedOutput()
	})
	if buildTS.err != nil {
		t.Fatalf("compile the TypeScript example: %v\n%s", buildTS.err, buildTS.out)
	}
	return dir
}

func python(t *testing.T) (python3, dir string) {
	t.Helper()
	python3, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	dir, err = filepath.Abs("python")
	if err != nil {
		t.Fatal(err)
	}
	return python3, dir
}

// run runs cmd to completion, logging its output, and fails t on a non-zero
// exit.
func run(t *testing.T, cmd *exec.Cmd, what string) {
	t.Helper()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	t.Logf("%s:\n%s", what, out.String())
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// checkConforms runs a tools/call result through the conformance checker.
// result-type-missing is allowed: resultType belongs to protocol 2026-07-28,
// which these sessions do not speak.
func checkConforms(t *testing.T, what string, result []byte) {
	t.Helper()
	vs, err := conformance.CheckResult(result)
	if err != nil {
		t.Fatalf("%s: %v\n%s", what, err, result)
	}
	for _, v := range vs {
		if v.Rule != "result-type-missing" {
			t.Errorf("%s: %s\n%s", what, v, result)
		}
	}
	if !conformance.Conforms(vs) {
		t.Errorf("%s: does not conform", what)
	}
}

func toolFailureOf(t *testing.T, what string, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	tf, ok := res.Meta[mcpfailure.MetaKey].(map[string]any)
	if !ok {
		b, _ := json.Marshal(res)
		t.Fatalf("%s: no toolFailure: %s", what, b)
	}
	return tf
}

// rawSession drives an MCP server over stdio by hand and returns every line
// it wrote in answer to each request line, so that two runs can be compared
// byte for byte.
type rawSession struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
}

func startRaw(t *testing.T, cmd *exec.Cmd) *rawSession {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %v: %v", cmd.Args, err)
	}
	s := &rawSession{t: t, cmd: cmd, stdin: stdin, out: bufio.NewReader(stdout)}
	t.Cleanup(func() {
		_ = stdin.Close()
		if cmd.ProcessState == nil {
			_ = cmd.Wait()
		}
	})
	return s
}

// exchange writes one line and, when it is a request, returns the answer
// line (the first line that is not a notification).
func (s *rawSession) exchange(line string, isRequest bool) string {
	s.t.Helper()
	if _, err := io.WriteString(s.stdin, line+"\n"); err != nil {
		s.t.Fatalf("write: %v", err)
	}
	if !isRequest {
		return ""
	}
	for {
		got, err := s.out.ReadString('\n')
		if err != nil {
			s.t.Fatalf("read answer to %s: %v", line, err)
		}
		if !strings.Contains(got, `"method"`) {
			return strings.TrimRight(got, "\n")
		}
	}
}

// withTimeout bounds a test step that must not hang.
func withTimeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}
