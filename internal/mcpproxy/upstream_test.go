package mcpproxy_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omcp/toolfailure/internal/mcpproxy"
)

// holdingServer is an MCP server over streamable HTTP whose one tool,
// "hold", signals that it started and then runs until its request is gone.
func holdingServer(t *testing.T) (srv *httptest.Server, started <-chan struct{}) {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "holding", Version: "v1"}, nil)
	ch := make(chan struct{}, 8)
	s.AddTool(&mcp.Tool{Name: "hold", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if tok := req.Params.GetProgressToken(); tok != nil {
			// Progress opens the response stream: the call is then
			// cut off mid-stream, not before its headers.
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1})
		}
		ch <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	srv = httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv, ch
}

// relayHTTP runs p between a raw client peer and an HTTP upstream.
func relayHTTP(t *testing.T, p *mcpproxy.Proxy, endpoint string) (client *rawPeer, done <-chan error) {
	t.Helper()
	ct, client := rawPipe(t)
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
		err := p.Relay(ctx, ct, &mcpproxy.HTTPUpstream{Endpoint: endpoint})
		errc <- err
		errc <- err
	}()
	return client, errc
}

// initializeRaw runs the handshake with a real server behind the proxy.
func initializeRaw(t *testing.T, client *rawPeer) {
	t.Helper()
	client.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if m := decode(t, client.recv(5*time.Second)); m.Error != nil || len(m.Result) == 0 {
		t.Fatalf("initialize: %+v", m.Error)
	}
	client.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// TestDyingHTTPUpstreamAnswersEveryCall: when the HTTP upstream dies with
// calls in flight, each of them gets CodeConnectionClosed at once, naming
// what broke (not a made-up code 0, not a retry loop of many seconds, not
// the DELETE that failed afterwards), and none is recorded as a tool failure.
func TestDyingHTTPUpstreamAnswersEveryCall(t *testing.T) {
	t.Parallel()
	for _, midStream := range []bool{false, true} {
		t.Run(map[bool]string{false: "before-headers", true: "mid-stream"}[midStream], func(t *testing.T) {
			t.Parallel()
			testDyingHTTPUpstream(t, midStream)
		})
	}
}

func testDyingHTTPUpstream(t *testing.T, midStream bool) {
	srv, started := holdingServer(t)
	p := newProxy(t, refusingClassifier{t}, 0)
	client, done := relayHTTP(t, p, srv.URL)
	initializeRaw(t, client)

	meta := ""
	if midStream {
		meta = `,"_meta":{"progressToken":"p"}`
	}
	client.send(`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"hold"` + meta + `}}`)
	client.send(`{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"hold"` + meta + `}}`)
	for range 2 {
		select {
		case <-started:
		case <-time.After(5 * time.Second):
			t.Fatal("the calls did not reach the upstream")
		}
	}
	_ = srv.Listener.Close()
	srv.CloseClientConnections()

	ids := map[string]bool{}
	for len(ids) < 2 {
		got := decode(t, client.recv(3*time.Second))
		if got.Method == "notifications/progress" {
			continue
		}
		if got.Error == nil || got.Error.Code != mcpproxy.CodeConnectionClosed {
			t.Fatalf("answer %s: want error %d, got %+v %s", got.ID, mcpproxy.CodeConnectionClosed, got.Error, got.Result)
		}
		if !strings.Contains(got.Error.Message, "broke") || strings.Contains(got.Error.Message, "DELETE") {
			t.Errorf("answer %s: message %q does not say that the connection broke", got.ID, got.Error.Message)
		}
		ids[string(got.ID)] = true
	}
	if !ids[`"a"`] || !ids[`"b"`] {
		t.Errorf("answered %v, want both calls", ids)
	}
	select {
	case err := <-done:
		if !errors.Is(err, mcpproxy.ErrUpstreamClosed) {
			t.Errorf("Relay returned %v, want ErrUpstreamClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Relay did not return after the upstream died")
	}
}

// TestUnreachableUpstreamIsAProtocolError: a call the proxy cannot deliver
// gets the proxy's own JSON-RPC error, and is not sent to the service as a
// failure of the tool: only a tool's own answers are tool failures.
func TestUnreachableUpstreamIsAProtocolError(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := "http://" + ln.Addr().String() + "/mcp"
	_ = ln.Close() // nothing listens there any more

	p := newProxy(t, refusingClassifier{t}, 0)
	client, _ := relayHTTP(t, p, endpoint)
	client.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	client.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"x"}}}`)
	for range 2 {
		got := decode(t, client.recv(5*time.Second))
		if got.Error == nil || got.Error.Code != mcpproxy.CodeConnectionClosed || !strings.Contains(got.Error.Message, "cannot reach the upstream MCP server") {
			t.Fatalf("answer %s: want the proxy's connection error, got %+v %s", got.ID, got.Error, got.Result)
		}
	}
}

// bigServer is an MCP server over streamable HTTP whose tool "big" returns
// a text of params.arguments.n bytes, and "small" a short one.
func bigServer(t *testing.T) *httptest.Server {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "big", Version: "v1"}, nil)
	type args struct {
		N int `json:"n"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "big"}, func(_ context.Context, _ *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("a", a.N)}}}, nil, nil
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv
}

// TestLargeAnswerOverHTTP: over an HTTP upstream, an answer over the SDK's
// 16 MiB event limit passes under a limit above it, and one over the
// limit fails its call alone.
func TestLargeAnswerOverHTTP(t *testing.T) {
	t.Parallel()
	srv := bigServer(t)
	p := newProxyConfig(t, mcpproxy.Config{Classifier: refusingClassifier{t}, MaxMessageBytes: 17 << 20})
	client, _ := relayHTTP(t, p, srv.URL)
	initializeRaw(t, client)

	client.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big","arguments":{"n":17301504}}}`)
	if got := decode(t, client.recv(2*time.Minute)); got.Error != nil || len(got.Result) < 17301504 {
		t.Fatalf("16.5 MiB answer: %+v, %d bytes", got.Error, len(got.Result))
	}
	client.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"big","arguments":{"n":18350080}}}`)
	got := decode(t, client.recv(2*time.Minute))
	if string(got.ID) != "2" || got.Error == nil || !strings.Contains(got.Error.Message, "limit") {
		t.Fatalf("17.5 MiB answer: %s %+v, want an error naming the limit", got.ID, got.Error)
	}
	client.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"big","arguments":{"n":10}}}`)
	if got := decode(t, client.recv(10*time.Second)); string(got.ID) != "3" || got.Error != nil {
		t.Fatalf("after the oversized answer: %s %+v", got.ID, got.Error)
	}
}

// TestResumedResponseStream: an upstream that ends a call's response stream
// before the answer (a server on an event store may, asking the client to
// come back) gets a GET with Last-Event-ID, and the call its progress and its
// answer through the proxy.
func TestResumedResponseStream(t *testing.T) {
	t.Parallel()
	s := mcp.NewServer(&mcp.Implementation{Name: "resuming", Version: "v1"}, nil)
	s.AddTool(&mcp.Tool{Name: "resume", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		tok := req.Params.GetProgressToken()
		for i := range 2 {
			req.Extra.CloseSSEStream(mcp.CloseSSEStreamArgs{RetryAfter: 10 * time.Millisecond})
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i + 1)})
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "resumed"}}}, nil
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{EventStore: mcp.NewMemoryEventStore(nil)}))
	t.Cleanup(srv.Close)

	p := newProxy(t, refusingClassifier{t}, 0)
	client, _ := relayHTTP(t, p, srv.URL)
	initializeRaw(t, client)
	client.send(`{"jsonrpc":"2.0","id":"r","method":"tools/call","params":{"name":"resume","_meta":{"progressToken":"p"}}}`)
	progress := 0
	for {
		got := decode(t, client.recv(10*time.Second))
		if got.Method == "notifications/progress" {
			progress++
			continue
		}
		if string(got.ID) != `"r"` || got.Error != nil || !strings.Contains(string(got.Result), "resumed") {
			t.Fatalf("answer %s: %+v %s, want the tool's result", got.ID, got.Error, got.Result)
		}
		break
	}
	if progress != 2 {
		t.Errorf("%d progress notifications before the answer, want 2", progress)
	}
}
