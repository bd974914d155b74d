package mcpproxy_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
