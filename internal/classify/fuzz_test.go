package classify_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/internal/corpus"
)

func FuzzBaseline(f *testing.F) {
	f.Add("read ECONNRESET", "ECONNRESET", int32(0), int32(-1), int32(0), "", `{"code":"ECONNRESET"}`)
	f.Add("Rate limit reached. Please try again in 20s.", "openai.RateLimitError", int32(429), int32(-1), int32(0), "", `{"error":{"code":"rate_limit_exceeded"}}`)
	f.Add("MCP error -32001: Authentication required", "McpError", int32(0), int32(-1), int32(-32001), "30", `{"code":-32001,"data":{"code":"authentication_required"}}`)
	f.Add("rpc error: code = Unavailable desc = x", "", int32(0), int32(14), int32(0), "Sun, 30 Nov 2025 12:01:30 GMT", `[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"3s"}]`)
	f.Add("", "", int32(200), int32(-1), int32(0), "", `{"ok":false,"error":"ratelimited","retry_after":1e308}`)
	f.Add("x", "*url.Error", int32(0), int32(-1), int32(0), "-1", `{"structuredContent":{"reason_code":"","execution":{"status":"awaiting_confirmation"}}}`)
	f.Fuzz(func(t *testing.T, msg, typ string, http, grpc, jsonrpc int32, retryAfter, details string) {
		in := &classify.Input{Error: classify.RawError{Message: msg, Type: typ, RetryAfter: retryAfter}}
		if http != 0 {
			in.Error.HTTPStatus = &http
		}
		if grpc >= 0 {
			in.Error.GRPCCode = &grpc
		}
		if jsonrpc != 0 {
			in.Error.JSONRPCCode = &jsonrpc
		}
		var d any
		if json.Unmarshal([]byte(details), &d) == nil {
			in.Error.Details = d
		} else {
			in.Error.Details = details
		}
		in.Error.Attributes = map[string]string{"db.response.status_code": msg[:min(len(msg), 5)], "error.type": typ}
		o := classify.Baseline(in, now)
		if err := o.Validate(); err != nil {
			t.Fatalf("invalid outcome %+v: %v", o, err)
		}
		if o.RuleID == "" || o.AgentGuidance == "" || len(o.AgentGuidance) >= 300 {
			t.Fatalf("outcome %+v lacks a rule or proper guidance", o)
		}
		if !o.RetryNotBefore.IsZero() && (o.RetryNotBefore.Before(now) || o.RetryNotBefore.Sub(now) > classify.MaxRetryDelay) {
			t.Fatalf("RetryNotBefore %v outside [now, now+max]", o.RetryNotBefore)
		}
		if bad := corpus.CheckSEP(o.Meta("tf_01JX0000000000000000000000")); len(bad) > 0 {
			t.Errorf("the outcome breaks the proposal: %v", bad)
		}
		if again := classify.Baseline(in, now); again != o {
			t.Fatalf("not deterministic: %+v then %+v", o, again)
		}
	})
}

func BenchmarkBaseline(b *testing.B) {
	var inputs []*classify.Input
	for _, c := range allCases() {
		inputs = append(inputs, c.input(b))
	}
	b.ResetTimer()
	i := 0
	for b.Loop() {
		_ = classify.Baseline(inputs[i%len(inputs)], now)
		i++
	}
}

// FuzzParseRetryAfter: any header value yields either no hint or a time in
// [now, now+MaxRetryDelay], the same one every time.
func FuzzParseRetryAfter(f *testing.F) {
	for _, v := range []string{"30", "1.5", "0", "-1", "1e308", "NaN", "Inf", "30s", "1m30s", "-5s", "9223372036854775807",
		"Sun, 30 Nov 2025 12:01:30 GMT", "Sunday, 30-Nov-25 12:01:30 GMT", "Sun Nov 30 12:01:30 2025",
		"Mon, 02 Jan 2006 15:04:05 -0700", " 30 ", "", "\x00", "0x10", "1_000"} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		at, ok := classify.ParseRetryAfter(v, now)
		if !ok {
			if !at.IsZero() {
				t.Fatalf("ParseRetryAfter(%q) = %v, false: a time without a hint", v, at)
			}
			return
		}
		if at.Before(now) || at.Sub(now) > classify.MaxRetryDelay {
			t.Fatalf("ParseRetryAfter(%q) = %v, outside [now, now+%v]", v, at, classify.MaxRetryDelay)
		}
		if again, ok2 := classify.ParseRetryAfter(v, now); !ok2 || !again.Equal(at) {
			t.Fatalf("ParseRetryAfter(%q) not deterministic: %v then %v", v, at, again)
		}
	})
}

// BenchmarkBaselineLongMessage classifies an 8 KiB message that no
// pattern recognises: the cost a caller's long log excerpt adds.
func BenchmarkBaselineLongMessage(b *testing.B) {
	msg := strings.Repeat("step 42 of the nightly export wrote rows to the staging table and moved on; ", 110)[:8192]
	in := &classify.Input{Tool: "export", Error: classify.RawError{Message: msg}}
	for b.Loop() {
		_ = classify.Baseline(in, now)
	}
}
