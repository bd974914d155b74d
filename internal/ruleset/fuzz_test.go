package ruleset_test

import (
	"errors"
	"testing"
	"time"

	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/internal/ruleset"
)

var fuzzNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// fuzzInputs are what a compiled fuzzed rule set is run against.
func fuzzInputs(msg string) []*classify.Input {
	status := int32(503)
	return []*classify.Input{
		{Tool: "send_email", Error: classify.RawError{Message: msg}},
		{Tool: "x", Error: classify.RawError{Message: msg, HTTPStatus: &status, RetryAfter: "30",
			Details: map[string]any{"structuredContent": map[string]any{"reason_code": msg}}, Attributes: map[string]string{"k": msg}}},
		{Tool: msg, Error: classify.RawError{}},
	}
}

// checkOutcome: whatever the rules, what comes out keeps the proposal.
func checkOutcome(t *testing.T, r ruleset.Result) {
	t.Helper()
	if err := r.Outcome.Validate(); err != nil {
		t.Fatalf("invalid outcome %+v: %v", r.Outcome, err)
	}
}

// FuzzParseFile feeds the rules-file parser and compiler arbitrary bytes:
// a refusal is an *InvalidError (with positions), never a panic, and a file
// that compiles classifies without breaking the proposal.
func FuzzParseFile(f *testing.F) {
	f.Add([]byte("rules: []\n"), "x")
	f.Add([]byte(`rules:
  - name: mail-needs-confirmation
    priority: 100
    mode: enforce
    tool: "send_*"
    httpStatus: [409, 422]
    messageMatches: "(?i)confirm"
    when: 'error.details.structuredContent.reason_code == "explicit_production_confirmation_required"'
    then:
      class: governance
      code: user_action_required
      agentGuidance: "Ask the user to confirm the production send, then call again."
  - name: slow
    when: 'error.httpStatus >= 500 && "k" in error.attributes'
    then: {class: reliability, code: retryable_transient_error, retryable: true, retryAfter: fromError}
`), "please confirm")
	f.Add([]byte("rules:\n  - name: a\n    when: 'error.message.matches(\"(a+)+$\")'\n    then: {class: capability, code: invalid_input}\n"), "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!")
	f.Add([]byte("rules: {a: 1}"), "")
	f.Add([]byte("\xff\xfe"), "")
	f.Add([]byte("rules:\n  - &a {name: x}\n  - *a\n"), "")
	f.Fuzz(func(t *testing.T, data []byte, msg string) {
		file, err := ruleset.ParseFile(data)
		if err != nil {
			var inv *ruleset.InvalidError
			if !errors.As(err, &inv) {
				t.Fatalf("ParseFile error %T %v is not an *InvalidError", err, err)
			}
			return
		}
		set, err := ruleset.Compile(1, file.Rules)
		if err != nil {
			var inv *ruleset.InvalidError
			if !errors.As(err, &inv) {
				t.Fatalf("Compile error %T %v is not an *InvalidError", err, err)
			}
			file.Locate(err)
			return
		}
		for _, in := range fuzzInputs(msg) {
			checkOutcome(t, set.Classify(in, fuzzNow))
			_ = set.Explain(in, fuzzNow)
		}
	})
}

// FuzzRule compiles one rule from fuzzed shortcuts and condition, as
// CreateRule does, and runs it on a fuzzed message.
func FuzzRule(f *testing.F) {
	f.Add("send_*", "(?i)confirm", `error.httpStatus == 409`, int32(409), "confirm the send", "governance", "user_action_required", "")
	f.Add("*", "", `error.details.structuredContent.reason_code == "x"`, int32(0), "x", "capability", "invalid_input", "")
	f.Add("?", "[", `error.message.size() > 3`, int32(-1), "abc", "reliability", "retryable_transient_error", "fromError")
	f.Add("a**b", "(?s).*", `tool.startsWith("a") || toolAnnotations.idempotentHint`, int32(503), "", "reliability", "x", "30s")
	f.Add("", "", `error.attributes["db.response.status_code"] == "40001"`, int32(0), "", "governance", "policy_blocked", "-1s")
	f.Add("", "", `[1,2,3].map(x, [x, x]).size() > 0`, int32(0), "", "capability", "resource_not_found", "")
	f.Fuzz(func(t *testing.T, tool, re, when string, status int32, msg, class, code, retryAfter string) {
		r := ruleset.Rule{
			Name: "fuzz", Tool: tool, MessageMatches: re, When: when,
			Then: ruleset.Outcome{Class: classify.Class(class), Code: code, RetryAfter: retryAfter},
		}
		if status != 0 {
			r.HTTPStatus = []int32{status}
		}
		set, err := ruleset.Compile(1, []ruleset.Rule{r})
		if err != nil {
			var inv *ruleset.InvalidError
			if !errors.As(err, &inv) {
				t.Fatalf("Compile error %T %v is not an *InvalidError", err, err)
			}
			return
		}
		for _, in := range fuzzInputs(msg) {
			checkOutcome(t, set.Classify(in, fuzzNow))
		}
	})
}
