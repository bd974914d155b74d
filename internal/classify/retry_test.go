package classify_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/omcp/toolfailure/internal/classify"
)

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	day := classify.MaxRetryDelay
	cases := []struct {
		in   string
		ok   bool
		want time.Duration // after now
	}{
		{"30", true, 30 * time.Second},
		{" 45 ", true, 45 * time.Second},
		{"0", true, 0},
		{"1.5", true, 1500 * time.Millisecond},
		{"0.529", true, 529 * time.Millisecond},
		{"30s", true, 30 * time.Second},
		{"1m30s", true, 90 * time.Second},
		{"250ms", true, 250 * time.Millisecond},
		{"1e9", true, day},
		{"999999999999999999999", true, day},
		{"Sun, 30 Nov 2025 12:01:30 GMT", true, 90 * time.Second},  // IMF-fixdate
		{"Sunday, 30-Nov-25 12:01:30 GMT", true, 90 * time.Second}, // RFC 850
		{"Sun Nov 30 12:01:30 2025", true, 90 * time.Second},       // asctime
		{"Sun, 30 Nov 2025 11:00:00 GMT", true, 0},                 // past: retry now
		{"Sun, 07 Dec 2025 12:00:00 GMT", true, day},               // too far: clamped
		{"", false, 0},
		{"   ", false, 0},
		{"-5", false, 0},
		{"-1s", false, 0},
		{"soon", false, 0},
		{"NaN", false, 0},
		{"Inf", false, 0},
		{"30 seconds", false, 0},
		{"Sun, 30 Nov 2025 25:61:00 GMT", false, 0},
	}
	for _, c := range cases {
		got, ok := classify.ParseRetryAfter(c.in, now)
		if ok != c.ok {
			t.Errorf("ParseRetryAfter(%q) ok = %v, want %v", c.in, ok, c.ok)
			continue
		}
		if ok && got.Sub(now) != c.want {
			t.Errorf("ParseRetryAfter(%q) = now+%v, want now+%v", c.in, got.Sub(now), c.want)
		}
	}
}

func TestRetryTime(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, msg, retryAfter, details string
		want                           time.Duration // 0 = none
	}{
		{name: "header wins over text", retryAfter: "45", msg: "try again in 20s", want: 45 * time.Second},
		{name: "google retry info", details: `{"error":{"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"37s"}]}}`, want: 37 * time.Second},
		{name: "protobuf duration object", details: `[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":{"seconds":3,"nanos":500000000}}]`, want: 3500 * time.Millisecond},
		{name: "retry_after number", details: `{"retry_after":12}`, want: 12 * time.Second},
		{name: "retryAfter string", details: `{"data":{"retryAfter":"8"}}`, want: 8 * time.Second},
		{name: "retry-after-ms header", details: `{"headers":{"retry-after-ms":"1500"}}`, want: 1500 * time.Millisecond},
		{name: "header list", details: `{"headers":{"Retry-After":["30"]}}`, want: 30 * time.Second},
		{name: "negative ignored", details: `{"retry_after":-3}`},
		{name: "garbage ignored", details: `{"retry_after":"whenever"}`},
		{name: "try again in seconds", msg: "Rate limit reached. Please try again in 20s.", want: 20 * time.Second},
		{name: "fractional", msg: "Please retry in 59.51s", want: 59510 * time.Millisecond},
		{name: "retry after seconds words", msg: "retry after 2.5 seconds", want: 2500 * time.Millisecond},
		{name: "go duration", msg: "Please try again in 6m0s.", want: 6 * time.Minute},
		{name: "minutes and seconds", msg: "You can try again in 1 minute and 30 seconds", want: 90 * time.Second},
		{name: "milliseconds", msg: "Please try again in 380ms.", want: 380 * time.Millisecond},
		{name: "slack phrasing", msg: "A rate-limit has been reached, you may retry this request in 30 seconds", want: 30 * time.Second},
		{name: "retry-after in text", msg: "429 Too Many Requests (Retry-After: 17)", want: 17 * time.Second},
		{name: "wait for", msg: "Slow down: wait 5 seconds between calls", want: 5 * time.Second},
		{name: "clamped", msg: "try again in 90 days", want: classify.MaxRetryDelay},
		{name: "text in details", details: `{"message":"Too many requests. Try again in 3 seconds."}`, want: 3 * time.Second},
		{name: "no number", msg: "Please wait a few minutes before you try again."},
		{name: "timestamp", msg: "Quota resets. Retry after 2025-11-30T12:05:00Z.", want: 5 * time.Minute},
		{name: "clock time is not a delay", msg: "Try again after 14:30 UTC"},
		{name: "unrelated number", msg: "Limit 30000, Used 28112, Requested 4410."},
	}
	for _, c := range cases {
		in := &classify.Input{Error: classify.RawError{Message: c.msg, RetryAfter: c.retryAfter}}
		if c.details != "" {
			if err := json.Unmarshal([]byte(c.details), &in.Error.Details); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
		}
		got, ok := classify.RetryTime(in, now)
		switch {
		case c.want == 0 && ok:
			t.Errorf("%s: RetryTime = now+%v, want none", c.name, got.Sub(now))
		case c.want != 0 && !ok:
			t.Errorf("%s: RetryTime found nothing, want now+%v", c.name, c.want)
		case c.want != 0 && got.Sub(now) != c.want:
			t.Errorf("%s: RetryTime = now+%v, want now+%v", c.name, got.Sub(now), c.want)
		}
	}
}

func TestRetryNotBeforeOnlyWhenRetryable(t *testing.T) {
	t.Parallel()
	// A 503 with Retry-After from a tool with side effects: reliability but
	// not retryable, so no retry time is promised.
	in := &classify.Input{Error: classify.RawError{HTTPStatus: i32(503), RetryAfter: "30"}}
	o := classify.Baseline(in, now)
	if o.Class != classify.Reliability || o.Retryable || !o.RetryNotBefore.IsZero() {
		t.Fatalf("got %+v, want reliability, not retryable, no RetryNotBefore", o)
	}
	if want := "check its result"; !contains(o.AgentGuidance, want) {
		t.Errorf("guidance %q should ask to check the result", o.AgentGuidance)
	}
	yes := true
	in.Annotations.ReadOnlyHint = &yes
	o = classify.Baseline(in, now)
	if !o.Retryable || o.RetryNotBefore.Sub(now) != 30*time.Second {
		t.Fatalf("read-only tool: got %+v, want retryable after 30 s", o)
	}
	if want := "Wait 30 s"; !contains(o.AgentGuidance, want) {
		t.Errorf("guidance %q should say %q", o.AgentGuidance, want)
	}
}
