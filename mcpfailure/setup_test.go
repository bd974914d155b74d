package mcpfailure_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omcp/toolfailure/conformance"
	"github.com/omcp/toolfailure/correlation"
	"github.com/omcp/toolfailure/gen/toolfailure/v1/toolfailurev1connect"
	"github.com/omcp/toolfailure/internal/pgtest"
	"github.com/omcp/toolfailure/internal/pgtest/pgmigrated"
	"github.com/omcp/toolfailure/internal/servicetest"
	"github.com/omcp/toolfailure/mcpfailure"
	"github.com/omcp/toolfailure/server"
	"github.com/omcp/toolfailure/store/postgres"
)

// service is a real toolfailure service, over real HTTP, on its own embedded
// store, with one key per scope the MCP side needs.
type service struct {
	url       string
	reportKey string
	lookupKey string
}

// storeOpener opens a fresh, migrated store for one test. The default is the
// embedded store; TestPostgres runs the same scenario on PostgreSQL.
type storeOpener func(t *testing.T) server.Store

func embeddedStore(t *testing.T) server.Store { return servicetest.Embedded(t) }

func TestMain(m *testing.M) { pgtest.Main(m) }

// postgresStore opens the production store on a migrated schema of the test's own, from the
// test binary's pool (pgtest.Migrated): the tests here are not about migrating.
func postgresStore(t *testing.T) server.Store {
	t.Helper()
	u := pgmigrated.URL(t)
	s, err := postgres.Open(t.Context(), u)
	if err != nil {
		t.Fatalf("open PostgreSQL store: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func startService(t *testing.T, open storeOpener) *service {
	t.Helper()
	if open == nil {
		open = embeddedStore
	}
	sv := servicetest.Start(t, open(t))
	return &service{url: sv.URL, reportKey: sv.ReportKey, lookupKey: sv.LookupKey}
}

func (s *service) classifier() mcpfailure.Classifier {
	return mcpfailure.NewClassifierClient(nil, s.url, s.reportKey)
}

func (s *service) failures() toolfailurev1connect.FailureServiceClient {
	return mcpfailure.NewFailureClient(nil, s.url, s.lookupKey)
}

func newAnnotator(t *testing.T, c mcpfailure.Classifier, budget time.Duration) *mcpfailure.Annotator {
	t.Helper()
	// A generous budget by default: the machine running the tests is shared,
	// and a slow CI run must not turn into a classification miss.
	if budget == 0 {
		budget = 5 * time.Second
	}
	a, err := mcpfailure.NewAnnotator(mcpfailure.AnnotatorConfig{Classifier: c, Server: "test-tools", Budget: budget})
	if err != nil {
		t.Fatalf("NewAnnotator: %v", err)
	}
	return a
}

// toolServer is an MCP server whose tools fail in every way the proposal
// distinguishes. It records when each tool was called and the JSON of every
// tools/call result that left the server, so tests can time retries and
// check every emitted result against the conformance checker.
type toolServer struct {
	*mcp.Server

	mu      sync.Mutex
	calls   map[string][]time.Time
	emitted []emitted
}

// emitted is one tools/call result as it left the server.
type emitted struct {
	tool string
	doc  []byte
}

type countArgs struct {
	Count int `json:"count" jsonschema:"how many items, at least 1"`
}

type status struct {
	Status string `json:"status"`
}

// Self-tagged failures carry this retry delay, short so that timing tests
// run fast and long enough to be measured on a busy machine.
const selfTaggedDelay = 300 * time.Millisecond

func newToolServer(t *testing.T, a *mcpfailure.Annotator) *toolServer {
	t.Helper()
	ts := &toolServer{
		Server: mcp.NewServer(&mcp.Implementation{Name: "test-tools", Version: "v1"}, nil),
		calls:  map[string][]time.Time{},
	}
	idempotent := &mcp.ToolAnnotations{IdempotentHint: true}
	unsafe := &mcp.ToolAnnotations{IdempotentHint: false}

	mcp.AddTool(ts.Server, &mcp.Tool{Name: "ok", Description: "always succeeds", Annotations: idempotent},
		func(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, status, error) {
			ts.called("ok")
			return nil, status{"ok"}, nil
		})
	mcp.AddTool(ts.Server, &mcp.Tool{Name: "flaky", Description: "fails twice with 503, then succeeds", Annotations: idempotent},
		func(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, status, error) {
			if ts.called("flaky") <= 2 {
				return nil, status{}, &mcpfailure.ToolError{Message: "inventory backend unavailable (HTTP 503)", HTTPStatus: 503, RetryAfter: "1"}
			}
			return nil, status{"ok"}, nil
		})
	mcp.AddTool(ts.Server, &mcp.Tool{Name: "needs_auth", Description: "the upstream token expired"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, status, error) {
			ts.called("needs_auth")
			return nil, status{}, &mcpfailure.ToolError{Message: "401 Unauthorized: the access token expired; sign in again", HTTPStatus: 401, Type: "HttpError"}
		})
	mcp.AddTool(ts.Server, &mcp.Tool{Name: "forbidden", Description: "the caller lacks a permission"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, status, error) {
			ts.called("forbidden")
			return nil, status{}, &mcpfailure.ToolError{Message: "403 Forbidden: the token lacks the repo:write scope", HTTPStatus: 403, Type: "HttpError"}
		})
	mcp.AddTool(ts.Server, &mcp.Tool{Name: "missing", Description: "the resource does not exist"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, status, error) {
			ts.called("missing")
			return nil, status{}, &mcpfailure.ToolError{Message: "404 Not Found: no repository acme/nope", HTTPStatus: 404, Type: "HttpError"}
		})
	mcp.AddTool(ts.Server, &mcp.Tool{Name: "strict_input", Description: "count must be an integer", Annotations: idempotent},
		func(ctx context.Context, req *mcp.CallToolRequest, in countArgs) (*mcp.CallToolResult, status, error) {
			ts.called("strict_input")
			return nil, status{"ok"}, nil
		})
	mcp.AddTool(ts.Server, &mcp.Tool{Name: "plain_error", Description: "a Go error with a network cause", Annotations: idempotent},
		func(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, status, error) {
			ts.called("plain_error")
			cause := &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
			return nil, status{}, fmt.Errorf("read inventory: %w", cause)
		})

	// Raw handlers: results built by hand, as servers that predate the
	// generic AddTool write them.
	object := map[string]any{"type": "object"}
	ts.AddTool(&mcp.Tool{Name: "with_meta", Description: "an error result with _meta and structuredContent", InputSchema: object},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ts.called("with_meta")
			return &mcp.CallToolResult{
				Meta:              mcp.Meta{"com.example/requestId": "req-7", "com.example/shard": float64(3)},
				Content:           []mcp.Content{&mcp.TextContent{Text: "the send needs explicit confirmation for production recipients"}},
				StructuredContent: map[string]any{"reason_code": "explicit_production_confirmation_required", "execution": map[string]any{"status": "awaiting_confirmation"}},
				IsError:           true,
			}, nil
		})
	for _, tool := range []struct {
		name        string
		annotations *mcp.ToolAnnotations
	}{{"self_tagged", idempotent}, {"self_tagged_unsafe", unsafe}} {
		ts.AddTool(&mcp.Tool{Name: tool.name, Description: "classifies its own failures; fails twice", InputSchema: object, Annotations: tool.annotations},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if ts.called(tool.name) > 2 {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
				}
				return selfTagged(t, time.Now().Add(selfTaggedDelay)), nil
			})
	}
	ts.AddTool(&mcp.Tool{Name: "bad_params", Description: "refuses its params at the protocol level", InputSchema: object},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ts.called("bad_params")
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `missing field "to"`}
		})
	ts.AddTool(&mcp.Tool{Name: "rate_limited", Description: "JSON-RPC rate limit twice, then success", InputSchema: object, Annotations: idempotent},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if ts.called("rate_limited") > 2 {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
			}
			data, _ := json.Marshal(map[string]any{"retryAfterMs": selfTaggedDelay.Milliseconds()})
			return nil, &jsonrpc.Error{Code: -32029, Message: "rate limited", Data: data}
		})

	if a != nil {
		ts.AddReceivingMiddleware(ts.record, a.Middleware)
	} else {
		ts.AddReceivingMiddleware(ts.record)
	}
	return ts
}

// selfTagged is a reliability failure classified by the tool itself.
func selfTagged(t *testing.T, notBefore time.Time) *mcp.CallToolResult {
	id, err := correlation.New(time.Now())
	if err != nil {
		t.Errorf("mint correlation ID: %v", err)
	}
	return &mcp.CallToolResult{
		Meta: mcp.Meta{
			"com.example/attempt": "x",
			mcpfailure.MetaKey: map[string]any{
				"class": "reliability", "code": "retryable_transient_error", "retryable": true,
				"retryNotBefore": notBefore.UnixMilli(), "correlationId": id.String(),
				"agentGuidance": "Retry the same call shortly.",
			},
		},
		Content: []mcp.Content{&mcp.TextContent{Text: "backend busy"}},
		IsError: true,
	}
}

func (ts *toolServer) called(tool string) int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.calls[tool] = append(ts.calls[tool], time.Now())
	return len(ts.calls[tool])
}

func (ts *toolServer) callTimes(tool string) []time.Time {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]time.Time(nil), ts.calls[tool]...)
}

// record is the outermost middleware: what it sees is what the SDK encodes
// and sends, so its JSON is the result as it goes on the wire.
func (ts *toolServer) record(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if call, ok := req.(*mcp.CallToolRequest); ok && err == nil {
			b, merr := json.Marshal(res)
			if merr != nil {
				b = []byte(`"unencodable: ` + merr.Error() + `"`)
			}
			ts.mu.Lock()
			ts.emitted = append(ts.emitted, emitted{call.Params.Name, b})
			ts.mu.Unlock()
		}
		return res, err
	}
}

// checkEmitted runs every tools/call result the server sent through the
// conformance checker: the proposal's rules and the official MCP schema.
// Every finding fails the test, SHOULD-level ones too, except those named
// in allowed and result-type-missing: the SDK writes resultType only for
// sessions on protocol 2026-07-28 and later, as it should (stateful
// streamable HTTP negotiates 2025-11-25), and the checker cannot see which
// version a session negotiated.
func (ts *toolServer) checkEmitted(t *testing.T, allowed ...string) {
	t.Helper()
	ts.mu.Lock()
	docs := append([]emitted(nil), ts.emitted...)
	ts.mu.Unlock()
	if len(docs) == 0 {
		t.Error("no tools/call result was emitted")
	}
	allowed = append(allowed, "result-type-missing")
	for _, e := range docs {
		vs, err := conformance.CheckResult(e.doc)
		if err != nil {
			t.Errorf("%s: emitted result is not JSON: %v\n%s", e.tool, err, e.doc)
			continue
		}
		for _, v := range vs {
			if v.Severity == conformance.SeverityShould && slices.Contains(allowed, v.Rule) {
				continue
			}
			t.Errorf("%s: emitted result: %s\n%s", e.tool, v, e.doc)
		}
	}
}

// attempts counts the tools/call results for tool that left the server:
// one per attempt, whether or not the handler ran (arguments that fail the
// input schema never reach it).
func (ts *toolServer) attempts(tool string) int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	n := 0
	for _, e := range ts.emitted {
		if e.tool == tool {
			n++
		}
	}
	return n
}

// retryNotBefores lists the retryNotBefore of every failure of tool that
// left the server, in order.
func (ts *toolServer) retryNotBefores(t *testing.T, tool string) []time.Time {
	t.Helper()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	var out []time.Time
	for _, e := range ts.emitted {
		if e.tool != tool {
			continue
		}
		var res struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		var tf struct {
			RetryNotBefore int64 `json:"retryNotBefore"`
		}
		if err := json.Unmarshal(e.doc, &res); err != nil {
			t.Fatalf("emitted result of %s: %v", tool, err)
		}
		if raw, ok := res.Meta[mcpfailure.MetaKey]; ok {
			if err := json.Unmarshal(raw, &tf); err != nil {
				t.Fatalf("emitted toolFailure of %s: %v", tool, err)
			}
		}
		if tf.RetryNotBefore > 0 {
			out = append(out, time.UnixMilli(tf.RetryNotBefore))
		}
	}
	return out
}

// Transports the end-to-end tests run over: the SDK's in-memory pipe, and
// streamable HTTP through a real HTTP server, stateful (where the SDK
// negotiates protocol 2025-11-25) and stateless (2026-07-28, a temporary
// session per request).
var transports = []string{"memory", "http", "http-stateless"}

func connect(t *testing.T, s *mcp.Server, transport string) *mcp.ClientSession {
	t.Helper()
	ctx := t.Context()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v1"}, nil)
	var ct mcp.Transport
	switch transport {
	case "memory":
		clientEnd, serverEnd := mcp.NewInMemoryTransports()
		ss, err := s.Connect(ctx, serverEnd, nil)
		if err != nil {
			t.Fatalf("server connect: %v", err)
		}
		t.Cleanup(func() { _ = ss.Close() })
		ct = clientEnd
	case "http", "http-stateless":
		opts := &mcp.StreamableHTTPOptions{Stateless: transport == "http-stateless"}
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, opts)
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		ct = &mcp.StreamableClientTransport{Endpoint: srv.URL, DisableStandaloneSSE: true}
	default:
		t.Fatalf("unknown transport %q", transport)
	}
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatalf("client connect over %s: %v", transport, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// failureOf returns the toolFailure object of res as generic JSON, failing
// the test when there is none.
func failureOf(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	obj, ok := res.Meta[mcpfailure.MetaKey].(map[string]any)
	if !ok {
		t.Fatalf("result has no %s object; _meta = %v, content = %v", mcpfailure.MetaKey, res.Meta, servicetest.TextOf(res))
	}
	return obj
}
