package server

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connectproto"
	"golang.org/x/time/rate"
	"google.golang.org/genproto/googleapis/rpc/errdetails"

	"github.com/omcp/toolfailure/internal/auth"
)

// RateLimit configures per-tenant rate limits: a token bucket per tenant, refilled at Rate tokens
// a second up to Burst, one token per call. The zero value limits nothing.
//
// Limits are per replica: with N replicas behind a balancer a tenant gets up to N times the rate.
// That keeps the check a map lookup with no shared state, and is what the limit is for: to keep one
// tenant's runaway loop from starving the others on a replica, not to meter usage.
type RateLimit struct {
	// Rate is calls per second per tenant; 0 or less means no limit.
	Rate float64
	// Burst is how many calls a tenant may make at once after being idle; 0 means one second's
	// worth (Rate, at least 1).
	Burst int
	// Tenants overrides Rate and Burst for the named tenants. A Rate of 0 or less there lifts the
	// limit for that tenant.
	Tenants map[string]TenantRate
}

// TenantRate is one tenant's override of the default rate limit.
type TenantRate struct {
	Rate  float64
	Burst int
}

// ParseTenantRates reads per-tenant overrides in the form of the serve flag
// (--rate-limit-tenants): "name=rate[:burst],…", e.g. "acme=2000:4000,batch-jobs=50".
func ParseTenantRates(s string) (map[string]TenantRate, error) {
	out := map[string]TenantRate{}
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, spec, ok := strings.Cut(item, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("rate limit %q: want name=rate[:burst]", item)
		}
		rateText, burstText, hasBurst := strings.Cut(spec, ":")
		rate, err := strconv.ParseFloat(strings.TrimSpace(rateText), 64)
		if err != nil || math.IsNaN(rate) || math.IsInf(rate, 0) {
			return nil, fmt.Errorf("rate limit of tenant %q: rate %q is not a number", name, rateText)
		}
		tr := TenantRate{Rate: rate}
		if hasBurst {
			tr.Burst, err = strconv.Atoi(strings.TrimSpace(burstText))
			if err != nil || tr.Burst < 0 {
				return nil, fmt.Errorf("rate limit of tenant %q: burst %q is not a whole number", name, burstText)
			}
		}
		out[name] = tr
	}
	return out, nil
}

// RateLimiter enforces a RateLimit with one golang.org/x/time/rate token bucket per tenant. It is
// safe for concurrent use.
type RateLimiter struct {
	cfg RateLimit
	now func() time.Time

	mu      sync.Mutex
	buckets map[int64]*rate.Limiter
}

// maxBuckets bounds the limiter's memory; past it, buckets that have refilled (idle tenants, which
// lose nothing by starting over full) are dropped.
const maxBuckets = 100_000

// NewRateLimiter returns a limiter for cfg; now is the clock (nil means time.Now).
func NewRateLimiter(cfg RateLimit, now func() time.Time) *RateLimiter {
	if now == nil {
		now = time.Now
	}
	return &RateLimiter{cfg: cfg, now: now, buckets: map[int64]*rate.Limiter{}}
}

// limitOf returns the tenant's rate and burst; rate 0 means unlimited.
func (l *RateLimiter) limitOf(tenant string) (rate.Limit, int) {
	r, b := l.cfg.Rate, l.cfg.Burst
	if o, ok := l.cfg.Tenants[tenant]; ok {
		r, b = o.Rate, o.Burst
	}
	if r <= 0 {
		return 0, 0
	}
	if b <= 0 {
		b = int(math.Max(1, r))
	}
	return rate.Limit(r), b
}

// Allow takes a token from the tenant's bucket. When there is none it returns false and how long
// until there is one.
func (l *RateLimiter) Allow(tenantID int64, tenantName string) (ok bool, retryAfter time.Duration) {
	r, burst := l.limitOf(tenantName)
	if r == 0 {
		return true, 0
	}
	now := l.now()
	l.mu.Lock()
	b := l.buckets[tenantID]
	if b == nil || b.Limit() != r || b.Burst() != burst {
		l.sweepLocked(now)
		b = rate.NewLimiter(r, burst)
		l.buckets[tenantID] = b
	}
	l.mu.Unlock()
	res := b.ReserveN(now, 1)
	wait := res.DelayFrom(now)
	if wait == 0 {
		return true, 0
	}
	// Refused calls do not queue: the token goes back, and the caller is told when to come.
	res.CancelAt(now)
	return false, max(wait.Round(time.Millisecond), time.Millisecond)
}

func (l *RateLimiter) sweepLocked(now time.Time) {
	if len(l.buckets) < maxBuckets {
		return
	}
	for id, b := range l.buckets {
		if b.TokensAt(now) >= float64(b.Burst()) {
			delete(l.buckets, id)
		}
	}
	if len(l.buckets) >= maxBuckets {
		clear(l.buckets) // every tenant busy at once: start everyone over rather than grow
	}
}

// Check is Allow as the API answers it: nil, or resource_exhausted carrying the delay twice, as a
// google.rpc.RetryInfo error detail (which gRPC and Connect clients read) and in the message (for
// people and for clients that read neither).
func (l *RateLimiter) Check(p auth.Principal) *connect.Error {
	if r := l.check(p); r != nil {
		return r.connectError()
	}
	return nil
}

func (l *RateLimiter) check(p auth.Principal) *refusal {
	ok, wait := l.Allow(p.TenantID, p.TenantName)
	if ok {
		return nil
	}
	return exhausted(fmt.Sprintf("rate limit of tenant %q exceeded; retry in %s", p.TenantName, wait), wait)
}

// Interceptor limits every authenticated call by its tenant. It must come after the
// authentication interceptor, which puts the principal in the context; a call without one is
// passed on, for the handler to refuse. Over the limit it answers resource_exhausted before the
// request is read, and sets Retry-After (whole seconds, rounded up) on the response as well
// (connectError in errors.go).
func (l *RateLimiter) Interceptor() connect.ServerInterceptor {
	return func(next connect.ServerFunc) connect.ServerFunc {
		return func(ctx context.Context, spec connect.Spec, stream connect.ServerStream) error {
			p, ok := auth.FromContext(ctx)
			if !ok {
				return next(ctx, spec, stream)
			}
			if r := l.check(p); r != nil {
				return r
			}
			return next(ctx, spec, stream)
		}
	}
}

// RetryDelay returns the delay of the google.rpc.RetryInfo in err's details, or 0 when there is
// none. Clients of the service can use it to back off exactly as long as the server asks.
func RetryDelay(err error) time.Duration {
	var cerr *connect.Error
	if !errors.As(err, &cerr) {
		return 0
	}
	for _, d := range cerr.Details() {
		msg, uerr := connectproto.UnmarshalErrorDetail(d)
		if uerr != nil {
			continue
		}
		if ri, ok := msg.(*errdetails.RetryInfo); ok {
			return ri.GetRetryDelay().AsDuration()
		}
	}
	return 0
}
