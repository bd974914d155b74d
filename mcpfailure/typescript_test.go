package mcpfailure_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omcp/toolfailure/conformance"
	toolfailurev1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/mcpfailure"
)

// The tests here put the TypeScript package (sdk/typescript) and the Go
// package on the two ends of one MCP session, both against a live service:
// a TypeScript agent against this package's Go tool server, and the Go
// Dispatcher against a TypeScript server. They need node and the package's
// dependencies (npm ci in sdk/typescript); without them they are skipped,
// unless TOOLFAILURE_REQUIRE_NODE is set, as in CI.

var buildTSPackage struct {
	once sync.Once
	out  []byte
	err  error
}

// typescriptPackage returns the directory of sdk/typescript, compiled with
// its tests.
func typescriptPackage(t *testing.T) string {
	t.Helper()
	skip := func(why string) {
		if os.Getenv("TOOLFAILURE_REQUIRE_NODE") != "" {
			t.Fatalf("TOOLFAILURE_REQUIRE_NODE is set: %s", why)
		}
		t.Skipf("%s (set TOOLFAILURE_REQUIRE_NODE=1 to fail instead)", why)
	}
	if testing.Short() {
		t.Skip("runs node: not in the -short inner loop")
	}
	if _, err := exec.LookPath("node"); err != nil {
		skip("node is not installed")
	}
	dir, err := filepath.Abs(filepath.Join("..", "sdk", "typescript"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		skip("the TypeScript package's dependencies are not installed: run npm ci in sdk/typescript")
	}
	buildTSPackage.once.Do(func() {
		cmd := exec.Command("node", filepath.Join("node_modules", "typescript", "bin", "tsc"), "-p", ".")
		cmd.Dir = dir
		buildTSPackage.out, buildTSPackage.err = cmd.CombinedOutput()
	})
	if buildTSPackage.err != nil {
		t.Fatalf("compile sdk/typescript: %v\n%s", buildTSPackage.err, buildTSPackage.out)
	}
	return dir
}

// nodeEnv is the environment without any toolfailure settings, plus extra.
func nodeEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TOOLFAILURE_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// TestTypeScriptPackage runs the package's own tests (node --test): the
// shared dispatch vectors, the reporter and the dispatcher against a live
// service, and npm pack installed into a fresh project where the documented
// examples run. This is how scripts/test holds the TypeScript dispatcher
// to the same vectors as the Go one.
//
// The service the tests start is one binary built here (TOOLFAILURE_BIN),
// not one go build per test file. The fresh-start test, which holds the
// reporter to its default budget, runs first and alone, as it did at the
// head of one serial run; the other files then run a few at a time, since
// most of their time is spent waiting on npm, tsc and the service; the
// npm pack test, which rebuilds the package in place, runs last and alone.
func TestTypeScriptPackage(t *testing.T) {
	t.Parallel()
	dir := typescriptPackage(t)
	tests, err := filepath.Glob(filepath.Join(dir, "dist", "test", "*.test.js"))
	if err != nil || len(tests) == 0 {
		t.Fatalf("no compiled tests in %s: %v", dir, err)
	}
	bin := filepath.Join(t.TempDir(), "toolfailure")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/omcp/toolfailure/cmd/toolfailure").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	fresh := filepath.Join(dir, "dist", "test", "fresh.test.js")
	pack := filepath.Join(dir, "dist", "test", "pack.test.js")
	rest := slices.DeleteFunc(slices.Clone(tests), func(f string) bool { return f == fresh || f == pack })
	if len(rest) != len(tests)-2 {
		t.Fatalf("no %s or %s among the compiled tests: %v", fresh, pack, tests)
	}
	// npm pack rebuilds dist/src in place (prepack), so it runs alone, last: a file that
	// imported the package while tsc rewrote it found a module without its exports.
	for _, run := range []struct {
		name  string
		args  []string
		files []string
	}{
		{"fresh starts", nil, []string{fresh}},
		{"the rest", []string{"--test-concurrency=3"}, rest},
		{"npm pack", nil, []string{pack}},
	} {
		cmd := exec.Command("node", append(append([]string{"--test"}, run.args...), run.files...)...)
		cmd.Dir = dir
		cmd.Env = nodeEnv("TOOLFAILURE_BIN=" + bin)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err = cmd.Run()
		t.Logf("node --test (%s):\n%s", run.name, out.String())
		if err != nil {
			t.Fatalf("the TypeScript package's tests failed (%s): %v", run.name, err)
		}
		if !strings.Contains(out.String(), "# fail 0") || !strings.Contains(out.String(), "# skipped 0") {
			t.Fatalf("the TypeScript package's tests did not all run (%s)", run.name)
		}
	}
}

// TestTypeScriptAgentAgainstGoServer runs the package's agent test
// (callToolWithPolicy over streamable HTTP) against the Go tool server with
// the Annotator installed, then checks from the server's side what the
// agent did: how often each tool was called, and that every result it was
// sent conforms.
func TestTypeScriptAgentAgainstGoServer(t *testing.T) {
	t.Parallel()
	dir := typescriptPackage(t)
	svc := startService(t, nil)
	ts := newToolServer(t, newAnnotator(t, svc.classifier(), 0))
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return ts.Server }, nil))
	t.Cleanup(srv.Close)

	cmd := exec.Command("node", "--test", filepath.Join("dist", "test", "go-server.agent.js"))
	cmd.Dir = dir
	cmd.Env = nodeEnv("TOOLFAILURE_GO_MCP_URL="+srv.URL, "TOOLFAILURE_SERVER="+svc.url, "TOOLFAILURE_LOOKUP_KEY="+svc.lookupKey)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	t.Logf("node --test go-server.agent.js:\n%s", out.String())
	if err != nil {
		t.Fatalf("the TypeScript agent's test failed: %v", err)
	}
	if !strings.Contains(out.String(), "# pass 1") || !strings.Contains(out.String(), "# skipped 0") {
		t.Fatal("the agent test did not run (skipped?)")
	}
	for tool, want := range map[string]int{"flaky": 3, "self_tagged": 3, "self_tagged_unsafe": 1, "needs_auth": 1, "missing": 1, "rate_limited": 3} {
		if got := len(ts.callTimes(tool)); got != want {
			t.Errorf("the agent called %s %d times, want %d", tool, got, want)
		}
	}
	checkNotBefore(t, ts, "self_tagged", 3)
	ts.checkEmitted(t)
}

// TestGoDispatcherAgainstTypeScriptServer drives the package's test server
// (an McpServer with ToolFailureReporter.instrument) over stdio with the
// Go Dispatcher: the TypeScript side's keys must drive the Go side's
// decisions exactly as the Go Annotator's do, and every result conforms.
func TestGoDispatcherAgainstTypeScriptServer(t *testing.T) {
	t.Parallel()
	dir := typescriptPackage(t)
	svc := startService(t, nil)
	cmd := exec.Command("node", filepath.Join("dist", "test", "ts-server.js"))
	cmd.Dir = dir
	cmd.Env = nodeEnv("TOOLFAILURE_SERVER="+svc.url, "TOOLFAILURE_KEY="+svc.reportKey)
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "go-dispatcher", Version: "v1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to the TypeScript server: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	// The reporter advertises the extension as the Go middleware does, at
	// the same version, so that a Go client trusts the key from either.
	if ext, ok := cs.InitializeResult().Capabilities.Extensions[mcpfailure.MetaKey].(map[string]any); !ok || ext["version"] != mcpfailure.ExtensionVersion {
		t.Errorf("the TypeScript server advertises %v, want %s at version %s", cs.InitializeResult().Capabilities.Extensions, mcpfailure.MetaKey, mcpfailure.ExtensionVersion)
	}
	d := newDispatcher(t, cs, mcpfailure.DispatcherConfig{Trusted: true})

	cases := []struct {
		tool     string
		args     map[string]any
		action   mcpfailure.Action
		attempts int
		class    mcpfailure.Class
		code     string
		reason   string
	}{
		{tool: "search", action: mcpfailure.ActionRetried, attempts: 3, class: mcpfailure.ClassReliability, code: mcpfailure.CodeRetryableTransientError},
		{tool: "send_email", action: mcpfailure.ActionStopped, attempts: 1, class: mcpfailure.ClassReliability, reason: "not marked retryable"},
		{tool: "get_repo", action: mcpfailure.ActionStopped, attempts: 1, class: mcpfailure.ClassCapability, code: mcpfailure.CodeResourceNotFound},
		{tool: "deploy", action: mcpfailure.ActionAskUser, attempts: 1, class: mcpfailure.ClassGovernance, code: mcpfailure.CodeUserActionRequired},
		{tool: "count", args: map[string]any{"n": "many"}, action: mcpfailure.ActionStopped, attempts: 1, class: mcpfailure.ClassCapability},
		{tool: "self_tagged", action: mcpfailure.ActionAskUser, attempts: 1, class: mcpfailure.ClassGovernance, code: mcpfailure.CodePolicyBlocked},
		{tool: "badly_tagged", action: mcpfailure.ActionNone, attempts: 1, reason: "malformed"},
		{tool: "ok", action: mcpfailure.ActionNone, attempts: 1, reason: "succeeded"},
	}
	for _, c := range cases {
		if c.args == nil {
			c.args = map[string]any{} // the TypeScript SDK refuses "arguments": null
		}
		start := time.Now()
		res, rep, err := d.CallTool(t.Context(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		if rep.Action != c.action || rep.Attempts != c.attempts || rep.Class != c.class ||
			(c.code != "" && rep.Code != c.code) || !strings.Contains(rep.Reason, c.reason) {
			t.Errorf("%s: report %+v, want %s after %d attempts, %s/%s, reason with %q", c.tool, rep, c.action, c.attempts, c.class, c.code, c.reason)
		}
		for _, id := range rep.CorrelationIDs {
			if c.tool == "self_tagged" {
				continue // the tool's own ID, never sent to the service
			}
			got, err := svc.failures().GetFailure(t.Context(), &toolfailurev1.GetFailureRequest{CorrelationId: id})
			if err != nil {
				t.Errorf("%s: GetFailure(%s): %v", c.tool, id, err)
			} else if got.GetFailure().GetTool() != c.tool || got.GetFailure().GetServer() != "ts-test-tools" {
				t.Errorf("%s: record %s is of %s on %s", c.tool, id, got.GetFailure().GetTool(), got.GetFailure().GetServer())
			}
		}
		if c.tool == "search" {
			// Retry-After: 1, read from the error the TypeScript tool threw.
			if elapsed := time.Since(start); elapsed < 1900*time.Millisecond {
				t.Errorf("search: three attempts with Retry-After: 1 took %v", elapsed)
			}
			if len(rep.CorrelationIDs) != 2 {
				t.Errorf("search: %d correlation IDs, want 2", len(rep.CorrelationIDs))
			}
		}
		if c.tool == "deploy" && res.Meta["com.example/requestId"] != "req-42" {
			t.Errorf("deploy: the server's own _meta key was lost: %v", res.Meta)
		}
		doc, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		vs, err := conformance.CheckResult(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			if c.tool == "badly_tagged" || (v.Severity == conformance.SeverityShould && slices.Contains([]string{"result-type-missing"}, v.Rule)) {
				continue // badly_tagged is malformed on purpose
			}
			t.Errorf("%s: %s\n%s", c.tool, v, doc)
		}
	}
}
