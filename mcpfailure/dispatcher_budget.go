package mcpfailure

import (
	"fmt"
	"strings"
	"sync"
)

// Defaults of RetryBudgetConfig: the retry quota of the AWS SDKs' standard
// retry mode (INITIAL_RETRY_TOKENS, RETRY_COST, TIMEOUT_RETRY_COST and
// NO_RETRY_INCREMENT in @smithy/util-retry's constants; the AWS SDKs and
// Tools Reference Guide, "Retry behavior", describes the mode). With them a
// server that fails every call gets at most a hundred retries from a
// client before the client stops retrying it, however many calls it makes,
// and a recovered server earns the retries back.
const (
	DefaultRetryBudgetCapacity = 500
	DefaultRetryCost           = 5
	DefaultTimeoutRetryCost    = 10
	DefaultSuccessRefund       = 1
)

// RetryBudgetConfig sets a RetryBudget. Zero values mean the defaults above.
type RetryBudgetConfig struct {
	// Capacity is what the bucket holds, full, as it starts.
	Capacity int
	// RetryCost is taken for each retry of a failure the server reported.
	RetryCost int
	// TimeoutRetryCost is taken for each re-issue of a call whose response
	// the transport lost, which, like a timeout, may have run on the server
	// and so costs it more.
	TimeoutRetryCost int
	// SuccessRefund is added for each call that succeeds at its first
	// attempt. A call that succeeds on a retry gives back what that retry
	// cost instead.
	SuccessRefund int
}

// RetryBudget is a token bucket that bounds the retries a client sends one
// server, so that a failing server cannot multiply its own load: a retry
// is made only when the bucket can pay for it, and successes refill it.
// It is safe for concurrent use; share one between the dispatchers of all
// sessions to the same server.
type RetryBudget struct {
	cfg    RetryBudgetConfig
	mu     sync.Mutex
	tokens int
}

// NewRetryBudget returns a full bucket.
func NewRetryBudget(cfg RetryBudgetConfig) (*RetryBudget, error) {
	if cfg.Capacity < 0 || cfg.RetryCost < 0 || cfg.TimeoutRetryCost < 0 || cfg.SuccessRefund < 0 {
		return nil, fmt.Errorf("mcpfailure: RetryBudgetConfig out of range: %+v", cfg)
	}
	if cfg.Capacity == 0 {
		cfg.Capacity = DefaultRetryBudgetCapacity
	}
	if cfg.RetryCost == 0 {
		cfg.RetryCost = DefaultRetryCost
	}
	if cfg.TimeoutRetryCost == 0 {
		cfg.TimeoutRetryCost = DefaultTimeoutRetryCost
	}
	if cfg.SuccessRefund == 0 {
		cfg.SuccessRefund = DefaultSuccessRefund
	}
	return &RetryBudget{cfg: cfg, tokens: cfg.Capacity}, nil
}

// Tokens reports what the bucket holds now.
func (b *RetryBudget) Tokens() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.tokens
}

// take pays cost if the bucket can; it reports what is left either way.
func (b *RetryBudget) take(cost int) (int, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tokens < cost {
		return b.tokens, false
	}
	b.tokens -= cost
	return b.tokens, true
}

// refund gives n tokens back, never beyond the capacity.
func (b *RetryBudget) refund(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.tokens = min(b.tokens+n, b.cfg.Capacity)
}

// succeeded refills the bucket after a success: what the retry that led to
// it cost, or SuccessRefund when it needed none.
func (b *RetryBudget) succeeded(paid int) {
	if paid == 0 {
		paid = b.cfg.SuccessRefund
	}
	b.refund(paid)
}

// rateLimitCodes are the codes, lower-cased and without separators, that
// name a rate limit. The proposal's vocabulary has none (a rate limit is
// reliability/retryable_transient_error), but servers may add codes, and
// these are the names that HTTP (429 Too Many Requests), gRPC
// (RESOURCE_EXHAUSTED) and the large cloud APIs give the condition.
var rateLimitCodes = map[string]bool{
	"ratelimit": true, "ratelimited": true, "ratelimitexceeded": true, "toomanyrequests": true,
	"throttled": true, "throttling": true, "throttlingexception": true, "resourceexhausted": true,
	"quotaexceeded": true, "slowdown": true, "requestlimitexceeded": true,
}

// RateLimitCode reports whether a failure code names a rate limit
// (rate_limited, too_many_requests, RESOURCE_EXHAUSTED, Throttling, …).
func RateLimitCode(code string) bool {
	var b strings.Builder
	for _, r := range strings.ToLower(code) {
		if r != '_' && r != '-' && r != '.' && r != ' ' {
			b.WriteRune(r)
		}
	}
	return rateLimitCodes[b.String()]
}

// throttled reports whether a retryable failure is the server asking for
// less traffic. A retryNotBefore says so: a server names the instant it
// will take calls again when it is pacing its clients (the service takes it
// from a Retry-After on a 429 or 503, or a gRPC RetryInfo, and this
// package's mapping of protocol errors sets it only from a rate limit's
// retry hint). So does a rate-limit code. The agentGuidance is never read
// for this: it is prose for the model, not a signal for the client.
func throttled(tf ToolFailure) bool {
	return !tf.RetryNotBefore.IsZero() || RateLimitCode(tf.Code)
}
