package ruleset_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/internal/ruleset"
)

// splitRules are n rules of the shape that made one Classify of a 64 KiB message cost 1.4 s of
// CPU with 2,000 of them (issue 31, item 3): each splits the message, none is filed under an
// indexed value, so every request reaches all of them.
func splitRules(n int) []ruleset.Rule {
	rules := make([]ruleset.Rule, n)
	for i := range rules {
		rules[i] = ruleset.Rule{Name: fmt.Sprintf("split-%04d", i), Priority: int32(n - i),
			When: fmt.Sprintf(`error.message.split(" ").size() == %d`, 100000+i), Then: gov("policy_blocked")}
	}
	return rules
}

// words is a message of about n bytes of short words, which split makes many strings of.
func words(n int) string {
	return strings.Repeat("word ", n/5)
}

// TestSetOverRuleBudgetIsRefused: a set whose cost on one request could exceed the rule budget
// is refused when it is compiled, with one problem that names the rule, in evaluation order, at
// which the budget is crossed; the rules before that one are accepted.
func TestSetOverRuleBudgetIsRefused(t *testing.T) {
	t.Parallel()
	got := problems(t, splitRules(2000)...)
	re := regexp.MustCompile(`^rules\[(\d+)\] "split-(\d+)": the rule set could cost \d+ CEL cost units on one request, over the budget of 1000000 per request`)
	m := re.FindStringSubmatch(strings.Join(got, "\n"))
	if len(got) != 1 || m == nil || m[1] != strings.TrimLeft(m[2], "0") {
		t.Fatalf("problems = %q, want one naming the rule where the budget is crossed", got)
	}
	cross, _ := strconv.Atoi(m[1])
	if cross < 2 || cross > 100 {
		t.Fatalf("crossed at rule %d", cross)
	}
	compile(t, splitRules(cross)...)
}

// TestRuleBudgetCountsWhatARequestReaches: the set's cost is that of the most expensive request:
// rules filed under different values of one field do not add up (a request has one tool), but
// nested tool prefixes do ("svc_*" and "svc_x*" both reach svc_xx), and so do rules that the
// index cannot skip.
func TestRuleBudgetCountsWhatARequestReaches(t *testing.T) {
	t.Parallel()
	per := compile(t, splitRules(1)...).Cost()
	if per == 0 || per > ruleset.RequestBudget {
		t.Fatalf("one split rule costs %d", per)
	}
	cross := int(ruleset.RequestBudget / per) // the first rule over the budget, from 0
	if got := problems(t, splitRules(cross+1)...); len(got) != 1 || !strings.HasPrefix(got[0], fmt.Sprintf(`rules[%d] `, cross)) {
		t.Fatalf("problems = %q, want rules[%d] named", got, cross)
	}
	if set := compile(t, splitRules(cross)...); set.Cost() > ruleset.RequestBudget {
		t.Fatalf("%d rules: cost %d over the budget", cross, set.Cost())
	}
	perTool := splitRules(2000)
	for i := range perTool {
		perTool[i].Tool = fmt.Sprintf("tool_%d", i)
	}
	if set := compile(t, perTool...); set.Cost() > 2*per {
		t.Fatalf("2,000 rules of 2,000 tools cost %d, more than two of them (%d each)", set.Cost(), per)
	}
	nested := splitRules(cross + 1)
	for i := range nested {
		nested[i].Tool = "svc_" + strings.Repeat("x", i) + "*"
	}
	if got := problems(t, nested...); len(got) != 1 || !strings.Contains(got[0], "over the budget") {
		t.Fatalf("nested tool prefixes: problems = %q", got)
	}
	// CostWith prices one more rule without compiling the others again, as Compile would.
	set := compile(t, splitRules(cross)...)
	cost, at, err := set.CostWith(splitRules(cross + 1)[cross])
	if err != nil || cost <= ruleset.RequestBudget || at != fmt.Sprintf("split-%04d", cross) {
		t.Fatalf("CostWith = %d, %q, %v", cost, at, err)
	}
	if cost, at, err := set.CostWith(ruleset.Rule{Name: "cheap", Tool: "x", Then: gov("policy_blocked")}); err != nil || at != "" || cost > ruleset.RequestBudget {
		t.Fatalf("CostWith(cheap) = %d, %q, %v", cost, at, err)
	}
}

// TestMessagePatternsArePricedPerRegexBranch: messageMatches runs natively; a branch that is a
// set of phrases is decided by the one needle scan and costs nothing of its own, a branch that
// runs a regular expression is priced as CEL prices matches on a 64 KiB message.
func TestMessagePatternsArePricedPerRegexBranch(t *testing.T) {
	t.Parallel()
	phrases := make([]ruleset.Rule, 2000)
	regexes := make([]ruleset.Rule, 2000)
	for i := range phrases {
		phrases[i] = ruleset.Rule{Name: fmt.Sprintf("p%04d", i), MessageMatches: fmt.Sprintf(`(?i)quota %d (exceeded|reached)`, i), Then: gov("policy_blocked")}
		regexes[i] = ruleset.Rule{Name: fmt.Sprintf("r%04d", i), MessageMatches: fmt.Sprintf(`quota.*%d.*exceeded`, i), Then: gov("policy_blocked")}
	}
	if set := compile(t, phrases...); set.Cost() > ruleset.RequestBudget/10 {
		t.Fatalf("2,000 phrase rules cost %d", set.Cost())
	}
	if got := problems(t, regexes...); len(got) != 1 || !strings.Contains(got[0], "over the budget") {
		t.Fatalf("2,000 regular expressions on the message: problems = %q", got)
	}
}

// TestRuleBudgetSpentAtRunTime: a set stored before the budget existed (CompileStored takes it)
// is held to the budget on each request: evaluation stops where the budget runs out, the
// baseline decides, the Result says so, and Explain says so in its trail and its reason.
func TestRuleBudgetSpentAtRunTime(t *testing.T) {
	t.Parallel()
	rules := append(splitRules(2000),
		// Would decide, were it reached: ranked last.
		ruleset.Rule{Name: "catch-all", Priority: -1, Tool: "t", Then: gov("user_action_required")})
	if _, err := ruleset.Compile(0, rules); err == nil {
		t.Fatal("Compile accepted the set")
	}
	set, err := ruleset.CompileStored(4, rules)
	if err != nil {
		t.Fatal(err)
	}
	in := &classify.Input{Tool: "t", Error: classify.RawError{Message: words(64 << 10)}}
	res := set.Classify(in, now)
	if !res.Exhausted || res.Tenant || res.RuleID == "catch-all" || !strings.HasPrefix(res.StoppedAt, "split-") {
		t.Fatalf("result = %+v, want the baseline to decide after the budget ran out", res)
	}
	// The budget is checked as CEL charges: the last operation may overshoot it, by one
	// split of the message at most.
	if res.Spent < ruleset.RequestBudget/2 || res.Spent > ruleset.RequestBudget+ruleset.RequestBudget/10 {
		t.Fatalf("spent %d of a budget of %d", res.Spent, ruleset.RequestBudget)
	}
	if res.Version != 4 {
		t.Fatalf("version %d", res.Version)
	}

	ex := set.Explain(in, now)
	if ex.RuleID != res.RuleID || !ex.Exhausted {
		t.Fatalf("Explain decided %s (exhausted %v), Classify %s", ex.RuleID, ex.Exhausted, res.RuleID)
	}
	if !strings.Contains(ex.Reason, "rule budget") || !strings.Contains(ex.Reason, res.StoppedAt) {
		t.Fatalf("reason = %q", ex.Reason)
	}
	var budget, notEvaluated int
	for _, ev := range ex.Evaluations {
		switch {
		case ev.RuleID == ruleset.BudgetEvaluationID:
			budget++
			if !strings.Contains(ev.Detail, "rule budget spent") {
				t.Errorf("budget entry: %q", ev.Detail)
			}
		case ev.RuleID == "catch-all" && ev.Matched:
			t.Errorf("catch-all: %q, want it not evaluated (the trail's own budget is spent too)", ev.Detail)
		case strings.HasPrefix(ev.Detail, "not evaluated"):
			notEvaluated++
		}
	}
	if budget != 1 || notEvaluated == 0 {
		t.Fatalf("Explain: %d budget entries, %d rules not evaluated", budget, notEvaluated)
	}

	// A message short enough for the baseline packs to read whole: they are evaluated on the
	// same request, outside the tenant's spent budget, in Classify and in Explain's trail.
	short := &classify.Input{Tool: "t", Error: classify.RawError{Message: "quota exceeded " + words(4000)}}
	ex = set.Explain(short, now)
	if !ex.Exhausted {
		t.Fatalf("4 KB message: budget not spent (%d)", ex.Spent)
	}
	packs := 0
	for _, ev := range ex.Evaluations {
		if ev.Source != ruleset.SourcePack {
			continue
		}
		packs++
		if strings.Contains(ev.Detail, "cost limit") || strings.Contains(ev.Detail, "budget") {
			t.Fatalf("pack rule %s charged to the tenant's budget: %s", ev.RuleID, ev.Detail)
		}
	}
	if packs == 0 {
		t.Fatal("no pack rule in the trail")
	}

	// A message as small as most leaves every rule within the budget.
	small := set.Classify(&classify.Input{Tool: "t", Error: classify.RawError{Message: "connection reset"}}, now)
	if small.Exhausted || small.RuleID != "catch-all" {
		t.Fatalf("small message: %+v", small)
	}
}

// TestRuleBudgetHoldsOnInputsLargerThanTheService: a set within the budget on the largest
// request the service accepts can still meet a larger input offline (rules test, bench); the
// budget holds there too. The set compiles with Compile, before and after the budget existed.
func TestRuleBudgetHoldsOnInputsLargerThanTheService(t *testing.T) {
	t.Parallel()
	set := compile(t, splitRules(10)...)
	in := &classify.Input{Tool: "t", Error: classify.RawError{Message: words(512 << 10)}}
	ex := set.Explain(in, now)
	if !strings.Contains(ex.Reason, "rule budget") {
		t.Fatalf("reason = %q, want the rule budget named", ex.Reason)
	}
	found := false
	for _, ev := range ex.Evaluations {
		found = found || strings.Contains(ev.Detail, "rule budget spent")
	}
	if !found {
		t.Fatalf("no evaluation says the rule budget was spent, in %d", len(ex.Evaluations))
	}
}

// TestClassifyStopsWhenTheCallerLeaves: a cancelled context stops the tenant's rules before
// they cost anything, and ClassifyContext and ExplainContext return its error; the budget is
// not what stopped them.
func TestClassifyStopsWhenTheCallerLeaves(t *testing.T) {
	t.Parallel()
	set, err := ruleset.CompileStored(1, splitRules(2000))
	if err != nil {
		t.Fatal(err)
	}
	in := &classify.Input{Tool: "t", Error: classify.RawError{Message: words(64 << 10)}}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	res, err := set.ClassifyContext(ctx, in, now)
	if !errors.Is(err, context.Canceled) || res.Exhausted || res.Spent != 0 {
		t.Fatalf("ClassifyContext = %+v, %v; want context.Canceled having spent nothing", res, err)
	}
	if _, err := set.ExplainContext(ctx, in, now); !errors.Is(err, context.Canceled) {
		t.Fatalf("ExplainContext: %v", err)
	}
	// A live context changes nothing.
	res, err = set.ClassifyContext(t.Context(), &classify.Input{Tool: "t", Error: classify.RawError{HTTPStatus: i32(503)}}, now)
	if err != nil || res.Exhausted {
		t.Fatalf("live context: %+v, %v", res, err)
	}
}
