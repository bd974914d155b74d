package server_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"connectrpc.com/connect/v2"
	"google.golang.org/protobuf/encoding/protojson"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/store"
)

// splitRuleSet is n rules like those of issue 31, item 3: each splits the message and none is
// filed under an indexed value, so that every request reaches all of them.
func splitRuleSet(n int) []*v1.Rule {
	rules := make([]*v1.Rule, n)
	for i := range rules {
		rules[i] = &v1.Rule{Name: fmt.Sprintf("split-%04d", i), Priority: int32(n - i),
			When: fmt.Sprintf(`error.message.split(" ").size() == %d`, 100000+i),
			Then: &v1.RuleOutcome{Class: "governance", Code: "policy_blocked"}}
	}
	return rules
}

// TestRuleBudgetRefusedOnSave: a rule set whose cost on one request could exceed the rule
// budget is refused when it is saved, whole (ReplaceRules) or a rule at a time (CreateRule),
// with invalid_argument naming the rule at which the budget is crossed; nothing is stored.
func TestRuleBudgetRefusedOnSave(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	rules := b.rules(b.allKey)

	_, err := rules.ReplaceRules(ctx, &v1.ReplaceRulesRequest{Rules: splitRuleSet(2000)})
	cerr := requireCode(t, err, connect.CodeInvalidArgument)
	m := regexp.MustCompile(`rules\[(\d+)\] "split-0*(\d+)": the rule set could cost \d+ CEL cost units on one request, over the budget of 1000000 per request`).
		FindStringSubmatch(cerr.Message())
	if m == nil || m[1] != m[2] {
		t.Fatalf("message = %q, want the rule where the budget is crossed named", cerr.Message())
	}
	list, err := rules.ListRules(ctx, &v1.ListRulesRequest{})
	if err != nil || len(list.GetRules()) != 0 {
		t.Fatalf("ListRules = %d rules, %v; want none stored", len(list.GetRules()), err)
	}

	// One at a time: the rules up to the crossing are taken, the next is refused by name.
	var cross int
	_, _ = fmt.Sscan(m[1], &cross)
	set := splitRuleSet(cross + 1)
	for _, r := range set[:cross] {
		if _, err := rules.CreateRule(ctx, &v1.CreateRuleRequest{Rule: r}); err != nil {
			t.Fatalf("CreateRule(%s): %v", r.GetName(), err)
		}
	}
	_, err = rules.CreateRule(ctx, &v1.CreateRuleRequest{Rule: set[cross]})
	cerr = requireCode(t, err, connect.CodeInvalidArgument)
	if want := fmt.Sprintf("rule %q: with it the tenant's rule set could cost", set[cross].GetName()); !strings.Contains(cerr.Message(), want) {
		t.Fatalf("CreateRule message = %q, want %q", cerr.Message(), want)
	}
	// A cheap rule is still taken.
	if _, err := rules.CreateRule(ctx, &v1.CreateRuleRequest{Rule: &v1.Rule{Name: "cheap", Tool: "x",
		Then: &v1.RuleOutcome{Class: "capability", Code: "unsupported"}}}); err != nil {
		t.Fatalf("CreateRule(cheap): %v", err)
	}
}

// TestRuleBudgetSpentAtRunTime: a tenant whose stored set is over the budget (stored before the
// budget existed, here written to the store directly) still gets every Classify answered: the
// evaluation stops where the budget runs out, the baseline decides, the record is stored and its
// ID issued, and Explain says that the rule budget was spent.
func TestRuleBudgetSpentAtRunTime(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	tenant, err := b.store.EnsureTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	set := append(splitRuleSet(600), &v1.Rule{Name: "catch-all", Priority: -1, Tool: "t",
		Then: &v1.RuleOutcome{Class: "governance", Code: "user_action_required"}})
	stored := make([]store.Rule, len(set))
	for i, r := range set {
		spec, err := protojson.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		stored[i] = store.Rule{TenantID: tenant.ID, Name: r.GetName(), Priority: r.GetPriority(), Spec: spec}
	}
	if _, _, err := b.store.ReplaceRules(ctx, tenant.ID, stored, nil); err != nil {
		t.Fatal(err)
	}

	req := &v1.ClassifyRequest{Tool: "t", Error: &v1.RawError{Message: strings.Repeat("word ", 13107), HttpStatus: ptr[int32](503)}}
	res, err := b.classifier(b.allKey).Classify(ctx, req)
	if err != nil {
		t.Fatalf("Classify: %v", err)
	}
	id := res.GetToolFailure().GetCorrelationId()
	if res.GetRuleId() == "catch-all" || !strings.HasPrefix(res.GetRuleId(), "baseline") || id == "" {
		t.Fatalf("Classify = rule %q, ID %q; want the baseline to decide, and an ID", res.GetRuleId(), id)
	}
	got, err := b.failures(b.allKey).GetFailure(ctx, &v1.GetFailureRequest{CorrelationId: id})
	if err != nil || got.GetFailure().GetRuleId() != res.GetRuleId() {
		t.Fatalf("GetFailure(%s) = %v, %v", id, got.GetFailure().GetRuleId(), err)
	}

	ex, err := b.classifier(b.allKey).Explain(ctx, &v1.ExplainRequest{Tool: req.GetTool(), Error: req.GetError()})
	if err != nil {
		t.Fatalf("Explain: %v", err)
	}
	if ex.GetRuleId() != res.GetRuleId() || !strings.Contains(ex.GetReason(), "rule budget") {
		t.Fatalf("Explain = %s, reason %q; want %s and the rule budget named", ex.GetRuleId(), ex.GetReason(), res.GetRuleId())
	}
	found := false
	for _, ev := range ex.GetEvaluations() {
		if strings.Contains(ev.GetDetail(), "rule budget spent") {
			found = true
		}
	}
	if !found {
		t.Fatalf("no evaluation of %d says the rule budget was spent", len(ex.GetEvaluations()))
	}

	// A request that costs the set little is decided by its rules as before.
	res, err = b.classifier(b.allKey).Classify(ctx, &v1.ClassifyRequest{Tool: "t", Error: &v1.RawError{Message: "no"}})
	if err != nil || res.GetRuleId() != "catch-all" {
		t.Fatalf("small request: %v, %v", res.GetRuleId(), err)
	}
}
