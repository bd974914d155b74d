package examples_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	toolfailurev1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/servicetest"
	"github.com/omcp/toolfailure/mcpfailure"
)

// TestTypeScriptExample runs the TypeScript example's own tests (node's test
// runner) against the running service.
func TestTypeScriptExample(t *testing.T) {
	t.Parallel()
	dir := typescript(t)
	svc := startService(t)
	tests, err := filepath.Glob(filepath.Join(dir, "dist", "test", "*.test.js"))
	if err != nil || len(tests) == 0 {
		t.Fatalf("no compiled tests in %s: %v", dir, err)
	}
	cmd := exec.Command("node", append([]string{"--test"}, tests...)...)
	cmd.Dir = dir
	cmd.Env = svc.env(svc.reportKey)
	run(t, cmd, "node --test")
}

// TestPythonExample runs the Python example's own tests (unittest, with the
// machine's python3) against the running service.
func TestPythonExample(t *testing.T) {
	t.Parallel()
	python3, dir := python(t)
	svc := startService(t)
	cmd := exec.Command(python3, "-m", "unittest", "discover", "-s", dir, "-v")
	cmd.Env = svc.env(svc.reportKey) // with a budget of 10 s: see service.env
	run(t, cmd, "python3 -m unittest")
}

// upstream is one of the example servers as the proxy starts it.
type upstream struct {
	name       string   // the server's serverInfo.name, the label of its records
	argv       []string // how to start it
	dir        string
	successful string // a call of a tool that succeeds: tools/call params as JSON
	okTool     string // that tool's name
	progress   string // a tool that reports progress, 3 times
	ask        string // a tool that asks the client for input
	askWant    string // what its answer contains
}

func upstreams(t *testing.T) map[string]func(t *testing.T) upstream {
	return map[string]func(t *testing.T) upstream{
		"python": func(t *testing.T) upstream {
			python3, dir := python(t)
			return upstream{name: "python-example", argv: []string{python3, "server.py"}, dir: dir,
				successful: `{"name":"get_weather","arguments":{"city":"Zürich"}}`, okTool: "get_weather",
				progress: "count", ask: "ask_user", askWant: "teal"}
		},
		"typescript": func(t *testing.T) upstream {
			dir := typescript(t)
			return upstream{name: "typescript-plain", argv: []string{"node", "dist/src/plain-server.js"}, dir: dir,
				successful: `{"name":"echo","arguments":{"text":"héllo <&>","n":1.50}}`, okTool: "echo",
				progress: "count", ask: "ask", askWant: "model: hello back; user: accept"}
		},
	}
}

// proxyCommand is "toolfailure proxy" in front of u, with a child that has
// no toolfailure settings in its environment.
func proxyCommand(svc *service, u upstream, flags ...string) *exec.Cmd {
	args := []string{"proxy", "--server", svc.url, "--key", svc.reportKey}
	if !slices.Contains(flags, "--budget") {
		// What these tests check is the classification, not the budget
		// ("service down" sets its own): the default quarter-second is
		// too short for the race-built service's first answer while every
		// other package runs.
		args = append(args, "--budget", "10s")
	}
	args = append(args, flags...)
	args = append(append(args, "--"), u.argv...)
	cmd := exec.Command(toolfailureBin, args...)
	cmd.Dir = u.dir
	cmd.Env = svc.env("")
	return cmd
}

type clientEvents struct {
	mu       sync.Mutex
	progress int
}

func (e *clientEvents) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "hello back"}}, nil
		},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"color": "teal"}}, nil
		},
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			e.mu.Lock()
			e.progress++
			e.mu.Unlock()
		},
	}
}

func (e *clientEvents) progressCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.progress
}

func connectClient(t *testing.T, tr mcp.Transport, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "go-e2e", Version: "v1"}, opts)
	cs, err := c.Connect(withTimeout(t, 60*time.Second), tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// failures the example servers produce, the same in both languages.
var failures = []struct{ tool, class, code string }{
	{"send_email", "reliability", "retryable_transient_error"},
	{"search", "reliability", "retryable_transient_error"},
	{"get_repo", "capability", "resource_not_found"},
	{"deploy", "governance", "user_action_required"},
}

// TestProxyEndToEnd puts "toolfailure proxy" in front of the TypeScript and
// the Python server, neither of which knows about toolFailure, and drives it
// with the Go SDK's client.
func TestProxyEndToEnd(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	lookup := mcpfailure.NewFailureClient(nil, svc.url, svc.lookupKey)
	for lang, get := range upstreams(t) {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			u := get(t)

			t.Run("classifies", func(t *testing.T) {
				t.Parallel()
				svc := startService(t) // its own, so that the records it counts are its own
				var ev clientEvents
				cs := connectClient(t, &mcp.CommandTransport{Command: proxyCommand(svc, u)}, ev.options())
				checkSession(t, svc, cs, u, &ev)
			})

			t.Run("bytes", func(t *testing.T) {
				t.Parallel()
				direct := exec.Command(u.argv[0], u.argv[1:]...)
				direct.Dir = u.dir
				direct.Env = svc.env("")
				lines := []struct {
					line      string
					isRequest bool
				}{
					{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, true},
					{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, false},
					{`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`, true},
					{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":` + u.successful + `}`, true},
					{`{"jsonrpc":"2.0","id":"x-4","method":"ping"}`, true},
				}
				a, b := startRaw(t, direct), startRaw(t, proxyCommand(svc, u))
				// The envelope is framing (the SDK writes jsonrpc and id first,
				// the TypeScript SDK result first); the result is compared as
				// bytes.
				for _, l := range lines {
					want, got := a.exchange(l.line, l.isRequest), b.exchange(l.line, l.isRequest)
					if !l.isRequest {
						continue
					}
					var w, g struct {
						ID     json.RawMessage `json:"id"`
						Result json.RawMessage `json:"result"`
					}
					if err := json.Unmarshal([]byte(want), &w); err != nil || w.Result == nil {
						t.Fatalf("direct answer to %s: %v: %s", l.line, err, want)
					}
					if err := json.Unmarshal([]byte(got), &g); err != nil {
						t.Fatalf("answer through the proxy to %s: %v: %s", l.line, err, got)
					}
					result := string(g.Result)
					if l.line == lines[0].line {
						// The proxy advertises the extension in the server's
						// capabilities, after the server's own bytes.
						ad := `,"extensions":{"` + mcpfailure.MetaKey + `":{"version":"` + mcpfailure.ExtensionVersion + `"}}`
						if !strings.Contains(result, ad) {
							t.Errorf("the initialize answer through the proxy does not advertise the extension: %s", got)
						}
						result = strings.Replace(result, ad, "", 1)
					}
					if result != string(w.Result) || string(g.ID) != string(w.ID) {
						t.Errorf("answer to %s differs through the proxy:\n got %s\nwant %s", l.line, got, want)
					}
				}
			})

			t.Run("service down", func(t *testing.T) {
				t.Parallel()
				stop := make(chan struct{})
				hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					select {
					case <-r.Context().Done():
					case <-stop:
					}
				}))
				t.Cleanup(hang.Close)
				t.Cleanup(func() { close(stop) })
				down := *svc
				down.url = hang.URL
				cs := connectClient(t, &mcp.CommandTransport{Command: proxyCommand(&down, u, "--budget", "300ms")}, nil)
				start := time.Now()
				res, err := cs.CallTool(withTimeout(t, 30*time.Second), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{}})
				elapsed := time.Since(start)
				if err != nil {
					t.Fatalf("search: %v", err)
				}
				if !res.IsError || res.Meta[mcpfailure.MetaKey] != nil {
					t.Errorf("want the failed result unchanged, got isError %v, _meta %v", res.IsError, res.Meta)
				}
				if elapsed > 5*time.Second {
					t.Errorf("the failed result took %v with a 300 ms budget", elapsed)
				}
				if res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: u.okTool, Arguments: map[string]any{}}); err != nil || res.IsError {
					t.Errorf("the session does not go on after the miss: %v", err)
				}
			})

			t.Run("upstream crash", func(t *testing.T) {
				t.Parallel()
				cs := connectClient(t, &mcp.CommandTransport{Command: proxyCommand(svc, u)}, nil)
				_, err := cs.CallTool(withTimeout(t, 20*time.Second), &mcp.CallToolParams{Name: "crash", Arguments: map[string]any{}})
				if err == nil || !strings.Contains(err.Error(), "exit status 3") {
					t.Fatalf("crash: got %v, want an error naming the exit status", err)
				}
				done := make(chan error, 1)
				go func() { done <- cs.Wait() }()
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					t.Fatal("the session stayed open after the upstream crashed")
				}

				// The same by hand, for the proxy's exit status.
				cmd := proxyCommand(svc, u)
				raw := startRaw(t, cmd)
				raw.exchange(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, true)
				raw.exchange(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, false)
				answer := raw.exchange(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"crash","arguments":{}}}`, true)
				if !strings.Contains(answer, `"code":-32000`) || !strings.Contains(answer, "exit status 3") {
					t.Errorf("answer to the crashed call: %s", answer)
				}
				waitDone := make(chan error, 1)
				go func() { waitDone <- cmd.Wait() }()
				select {
				case <-waitDone:
					if code := cmd.ProcessState.ExitCode(); code != 1 {
						t.Errorf("proxy exit status %d, want 1", code)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("the proxy did not exit after its upstream crashed")
				}
			})

			t.Run("listen", func(t *testing.T) {
				t.Parallel()
				svc := startService(t)
				cmd := proxyCommand(svc, u, "--listen", "127.0.0.1:0")
				endpoint := servicetest.StartAndScan(t, cmd, regexp.MustCompile(`streamable HTTP at (http://[^\s"]+)`), "proxy --listen")
				var ev clientEvents
				cs := connectClient(t, &mcp.StreamableClientTransport{Endpoint: endpoint}, ev.options())
				checkSession(t, svc, cs, u, &ev)

				// A crash ends that session only: the next one starts a new child.
				if _, err := cs.CallTool(withTimeout(t, 20*time.Second), &mcp.CallToolParams{Name: "crash", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), "exit status 3") {
					t.Errorf("crash over HTTP: got %v, want an error naming the exit status", err)
				}
				again := connectClient(t, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
				res, err := again.CallTool(t.Context(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{}})
				if err != nil {
					t.Fatalf("a new session after the crash: %v", err)
				}
				toolFailureOf(t, "deploy after the crash", res)
			})
		})
	}

	t.Run("python classified itself", func(t *testing.T) {
		t.Parallel()
		u := upstreams(t)["python"](t)
		cmd := proxyCommand(svc, u, "--label", "the-proxy")
		cmd.Env = svc.env(svc.reportKey) // the child classifies on its own
		cs := connectClient(t, &mcp.CommandTransport{Command: cmd}, nil)
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		tf := toolFailureOf(t, "deploy", res)
		rec, err := lookup.GetFailure(t.Context(), &toolfailurev1.GetFailureRequest{CorrelationId: tf["correlationId"].(string)})
		if err != nil {
			t.Fatalf("GetFailure: %v", err)
		}
		if got := rec.GetFailure().GetServer(); got != "python-example" {
			t.Errorf("the record is the proxy's (server %q): a failure the server classified must keep its ID", got)
		}
	})

	t.Run("http upstream", func(t *testing.T) {
		t.Parallel()
		s := mcp.NewServer(&mcp.Implementation{Name: "go-http-upstream", Version: "v1"}, nil)
		mcp.AddTool(s, &mcp.Tool{Name: "fetch", Annotations: &mcp.ToolAnnotations{IdempotentHint: true, ReadOnlyHint: true}},
			func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, struct{}, error) {
				return nil, struct{}{}, errors.New("upstream returned HTTP 503 Service Unavailable")
			})
		srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
		t.Cleanup(srv.Close)
		cmd := exec.Command(toolfailureBin, "proxy", "--server", svc.url, "--key", svc.reportKey, "--upstream", srv.URL)
		cmd.Env = svc.env("")
		cs := connectClient(t, &mcp.CommandTransport{Command: cmd}, nil)
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "fetch"})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res)
		checkConforms(t, "fetch", b)
		if tf := toolFailureOf(t, "fetch", res); tf["retryable"] != true {
			t.Errorf("an idempotent tool's 503 through an HTTP upstream: %v", tf)
		}
	})
}

// checkSession is the common part of the stdio and HTTP runs: failures
// classified, conforming and recorded; other _meta kept; protocol errors
// passed on and recorded; progress, input requests and cancellation carried.
func checkSession(t *testing.T, svc *service, cs *mcp.ClientSession, u upstream, ev *clientEvents) {
	t.Helper()
	ctx := withTimeout(t, 120*time.Second)
	lookup := mcpfailure.NewFailureClient(nil, svc.url, svc.lookupKey)
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	for _, f := range failures {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: f.tool, Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("%s: %v", f.tool, err)
		}
		b, _ := json.Marshal(res)
		checkConforms(t, f.tool, b)
		tf := toolFailureOf(t, f.tool, res)
		if tf["class"] != f.class || tf["code"] != f.code {
			t.Errorf("%s: %v/%v, want %s/%s", f.tool, tf["class"], tf["code"], f.class, f.code)
		}
		rec, err := lookup.GetFailure(ctx, &toolfailurev1.GetFailureRequest{CorrelationId: tf["correlationId"].(string)})
		if err != nil {
			t.Fatalf("%s: GetFailure(%v): %v", f.tool, tf["correlationId"], err)
		}
		if r := rec.GetFailure(); r.GetTool() != f.tool || r.GetServer() != u.name {
			t.Errorf("%s: record tool %q server %q, want %s", f.tool, r.GetTool(), r.GetServer(), u.name)
		}
		if f.tool == "deploy" && (res.Meta["com.example/requestId"] != "req-42" || res.Meta["com.example/region"] != "eu-west-1") {
			t.Errorf("deploy: the server's own _meta keys were lost: %v", res.Meta)
		}
	}

	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "rate_limited", Arguments: map[string]any{}})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != -32001 {
		t.Errorf("rate_limited: %v, want the server's JSON-RPC error -32001", err)
	}

	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: u.progress, Arguments: map[string]any{"n": 3}, Meta: mcp.Meta{"progressToken": "p-1"}}); err != nil {
		t.Fatalf("%s: %v", u.progress, err)
	}
	eventually(t, "3 progress notifications", func() bool { return ev.progressCount() == 3 })

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: u.ask, Arguments: map[string]any{}})
	if err != nil || res.IsError || !strings.Contains(servicetest.TextOf(res), u.askWant) {
		t.Errorf("%s: %v %q, want an answer containing %q", u.ask, err, servicetest.TextOf(res), u.askWant)
	}

	cctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	_, err = cs.CallTool(cctx, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}})
	cancel()
	if err == nil {
		t.Error("wait: no error after the context ended")
	}
	eventually(t, "the server to see the cancellation", func() bool {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "stats", Arguments: map[string]any{}})
		return err == nil && strings.Contains(servicetest.TextOf(res), `"cancelled": 1`) || strings.Contains(servicetest.TextOf(res), `"cancelled":1`)
	})

	eventually(t, "a record of the JSON-RPC error", func() bool {
		list, err := lookup.ListFailures(ctx, &toolfailurev1.ListFailuresRequest{Filter: &toolfailurev1.FailureFilter{Tool: "rate_limited"}})
		return err == nil && len(list.GetFailures()) > 0
	})
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Errorf("timed out waiting for %s", what)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}
