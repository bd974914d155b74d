package mcpproxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omcp/toolfailure/internal/mcpproxy"
)

// statelessUpstream is an MCP server with two tools: "hold" sends one
// progress notification and then runs until its call is cancelled, which it
// reports on cancelled; "echo" answers with its "text" argument.
func statelessUpstream(t *testing.T) (s *mcp.Server, cancelled <-chan struct{}) {
	t.Helper()
	s = mcp.NewServer(&mcp.Implementation{Name: "stateless-upstream", Version: "v1"}, nil)
	ch := make(chan struct{}, 8)
	object := map[string]any{"type": "object"}
	s.AddTool(&mcp.Tool{Name: "hold", InputSchema: object}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if tok := req.Params.GetProgressToken(); tok != nil {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1})
		}
		<-ctx.Done()
		ch <- struct{}{}
		return nil, ctx.Err()
	})
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: object}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(req.Params.Arguments, &args)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: args.Text}}}, nil
	})
	return s, ch
}

// statelessCall POSTs one call of protocol 2026-07-28 (no session, the
// version in the header and in _meta) and returns the response, whose body
// is an event stream.
func statelessCall(t *testing.T, ctx context.Context, url, id, tool, args, progressToken string) *http.Response {
	t.Helper()
	meta := `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}`
	if progressToken != "" {
		meta += `,"progressToken":"` + progressToken + `"`
	}
	body := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `,"_meta":{` + meta + `}}}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", tool, err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("POST %s: %d %s", tool, resp.StatusCode, b)
	}
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		t.Errorf("POST %s: a stateless call was given a session: %q", tool, sid)
	}
	return resp
}

// nextEvent reads the data of the next event of an event stream.
func nextEvent(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the event stream: %v", err)
		}
		if data, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "data: "); ok {
			return data
		}
	}
}

// TestStatelessClientsShareOneUpstream: calls of protocol 2026-07-28 need
// no session. Clients that use the same JSON-RPC ID at the same time each
// get their own answer, under the ID they gave (a number past 2^63
// unchanged); progress goes to the call that asked for it, under the token
// it gave, even when two clients chose the same one; all of them are served
// by one upstream; a client that goes away has its call cancelled upstream.
func TestStatelessClientsShareOneUpstream(t *testing.T) {
	t.Parallel()
	p := newProxy(t, refusingClassifier{t}, 0)
	server, cancelled := statelessUpstream(t)
	url, started := listenOn(t, p, func() *mcp.Server { return server }, nil)

	// Two clients hold a call each, with the same ID and the same
	// progress token: each gets its own progress, under its own token.
	holdCtx, leave := context.WithCancel(t.Context())
	defer leave()
	for range 2 {
		held := statelessCall(t, holdCtx, url, "1", "hold", `{}`, "tok")
		defer func() { _ = held.Body.Close() }()
		progress := nextEvent(t, bufio.NewReader(held.Body))
		if !strings.Contains(progress, `"method":"notifications/progress"`) || !strings.Contains(progress, `"progressToken":"tok"`) {
			t.Fatalf("first event of a held call: %s, want its progress", progress)
		}
	}

	// While "hold" with ID 1 runs, other clients call with ID 1 too.
	for _, c := range []struct{ id, text string }{{"1", "first"}, {`"1"`, "string one"}, {"12345678901234567890", "big"}} {
		// An answer that went to another client would never come.
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		resp := statelessCall(t, ctx, url, c.id, "echo", `{"text":"`+c.text+`"}`, "")
		answer := nextEvent(t, bufio.NewReader(resp.Body))
		_ = resp.Body.Close()
		cancel()
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Result struct {
				Content []struct{ Text string } `json:"content"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(answer), &msg); err != nil {
			t.Fatalf("answer to id %s: %v: %s", c.id, err, answer)
		}
		if string(msg.ID) != c.id || len(msg.Result.Content) != 1 || msg.Result.Content[0].Text != c.text {
			t.Errorf("answer to id %s: %s, want its own answer %q under its own ID", c.id, answer, c.text)
		}
	}
	if n := started.Load(); n != 1 {
		t.Errorf("%d upstreams started for the stateless calls, want 1", n)
	}

	leave()
	for range 2 {
		select {
		case <-cancelled:
		case <-time.After(10 * time.Second):
			t.Fatal("a held call was not cancelled upstream within 10 s of its client going away")
		}
	}
}

// TestStatelessPOSTNeedsItsVersion: a POST without a session that names no
// protocol version of 2026-07-28 or later is still refused (a client of an
// older version must initialize), and the shared session cannot be reached
// by a session ID.
func TestStatelessPOSTNeedsItsVersion(t *testing.T) {
	t.Parallel()
	p := newProxy(t, refusingClassifier{t}, 0)
	url, started := listenHandler(t, p, nil)
	for name, hdr := range map[string]map[string]string{
		"no version":  nil,
		"old version": {"Mcp-Protocol-Version": "2025-11-25"},
	} {
		code, sid := rawPost(t, url, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, hdr)
		if code != http.StatusBadRequest || sid != "" {
			t.Errorf("%s: POST without a session: %d %q, want 400 and no session", name, code, sid)
		}
	}
	if n := started.Load(); n != 0 {
		t.Errorf("%d upstreams started for refused POSTs, want 0", n)
	}
	code, _ := rawPost(t, url, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, map[string]string{"Mcp-Protocol-Version": "2026-07-28"})
	if code != http.StatusOK {
		t.Fatalf("POST of 2026-07-28 without a session: %d, want 200", code)
	}
	if code, _ := rawPost(t, url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, map[string]string{"Mcp-Protocol-Version": "2026-07-28"}); code != http.StatusAccepted {
		t.Errorf("a stateless notification: %d, want 202", code)
	}
}

// TestStatelessCountsAgainstMaxSessions: the upstream that stateless calls
// share is counted against MaxSessions like a session's: with the cap taken
// by a session, a stateless call is refused with 503 and starts nothing.
func TestStatelessCountsAgainstMaxSessions(t *testing.T) {
	t.Parallel()
	p := newProxy(t, refusingClassifier{t}, 0)
	url, started := listenHandler(t, p, &mcpproxy.HandlerOptions{MaxSessions: 1})
	if code, sid := rawPost(t, url, initializeBody, nil); code != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %q", code, sid)
	}
	stateless := map[string]string{"Mcp-Protocol-Version": "2026-07-28"}
	if code, _ := rawPost(t, url, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, stateless); code != http.StatusServiceUnavailable {
		t.Errorf("a stateless call with the cap taken: %d, want 503", code)
	}
	if n := started.Load(); n != 1 {
		t.Errorf("%d upstreams started, want 1 (the session's)", n)
	}
}
