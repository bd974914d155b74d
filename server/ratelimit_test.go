package server_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect/v2"

	"github.com/omcp/toolfailure/internal/auth"
	"github.com/omcp/toolfailure/server"
)

// fakeClock is a settable time source, so that refill is tested without sleeping.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestRateLimiterBurstThenRefill(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := server.NewRateLimiter(server.RateLimit{Rate: 10, Burst: 3}, clock.Now)
	acme := auth.Principal{TenantID: 1, TenantName: "acme"}
	for i := range 3 {
		if err := l.Check(acme); err != nil {
			t.Fatalf("call %d within the burst refused: %v", i, err)
		}
	}
	err := l.Check(acme)
	if err == nil {
		t.Fatal("call beyond the burst allowed")
	}
	if err.Code() != connect.CodeResourceExhausted {
		t.Fatalf("code = %v, want resource_exhausted", err.Code())
	}
	if d := server.RetryDelay(err); d != 100*time.Millisecond {
		t.Fatalf("retry delay = %v, want 100ms (one token at 10/s)", d)
	}
	// Another tenant has a bucket of its own.
	if err := l.Check(auth.Principal{TenantID: 2, TenantName: "globex"}); err != nil {
		t.Fatalf("another tenant was limited: %v", err)
	}
	clock.Advance(100 * time.Millisecond)
	if err := l.Check(acme); err != nil {
		t.Fatalf("call after the advertised delay refused: %v", err)
	}
	if err := l.Check(acme); err == nil {
		t.Fatal("second call after one token's refill allowed")
	}
}

func TestRateLimiterOverrides(t *testing.T) {
	t.Parallel()
	overrides, err := server.ParseTenantRates("vip=0, slow=1:1")
	if err != nil {
		t.Fatal(err)
	}
	clock := &fakeClock{now: time.Unix(0, 0)}
	l := server.NewRateLimiter(server.RateLimit{Rate: 1, Burst: 1, Tenants: overrides}, clock.Now)
	for range 100 {
		if err := l.Check(auth.Principal{TenantID: 1, TenantName: "vip"}); err != nil {
			t.Fatalf("unlimited tenant refused: %v", err)
		}
	}
	slow := auth.Principal{TenantID: 2, TenantName: "slow"}
	if err := l.Check(slow); err != nil {
		t.Fatal(err)
	}
	cerr := l.Check(slow)
	if d := server.RetryDelay(cerr); d != time.Second {
		t.Fatalf("retry delay = %v (error %v), want 1s", d, cerr)
	}
}

func TestRateLimitZeroValueLimitsNothing(t *testing.T) {
	t.Parallel()
	l := server.NewRateLimiter(server.RateLimit{}, nil)
	for range 1000 {
		if err := l.Check(auth.Principal{TenantID: 1}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestParseTenantRates(t *testing.T) {
	t.Parallel()
	got, err := server.ParseTenantRates("acme=2000:4000, batch-jobs=50,")
	if err != nil {
		t.Fatal(err)
	}
	if got["acme"] != (server.TenantRate{Rate: 2000, Burst: 4000}) || got["batch-jobs"] != (server.TenantRate{Rate: 50}) || len(got) != 2 {
		t.Fatalf("ParseTenantRates = %v", got)
	}
	for _, bad := range []string{"acme", "=5", "acme=fast", "acme=5:-1", "acme=NaN"} {
		if _, err := server.ParseTenantRates(bad); err == nil {
			t.Errorf("ParseTenantRates(%q) succeeded, want an error", bad)
		}
	}
	if server.RetryDelay(errors.New("plain")) != 0 {
		t.Error("RetryDelay of a plain error is not 0")
	}
}
