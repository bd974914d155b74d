package mcpproxy_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omcp/toolfailure/internal/mcpproxy"
)

// TestHandlerRefusesOtherSites: the proxy has no authentication of its own,
// so a web page on another site must not be able to drive it, neither with
// a cross-origin request nor through DNS rebinding.
func TestHandlerRefusesOtherSites(t *testing.T) {
	t.Parallel()
	p := newProxy(t, refusingClassifier{t}, 0)
	var started atomic.Int32
	h := p.Handler(func() (mcp.Transport, error) {
		started.Add(1)
		proxyEnd, serverEnd := mcp.NewInMemoryTransports()
		if _, err := newUpstreamServer(t).Connect(t.Context(), serverEnd, nil); err != nil {
			return nil, err
		}
		return proxyEnd, nil
	}, nil)
	srv := httptest.NewServer(h)
	t.Cleanup(func() { _ = h.Close(); srv.Close() })

	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	post := func(mod func(*http.Request)) int {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		mod(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") }); code != http.StatusForbidden {
		t.Errorf("cross-origin POST: %d, want 403", code)
	}
	if code := post(func(r *http.Request) { r.Host = "rebound.example:80" }); code != http.StatusForbidden {
		t.Errorf("POST with a foreign Host on a loopback listener: %d, want 403", code)
	}
	if n := started.Load(); n != 0 {
		t.Errorf("%d upstreams started for refused requests", n)
	}
	if code := post(func(r *http.Request) { r.Header.Set("Origin", "http://localhost:5173") }); code != http.StatusOK {
		t.Errorf("POST from a local page: %d, want 200", code)
	}
	if code := post(func(r *http.Request) { r.Header.Set("Mcp-Session-Id", "no-such-session") }); code != http.StatusNotFound {
		t.Errorf("POST for an unknown session: %d, want 404", code)
	}
}

// listenHandler serves p's Handler with opts over an in-memory upstream per
// session and returns its URL and the number of upstreams started.
func listenHandler(t *testing.T, p *mcpproxy.Proxy, opts *mcpproxy.HandlerOptions) (string, *atomic.Int32) {
	t.Helper()
	return listenOn(t, p, func() *mcp.Server { return newUpstreamServer(t).Server }, opts)
}

// listenOn serves p's Handler with opts; each upstream it starts is the
// server upstream returns, over in-memory transports. It returns the URL
// and the number of upstreams started.
func listenOn(t *testing.T, p *mcpproxy.Proxy, upstream func() *mcp.Server, opts *mcpproxy.HandlerOptions) (string, *atomic.Int32) {
	t.Helper()
	var started atomic.Int32
	h := p.Handler(func() (mcp.Transport, error) {
		started.Add(1)
		proxyEnd, serverEnd := mcp.NewInMemoryTransports()
		ss, err := upstream().Connect(context.Background(), serverEnd, nil)
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { _ = ss.Close() })
		return proxyEnd, nil
	}, opts)
	srv := httptest.NewServer(h)
	t.Cleanup(func() { _ = h.Close(); srv.Close() })
	return srv.URL, &started
}

// rawPost sends one JSON-RPC message and returns the status and the
// session ID the answer gave.
func rawPost(t *testing.T, url, body string, header map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`

// TestHandlerSessionCap: past MaxSessions an initialize is refused with 503
// and starts nothing; a session that ends frees its place.
func TestHandlerSessionCap(t *testing.T) {
	t.Parallel()
	p := newProxy(t, refusingClassifier{t}, 0)
	url, started := listenHandler(t, p, &mcpproxy.HandlerOptions{MaxSessions: 2})
	var ids []string
	for range 2 {
		code, id := rawPost(t, url, initializeBody, nil)
		if code != http.StatusOK || id == "" {
			t.Fatalf("initialize: %d %q", code, id)
		}
		ids = append(ids, id)
	}
	if code, _ := rawPost(t, url, initializeBody, nil); code != http.StatusServiceUnavailable {
		t.Fatalf("third initialize with a cap of 2: %d, want 503", code)
	}
	if n := started.Load(); n != 2 {
		t.Errorf("%d upstreams started, want 2", n)
	}
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	req.Header.Set("Mcp-Session-Id", ids[0])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if code, _ := rawPost(t, url, initializeBody, nil); code != http.StatusOK {
		t.Errorf("initialize after a DELETE: %d, want 200", code)
	}
}

// TestHandlerBearerToken: with a token, every request needs it, and one
// without it or with another starts nothing.
func TestHandlerBearerToken(t *testing.T) {
	t.Parallel()
	p := newProxy(t, refusingClassifier{t}, 0)
	url, started := listenHandler(t, p, &mcpproxy.HandlerOptions{BearerToken: "s3cret-token"})
	for _, h := range []map[string]string{nil, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic czNjcmV0LXRva2Vu"}} {
		if code, _ := rawPost(t, url, initializeBody, h); code != http.StatusUnauthorized {
			t.Errorf("initialize with %v: %d, want 401", h, code)
		}
	}
	if n := started.Load(); n != 0 {
		t.Errorf("%d upstreams started for refused requests", n)
	}
	code, id := rawPost(t, url, initializeBody, map[string]string{"Authorization": "Bearer s3cret-token"})
	if code != http.StatusOK {
		t.Fatalf("initialize with the token: %d", code)
	}
	if code, _ := rawPost(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, map[string]string{"Mcp-Session-Id": id}); code != http.StatusUnauthorized {
		t.Errorf("a request of the session without the token: %d, want 401", code)
	}
}
