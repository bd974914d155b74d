package server_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/omcp/toolfailure/server"
)

// TestRateLimitOverHTTP checks what a caller sees when its tenant is over
// the limit: resource_exhausted, a Retry-After header and a RetryInfo
// detail, and a neighbouring tenant unaffected.
func TestRateLimitOverHTTP(t *testing.T) {
	t.Parallel()
	b := setup(t)
	h, err := server.New(server.Config{Store: b.store, RateLimit: server.RateLimit{Rate: 0.5, Burst: 1}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	call := func(key string) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+classifyPath, strings.NewReader(`{"tool": "t", "error": {"httpStatus": 503}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		return res, string(raw)
	}
	if res, body := call(b.reportKey); res.StatusCode != http.StatusOK {
		t.Fatalf("first call: %d %s", res.StatusCode, body)
	}
	res, body := call(b.reportKey)
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(body, `"resource_exhausted"`) {
		t.Fatalf("over the limit: %d %s", res.StatusCode, body)
	}
	if ra := res.Header.Get("Retry-After"); ra != "2" {
		t.Errorf("Retry-After = %q, want 2 (one token at 0.5/s)", ra)
	}
	if !strings.Contains(body, "google.rpc.RetryInfo") {
		t.Errorf("no RetryInfo detail in %s", body)
	}
	if res, body := call(b.otherAllKey); res.StatusCode != http.StatusOK {
		t.Fatalf("another tenant was limited too: %d %s", res.StatusCode, body)
	}
}
