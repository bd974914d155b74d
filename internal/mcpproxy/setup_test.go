package mcpproxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omcp/toolfailure/conformance"
	"github.com/omcp/toolfailure/gen/toolfailure/v1/toolfailurev1connect"
	"github.com/omcp/toolfailure/internal/mcpproxy"
	"github.com/omcp/toolfailure/internal/servicetest"
	"github.com/omcp/toolfailure/mcpfailure"
)

var correlationIDPattern = regexp.MustCompile(`^tf_[0-9A-HJKMNP-TV-Z]{27}$`)

// service is a real toolfailure service over real HTTP, on its own
// embedded store.
type service struct {
	url       string
	reportKey string
	lookupKey string
}

func startService(t *testing.T) *service {
	t.Helper()
	sv := servicetest.Start(t, servicetest.Embedded(t))
	return &service{url: sv.URL, reportKey: sv.ReportKey, lookupKey: sv.LookupKey}
}

func (s *service) failures() toolfailurev1connect.FailureServiceClient {
	return mcpfailure.NewFailureClient(nil, s.url, s.lookupKey)
}

// newProxy returns a proxy to the service. The default budget is generous:
// the machine running the tests is shared, and a slow run must not turn into
// a classification miss. Tests of the budget set their own.
func newProxy(t *testing.T, classifier mcpfailure.Classifier, budget time.Duration) *mcpproxy.Proxy {
	t.Helper()
	return newProxyConfig(t, mcpproxy.Config{Classifier: classifier, Budget: budget})
}

func newProxyLabel(t *testing.T, classifier mcpfailure.Classifier, label string) *mcpproxy.Proxy {
	t.Helper()
	return newProxyConfig(t, mcpproxy.Config{Classifier: classifier, Server: label})
}

func newProxyConfig(t *testing.T, cfg mcpproxy.Config) *mcpproxy.Proxy {
	t.Helper()
	if cfg.Budget == 0 {
		cfg.Budget = 10 * time.Second
	}
	p, err := mcpproxy.New(mcpproxy.Config{
		Classifier:      cfg.Classifier,
		Server:          cfg.Server,
		Budget:          cfg.Budget,
		MaxMessageBytes: cfg.MaxMessageBytes,
		MetaKey:         cfg.MetaKey,
		MaxTasks:        cfg.MaxTasks,
		ShutdownGrace:   5 * time.Second,
		Logger:          slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatalf("mcpproxy.New: %v", err)
	}
	return p
}

// testWriter sends the proxy's log to the test's log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// rawPeer is one end of a newline-delimited JSON-RPC pipe that the test
// drives by hand, byte by byte: the tests of what the proxy does to bytes
// need to see and write the exact text.
type rawPeer struct {
	t *testing.T
	w io.WriteCloser
	r *bufio.Reader
}

// rawPipe returns a transport for the proxy and the peer the test holds at
// its other end.
func rawPipe(t *testing.T) (mcp.Transport, *rawPeer) {
	toProxyR, toProxyW := io.Pipe()
	fromProxyR, fromProxyW := io.Pipe()
	t.Cleanup(func() {
		_ = toProxyW.Close()
		_ = fromProxyR.Close()
	})
	return &mcp.IOTransport{Reader: toProxyR, Writer: fromProxyW},
		&rawPeer{t: t, w: toProxyW, r: bufio.NewReader(fromProxyR)}
}

func (p *rawPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.w, line+"\n"); err != nil {
		p.t.Fatalf("write %s: %v", line, err)
	}
}

// recv returns the next line the proxy wrote, failing the test after d.
func (p *rawPeer) recv(d time.Duration) string {
	p.t.Helper()
	line, err := p.recvErr(d)
	if err != nil {
		p.t.Fatalf("read: %v", err)
	}
	return line
}

func (p *rawPeer) recvErr(d time.Duration) (string, error) {
	type res struct {
		line string
		err  error
	}
	ch := make(chan res, 1)
	go func() {
		line, err := p.r.ReadString('\n')
		ch <- res{strings.TrimRight(line, "\n"), err}
	}()
	select {
	case r := <-ch:
		return r.line, r.err
	case <-time.After(d):
		return "", errors.New("nothing within " + d.String())
	}
}

// message is a JSON-RPC message as the tests look at it.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func decode(t *testing.T, line string) message {
	t.Helper()
	var m message
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("not JSON-RPC: %v: %s", err, line)
	}
	return m
}

// relay runs p between two raw peers: client stands for the MCP client,
// upstream for the MCP server. The returned channel yields Relay's error.
func relay(t *testing.T, p *mcpproxy.Proxy) (client, upstream *rawPeer, done <-chan error) {
	t.Helper()
	ct, client := rawPipe(t)
	ut, upstream := rawPipe(t)
	errc := make(chan error, 2)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		cancel()
		select {
		case <-errc:
		case <-time.After(10 * time.Second):
			t.Error("Relay did not return within 10 s of its context being cancelled")
		}
	})
	go func() {
		err := p.Relay(ctx, ct, ut)
		errc <- err
		errc <- err // one for the test, one for the cleanup
	}()
	return client, upstream, errc
}

// handshake runs initialize through the raw relay, with the upstream
// answering as serverName.
func handshake(t *testing.T, client, upstream *rawPeer, serverName string) {
	t.Helper()
	client.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if m := decode(t, upstream.recv(5*time.Second)); m.Method != "initialize" {
		t.Fatalf("upstream got %q, want initialize", m.Method)
	}
	upstream.send(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"` + serverName + `","version":"1"}}}`)
	client.recv(5 * time.Second)
	client.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if m := decode(t, upstream.recv(5*time.Second)); m.Method != "notifications/initialized" {
		t.Fatalf("upstream got %q, want notifications/initialized", m.Method)
	}
}

// checkConforms runs a tools/call result through the conformance checker.
// result-type-missing is allowed: resultType is only written on protocol
// 2026-07-28 and later, and the checker cannot see the session's version.
func checkConforms(t *testing.T, what string, result []byte) {
	t.Helper()
	vs, err := conformance.CheckResult(result)
	if err != nil {
		t.Fatalf("%s: %v\n%s", what, err, result)
	}
	for _, v := range vs {
		if v.Rule == "result-type-missing" {
			continue
		}
		t.Errorf("%s: %s\n%s", what, v, result)
	}
	if !conformance.Conforms(vs) {
		t.Errorf("%s: does not conform", what)
	}
}

// toolFailure returns the toolFailure object of a result, failing the test
// when there is none.
func toolFailure(t *testing.T, result []byte) map[string]any {
	t.Helper()
	var r struct {
		Meta map[string]any `json:"_meta"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		t.Fatalf("result: %v: %s", err, result)
	}
	tf, ok := r.Meta[mcpfailure.MetaKey].(map[string]any)
	if !ok {
		t.Fatalf("result has no toolFailure: %s", result)
	}
	if id, _ := tf["correlationId"].(string); !correlationIDPattern.MatchString(id) {
		t.Fatalf("correlationId %q has not the service's format", tf["correlationId"])
	}
	return tf
}

// upstreamServer is an MCP server on the Go SDK that knows nothing about
// toolFailure: its tools succeed, fail with isError, fail at the protocol
// level, report progress, ask the client for sampling and elicitation, and
// wait to be cancelled.
type upstreamServer struct {
	*mcp.Server
	cancelled atomic.Int32
	mu        sync.Mutex
	emitted   map[string][]byte // tool → the last result it returned, as JSON
}

func newUpstreamServer(t *testing.T) *upstreamServer {
	t.Helper()
	u := &upstreamServer{
		Server: mcp.NewServer(&mcp.Implementation{Name: "go-upstream", Version: "v1"}, &mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{
			Tools: &mcp.ToolCapabilities{ListChanged: true}, Logging: &mcp.LoggingCapabilities{},
			Extensions: map[string]any{"io.example/upstream": map[string]any{"on": true}},
		}}),
		emitted: map[string][]byte{},
	}
	object := map[string]any{"type": "object"}
	add := func(name string, annotations *mcp.ToolAnnotations, h func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error)) {
		u.AddTool(&mcp.Tool{Name: name, InputSchema: object, Annotations: annotations}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := h(ctx, req)
			if res != nil {
				b, _ := json.Marshal(res)
				u.mu.Lock()
				u.emitted[name] = b
				u.mu.Unlock()
			}
			return res, err
		})
	}
	idempotent := &mcp.ToolAnnotations{IdempotentHint: true, ReadOnlyHint: true}
	text := func(s string) []mcp.Content { return []mcp.Content{&mcp.TextContent{Text: s}} }

	add("ok", idempotent, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{
			Meta:              mcp.Meta{"com.example/trace": "t-1", "com.example/n": 7},
			Content:           text("fine: <ok> & \u00e9"),
			StructuredContent: map[string]any{"b": 2, "a": 1, "big": 12345678901},
		}, nil
	})
	add("unavailable", idempotent, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: text("503 Service Unavailable: inventory backend overloaded, retry after 2 seconds")}, nil
	})
	add("not_found", nil, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: text("404 Not Found: no repository acme/nope")}, nil
	})
	add("with_meta", nil, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{
			IsError:           true,
			Meta:              mcp.Meta{"com.example/requestId": "req-7", "com.example/shard": 3},
			Content:           text("the send needs explicit confirmation for production recipients"),
			StructuredContent: map[string]any{"reason_code": "explicit_production_confirmation_required", "execution": map[string]any{"status": "awaiting_confirmation"}},
		}, nil
	})
	// A Go error from a typed handler: the SDK turns it into an isError
	// result (a raw handler's error would be a JSON-RPC error instead).
	mcp.AddTool(u.Server, &mcp.Tool{Name: "go_error"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, struct{}, error) {
		return nil, struct{}{}, errors.New("401 Unauthorized: the access token expired; sign in again")
	})
	add("bad_params", nil, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `missing field "to"`}
	})
	add("progress", nil, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		tok := req.Params.GetProgressToken()
		for i := 1; i <= 3; i++ {
			if tok != nil {
				if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 3}); err != nil {
					return nil, err
				}
			}
		}
		return &mcp.CallToolResult{Content: text("counted")}, nil
	})
	add("sample", nil, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: text("model said: " + res.Content.(*mcp.TextContent).Text)}, nil
	})
	add("elicit", nil, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "color?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"color": map[string]any{"type": "string"}}}})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: text("user said: " + res.Action + " " + res.Content["color"].(string))}, nil
	})
	add("wait", nil, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-ctx.Done():
			u.cancelled.Add(1)
			return nil, ctx.Err()
		case <-time.After(30 * time.Second):
			return &mcp.CallToolResult{Content: text("waited")}, nil
		}
	})
	add("add_tool", nil, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		u.AddTool(&mcp.Tool{Name: "late", InputSchema: object, Annotations: idempotent}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: text("503 Service Unavailable")}, nil
		})
		return &mcp.CallToolResult{Content: text("added")}, nil
	})
	u.AddPrompt(&mcp.Prompt{Name: "greet"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello"}}}}, nil
	})
	u.AddResource(&mcp.Resource{URI: "file:///readme", Name: "readme", MIMEType: "text/plain"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///readme", MIMEType: "text/plain", Text: "read me"}}}, nil
	})
	return u
}

func (u *upstreamServer) lastResult(tool string) []byte {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.emitted[tool]
}

// Transports the SDK-level tests run over, as "client side/upstream side",
// with "@version" when the client asks for an older protocol version. By
// default both SDKs speak 2026-07-28, the stateless protocol: over HTTP the
// proxy then serves calls without a session, and "@2025-11-25" runs its
// sessions.
var transports = []string{"stdio/stdio", "stdio/stdio@2025-11-25", "stdio/http", "http/stdio", "http/stdio@2025-11-25", "http/http", "http/http@2025-11-25"}

// setupSession puts the proxy between a Go SDK client and u over the named
// transports and returns the client session.
func setupSession(t *testing.T, p *mcpproxy.Proxy, u *upstreamServer, transport string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	transport, version, _ := strings.Cut(transport, "@")
	clientSide, upstreamSide, _ := strings.Cut(transport, "/")
	ctx := context.Background()

	// newUpstream connects a fresh upstream session, as the proxy needs
	// one per client session.
	var newUpstream func() (mcp.Transport, error)
	switch upstreamSide {
	case "stdio":
		newUpstream = func() (mcp.Transport, error) {
			proxyEnd, serverEnd := mcp.NewInMemoryTransports()
			ss, err := u.Connect(ctx, serverEnd, nil)
			if err != nil {
				return nil, err
			}
			t.Cleanup(func() { _ = ss.Close() })
			return proxyEnd, nil
		}
	case "http":
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return u.Server }, nil)
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		newUpstream = func() (mcp.Transport, error) {
			return &mcpproxy.HTTPUpstream{Endpoint: srv.URL}, nil
		}
	}

	var ct mcp.Transport
	switch clientSide {
	case "stdio":
		clientEnd, proxyEnd := mcp.NewInMemoryTransports()
		up, err := newUpstream()
		if err != nil {
			t.Fatal(err)
		}
		rctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			if err := p.Relay(rctx, proxyEnd, up); err != nil {
				t.Logf("Relay: %v", err)
			}
		}()
		t.Cleanup(func() { cancel(); <-done })
		ct = clientEnd
	case "http":
		h := p.Handler(newUpstream, nil)
		mux := http.NewServeMux()
		mux.Handle("/mcp", h)
		srv := httptest.NewServer(mux)
		t.Cleanup(func() { _ = h.Close(); srv.Close() })
		ct = &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "go-client", Version: "v1"}, opts)
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect through the proxy (%s): %v", transport, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// resultJSON encodes a result the way the client received it.
func resultJSON(t *testing.T, res *mcp.CallToolResult) []byte {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func contains(list []string, s string) bool { return slices.Contains(list, s) }
