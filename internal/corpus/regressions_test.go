package corpus_test

import (
	"testing"
	"time"

	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/internal/corpus"
)

// Shapes that once regressed, through the packs and the engine as the
// service runs them.
func TestRateLimitRegressions(t *testing.T) {
	t.Parallel()
	i32 := func(v int32) *int32 { return &v }
	for _, tc := range []struct {
		name  string
		err   corpus.Error
		class classify.Class
		code  string
		wait  time.Duration
	}{
		// The Retry-After header is authoritative over vague words in the
		// text, and always yields the time.
		{"429 with a header and vague text", corpus.Error{Message: "Too many requests. Please try again in a few minutes.", HTTPStatus: i32(429), RetryAfter: "10"},
			classify.Reliability, classify.CodeRetryableTransient, 10 * time.Second},
		// A per-minute token limit that this request does not exceed
		// passes once the window moves on.
		{"429 per-minute tokens, try again later", corpus.Error{Message: "Error code: 429 - This request would exceed the rate limit for your organization of 400,000 input tokens per minute. Please reduce the prompt length or the maximum tokens requested, or try again later.", HTTPStatus: i32(429), RetryAfter: "20"},
			classify.Reliability, classify.CodeRetryableTransient, 20 * time.Second},
		// One request larger than the window's limit never passes.
		{"429 request larger than the limit", corpus.Error{Message: "Request too large for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Requested 45210. The input or output tokens must be reduced in order to run successfully.", HTTPStatus: i32(429), RetryAfter: "20"},
			classify.Capability, classify.CodeInvalidInput, 0},
	} {
		c := corpus.Case{ID: tc.name, Tool: "t", Error: tc.err}
		o := corpus.Classify(&c)
		if o.Class != tc.class || o.Code != tc.code {
			t.Errorf("%s: %s/%s by %s, want %s/%s", tc.name, o.Class, o.Code, o.RuleID, tc.class, tc.code)
			continue
		}
		if tc.wait > 0 && (!o.Retryable || o.RetryNotBefore.Sub(corpus.Now) != tc.wait) {
			t.Errorf("%s: retryable %v, retryNotBefore %v after now, want %v (by %s)", tc.name, o.Retryable, o.RetryNotBefore.Sub(corpus.Now), tc.wait, o.RuleID)
		}
	}
}
