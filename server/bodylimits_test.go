package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/omcp/toolfailure/internal/apikey"
	"github.com/omcp/toolfailure/internal/racetest"
	"github.com/omcp/toolfailure/server"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/postgres"
)

// inProcess is the service's handler on a migrated PostgreSQL schema of its own, with a report key, for
// calling ServeHTTP directly: what a request costs is then what the handler spends on it, with
// no client or connection in the count.
func inProcess(tb testing.TB) (http.Handler, string) {
	tb.Helper()
	ctx := tb.Context()
	s, err := postgres.Open(ctx, migrated(tb))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	ten, err := s.EnsureTenant(ctx, "acme")
	if err != nil {
		tb.Fatal(err)
	}
	k, err := apikey.New()
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := s.CreateAPIKey(ctx, store.APIKey{ID: k.ID, TenantID: ten.ID, Hash: k.Hash, Scopes: []string{apikey.ScopeReport}}); err != nil {
		tb.Fatal(err)
	}
	h, err := server.New(server.Config{Store: s})
	if err != nil {
		tb.Fatal(err)
	}
	return h, k.Secret
}

// emptyObjectDetails is a Classify body whose details are [{},{},…] with n objects.
func emptyObjectDetails(n int) []byte {
	return []byte(`{"tool":"t","error":{"details":[` + strings.Repeat("{},", n-1) + `{}]}}`)
}

// oversizedDetails is the body of issue 31, item 4: 1 MiB (less a little), whose details are
// [{},{},…]. largestDetails is the largest such body the service accepts: details of 256 KiB.
func oversizedDetails() []byte { return emptyObjectDetails((1<<20 - 64) / 3) }
func largestDetails() []byte   { return emptyObjectDetails((256<<10 - 1) / 3) }

// acceptedClassify is an ordinary Classify body, with details, that the service accepts and stores.
var acceptedClassify = []byte(`{"tool":"send_email","server":"mail-mcp","error":{"message":"upstream unavailable","httpStatus":503,` +
	`"retryAfter":"30","details":{"code":"UNAVAILABLE","retryable":true,"errors":[{"reason":"backendError"}]}}}`)

func serveClassify(tb testing.TB, h http.Handler, key string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequestWithContext(tb.Context(), http.MethodPost, classifyPath, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// BenchmarkClassifyOversizedDetails prices refusing the 1 MiB body of empty objects beside
// accepting (classifying and storing) an ordinary request, and the largest details of the kind.
func BenchmarkClassifyOversizedDetails(b *testing.B) {
	h, key := inProcess(b)
	b.Run("refuse", benchServe(h, key, oversizedDetails(), http.StatusBadRequest))
	b.Run("accept-ordinary", benchServe(h, key, acceptedClassify, http.StatusOK))
	b.Run("accept-largest", benchServe(h, key, largestDetails(), http.StatusOK))
}

func benchServe(h http.Handler, key string, body []byte, status int) func(*testing.B) {
	return func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if rec := serveClassify(b, h, key, body); rec.Code != status {
				b.Fatalf("status %d: %.300s", rec.Code, rec.Body.String())
			}
		}
	}
}

// TestOversizedDetailsRefusedCheaply: refusing a Classify whose details are 1 MiB of [{},{},…]
// is invalid_argument naming error.details, and costs less than accepting: fewer allocations
// than an ordinary request, fewer bytes allocated than the largest details of the kind that the
// service accepts, and fewer than the body itself (decoding it before refusing allocated about
// 100 bytes per byte of body: 1 MiB cost 0.35–0.9 s of CPU, 16 such requests 612 MiB).
// Measured with the benchmark above; allocations stand for CPU, which a shared machine cannot
// time reliably.
func TestOversizedDetailsRefusedCheaply(t *testing.T) {
	h, key := inProcess(t)
	body := oversizedDetails()
	rec := serveClassify(t, h, key, body)
	var got struct{ Code, Message string }
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != http.StatusBadRequest ||
		got.Code != "invalid_argument" || !strings.Contains(got.Message, "error.details") {
		t.Fatalf("refusal: %d %q, want 400 invalid_argument naming error.details", rec.Code, rec.Body.String())
	}
	for _, ok := range [][]byte{acceptedClassify, largestDetails()} {
		if rec := serveClassify(t, h, key, ok); rec.Code != http.StatusOK {
			t.Fatalf("accepted request: %d %.300s", rec.Code, rec.Body.String())
		}
	}

	if racetest.Enabled {
		// The race detector empties sync.Pool at random: the body's read buffer, pooled
		// without it, is allocated anew, and the counts say nothing of a real build.
		t.Skip("allocations are measured and bounded without the race detector (scripts/test runs this test again without it)")
	}

	refuse := testing.Benchmark(benchServe(h, key, body, http.StatusBadRequest))
	ordinary := testing.Benchmark(benchServe(h, key, acceptedClassify, http.StatusOK))
	largest := testing.Benchmark(benchServe(h, key, largestDetails(), http.StatusOK))
	if refuse.N == 0 || ordinary.N == 0 || largest.N == 0 {
		t.Fatal("a benchmark failed")
	}
	t.Logf("refuse 1 MiB of empty objects: %d allocs, %d B per request; accept an ordinary request: %d allocs, %d B; "+
		"accept 256 KiB of empty objects: %d allocs, %d B",
		refuse.AllocsPerOp(), refuse.AllocedBytesPerOp(), ordinary.AllocsPerOp(), ordinary.AllocedBytesPerOp(),
		largest.AllocsPerOp(), largest.AllocedBytesPerOp())
	if refuse.AllocsPerOp() >= ordinary.AllocsPerOp() {
		t.Errorf("refusing costs %d allocations, accepting an ordinary request %d", refuse.AllocsPerOp(), ordinary.AllocsPerOp())
	}
	if refuse.AllocedBytesPerOp() >= largest.AllocedBytesPerOp() || refuse.AllocedBytesPerOp() >= int64(len(body)) {
		t.Errorf("refusing allocates %d bytes, accepting the largest details %d, the body is %d",
			refuse.AllocedBytesPerOp(), largest.AllocedBytesPerOp(), len(body))
	}
}
