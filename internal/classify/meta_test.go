package classify_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/omcp/toolfailure/internal/classify"
)

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func TestMeta(t *testing.T) {
	t.Parallel()
	rnb := now.Add(30 * time.Second)
	cases := []struct {
		name string
		o    classify.Outcome
		want string
	}{
		{"retryable with time",
			classify.Outcome{Class: classify.Reliability, Code: classify.CodeRetryableTransient, Retryable: true, RetryNotBefore: rnb, AgentGuidance: "Wait 30 s, then retry the same call."},
			`{"agentGuidance":"Wait 30 s, then retry the same call.","class":"reliability","code":"retryable_transient_error","correlationId":"tf_X","retryNotBefore":1764504030000,"retryable":true}`},
		{"retryable without time",
			classify.Outcome{Class: classify.Reliability, Code: classify.CodeRetryableTransient, Retryable: true},
			`{"class":"reliability","code":"retryable_transient_error","correlationId":"tf_X","retryable":true}`},
		{"reliability not retryable drops the time",
			classify.Outcome{Class: classify.Reliability, Code: classify.CodeRetryableTransient, RetryNotBefore: rnb},
			`{"class":"reliability","code":"retryable_transient_error","correlationId":"tf_X","retryable":false}`},
		{"governance has no retryable",
			classify.Outcome{Class: classify.Governance, Code: classify.CodeAuthRequired, Retryable: true, RetryNotBefore: rnb, AgentGuidance: "Ask the user to sign in."},
			`{"agentGuidance":"Ask the user to sign in.","class":"governance","code":"auth_required","correlationId":"tf_X"}`},
		{"capability",
			classify.Outcome{Class: classify.Capability, Code: classify.CodeInvalidInput},
			`{"class":"capability","code":"invalid_input","correlationId":"tf_X"}`},
	}
	for _, c := range cases {
		m := c.o.Meta("tf_X")
		raw, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if string(raw) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, raw, c.want)
		}
		if v, ok := m["retryNotBefore"]; ok {
			if _, isInt := v.(int64); !isInt {
				t.Errorf("%s: retryNotBefore is %T, want int64", c.name, v)
			}
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	bad := []classify.Outcome{
		{Class: "other", Code: "x"},
		{Class: classify.Capability},
		{Class: classify.Governance, Code: classify.CodePolicyBlocked, Retryable: true},
		{Class: classify.Reliability, Code: classify.CodeRetryableTransient, RetryNotBefore: now},
		{Class: classify.Capability, Code: classify.CodeInvalidInput, AgentGuidance: strings.Repeat("x", 500)},
	}
	for _, o := range bad {
		if o.Validate() == nil {
			t.Errorf("Validate(%+v) = nil, want an error", o)
		}
	}
	if err := classify.Default(now).Validate(); err != nil {
		t.Errorf("Default: %v", err)
	}
}

func TestDefault(t *testing.T) {
	t.Parallel()
	d := classify.Default(now)
	if d.Class != classify.Reliability || d.Code != classify.CodeRetryableTransient || d.Retryable || d.RuleID != classify.DefaultRuleID || d.AgentGuidance == "" {
		t.Fatalf("Default = %+v", d)
	}
	if got := classify.Baseline(nil, now); got != d {
		t.Errorf("Baseline(nil) = %+v, want Default", got)
	}
}

func TestClassesAndCodes(t *testing.T) {
	t.Parallel()
	for code, class := range classify.BaselineCodes() {
		if !class.Valid() || code == "" {
			t.Errorf("bad baseline code %q/%q", class, code)
		}
	}
	if classify.Class("Reliability").Valid() || classify.Class("").Valid() {
		t.Error("Valid accepts a class outside the closed set")
	}
	if classify.MetaKey != "io.modelcontextprotocol/toolFailure" {
		t.Errorf("MetaKey = %q", classify.MetaKey)
	}
}

func TestExplain(t *testing.T) {
	t.Parallel()
	in := &classify.Input{Error: classify.RawError{
		Message:    "POST https://api.github.com/repos/a/b/issues: 403 You have exceeded a secondary rate limit.",
		HTTPStatus: i32(403),
		RetryAfter: "60",
	}}
	o, results := classify.Explain(in, now)
	if o != classify.Baseline(in, now) {
		t.Fatalf("Explain outcome %+v differs from Baseline", o)
	}
	rules := classify.BaselineRules()
	if len(results) != len(rules)+1 {
		t.Fatalf("%d results for %d rules and the model", len(results), len(rules))
	}
	if m := results[len(rules)]; m.ID != classify.ModelRuleID || m.Guess == nil || m.Matched {
		t.Errorf("last result %+v, want the model's guess, not deciding", m)
	}
	first := ""
	for i, r := range results[:len(rules)] {
		if r.ID != rules[i].ID || r.Description == "" {
			t.Errorf("result %d is %q, want rule %q with a description", i, r.ID, rules[i].ID)
		}
		if r.Matched && first == "" {
			first = r.ID
			if r.Outcome != o {
				t.Errorf("first matching rule's outcome %+v differs from the decision", r.Outcome)
			}
		}
	}
	if first != o.RuleID || o.RuleID != "baseline/http-status-text" {
		t.Errorf("first match %q, decision %q", first, o.RuleID)
	}
	// The plain status rule also recognises the 403; Explain shows that.
	for _, r := range results {
		if r.ID == "baseline/http-status" && (!r.Matched || r.Outcome.Code != classify.CodePermissionDenied) {
			t.Errorf("http-status result = %+v, want a permission_denied match", r)
		}
	}

	o, results = classify.Explain(&classify.Input{}, now)
	if o.RuleID != classify.DefaultRuleID {
		t.Errorf("empty input decided by %s", o.RuleID)
	}
	for _, r := range results {
		if r.Matched {
			t.Errorf("rule %s matched an empty error", r.ID)
		}
	}
}

func TestRuleIDsStable(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, r := range classify.BaselineRules() {
		if !strings.HasPrefix(r.ID, "baseline/") || seen[r.ID] || r.Description == "" {
			t.Errorf("rule %+v: IDs must be unique, prefixed baseline/, and described", r)
		}
		seen[r.ID] = true
	}
}

func TestGuidance(t *testing.T) {
	t.Parallel()
	for code, class := range classify.BaselineCodes() {
		g := classify.Guidance(classify.Outcome{Class: class, Code: code}, now)
		if g == "" || len(g) >= 300 {
			t.Errorf("Guidance(%s/%s) = %q", class, code, g)
		}
	}
	g := classify.Guidance(classify.Outcome{Class: classify.Reliability, Code: "upstream_flaky", Retryable: true, RetryNotBefore: now.Add(2 * time.Minute)}, now)
	if !strings.Contains(g, "Wait 2 min") {
		t.Errorf("Guidance with a retry time = %q", g)
	}
	if g := classify.Guidance(classify.Outcome{Class: classify.Governance, Code: "custom_hold"}, now); g == "" {
		t.Error("no guidance for a custom governance code")
	}
}

func TestBaselineDeterministic(t *testing.T) {
	t.Parallel()
	for _, c := range allCases() {
		a := classify.Baseline(c.input(t), now)
		b := classify.Baseline(c.input(t), now)
		if a != b {
			t.Errorf("%s: %+v then %+v", c.name, a, b)
		}
	}
}
