package server

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/encoding/protojson"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/internal/fingerprint"
	"github.com/omcp/toolfailure/internal/ruleset"
	"github.com/omcp/toolfailure/store"
)

const (
	// suggestWindow is how far back SuggestRule reads the group's records and the tenant's others.
	suggestWindow = 7 * 24 * time.Hour
	// suggestRecords caps each of the two reads, and suggestBytes their size (store.RecordSize):
	// a group of large records drafts from fewer of them rather than holding them all in memory.
	suggestRecords = 1000
	suggestBytes   = DefaultMaxListBytes
	// suggestPriority ranks a suggestion above the baseline and among ordinary tenant rules.
	suggestPriority = 100
)

// SuggestRule drafts a rule from a group: the narrowest shortcuts that all of the group's records
// share (the tool, its status codes, a regex from the message template, the error type as a CEL
// condition), the class and code that decided most of them, in mode shadow. The draft is compiled
// with package ruleset and run against the group's records (all must match) and the tenant's other
// recent records (the explanation names any other group it would catch). It changes nothing.
func (s *ruleService) SuggestRule(ctx context.Context, req *v1.SuggestRuleRequest) (*v1.SuggestRuleResponse, error) {
	p, err := principal(ctx)
	if err != nil {
		return nil, err
	}
	fp, err := parseFingerprint(req.GetFingerprint(), "fingerprint")
	if err != nil {
		return nil, err
	}
	rule, explanation, err := SuggestRule(ctx, s.groups, p.TenantID, fp, s.now())
	switch {
	case errors.Is(err, store.ErrNotFound):
		// Another tenant's fingerprint answers exactly like an unknown one.
		return nil, notFound("no failures with this fingerprint in the last 7 days")
	case errors.Is(err, errDraft):
		return nil, internal("suggest rule: the draft does not compile", err)
	case err != nil:
		return nil, storeFailed(ctx, "suggest rule", p.TenantID, lookupFailed, err)
	}
	return &v1.SuggestRuleResponse{Rule: ruleset.ToProto(rule), Explanation: explanation}, nil
}

var errDraft = errors.New("draft rule does not compile")

// SuggestRule drafts a rule for the tenant's group fp from its records of the last 7 days (see
// RuleService.SuggestRule), and explains it, one sentence a line. The error wraps
// store.ErrNotFound when the tenant has no such group; the web page's "suggest a rule" uses it too.
func SuggestRule(ctx context.Context, groups GroupStore, tenantID int64, fp string, now time.Time) (ruleset.Rule, string, error) {
	since := now.Add(-suggestWindow)
	g, err := groups.GetGroup(ctx, tenantID, fp, since, now)
	if err != nil {
		return ruleset.Rule{}, "", fmt.Errorf("group %s: %w", fp, err)
	}
	members, err := groups.ListFailures(ctx, tenantID, store.ListQuery{
		Filter: store.Filter{Fingerprint: fp, Since: since, Until: now}, Limit: suggestRecords, MaxBytes: suggestBytes})
	if err != nil {
		return ruleset.Rule{}, "", fmt.Errorf("records of group %s: %w", fp, err)
	}
	recent, err := groups.ListFailures(ctx, tenantID, store.ListQuery{
		Filter: store.Filter{Since: since, Until: now}, Limit: suggestRecords, MaxBytes: suggestBytes})
	if err != nil {
		return ruleset.Rule{}, "", fmt.Errorf("recent records: %w", err)
	}
	rule, why := draftRule(g, members)
	check, err := checkDraft(rule, fp, members, recent, now)
	if err != nil {
		return ruleset.Rule{}, "", fmt.Errorf("%w: %w", errDraft, err)
	}
	why = append(why, check...)
	why = append(why, "Mode shadow: the rule decides nothing yet; records it matches carry its would-be outcome (shadow) until you set mode: enforce.")
	return rule, strings.Join(why, "\n"), nil
}

// draftRule builds the rule and the first lines of its explanation.
func draftRule(g store.Group, members []store.Failure) (ruleset.Rule, []string) {
	sample := store.ErrorFields(g.Sample.Error)
	template := fingerprint.Template(sample.Message)
	r := ruleset.Rule{
		Name:     "suggested-" + g.Fingerprint,
		Priority: suggestPriority,
		Mode:     ruleset.Shadow,
		Tool:     g.Sample.Tool,
	}
	why := []string{fmt.Sprintf("Drafted from %d records of group %s (tool %q) in the last 7 days.", len(members), g.Fingerprint, g.Sample.Tool)}
	switch {
	case strings.Contains(r.Tool, store.NULStandIn):
		// Rules see the name as the caller sent it, with the NUL that the record shows as the
		// stand-in.
		r.Tool = ""
		r.When = "tool.matches(" + strconv.Quote(exactWithNUL(g.Sample.Tool)) + ")"
	case strings.ContainsAny(r.Tool, "*?"):
		// A glob cannot say the name exactly; CEL can.
		r.Tool = ""
		r.When = "tool == " + strconv.Quote(g.Sample.Tool)
	}
	// Every member shares the codes and the type: they are part of the fingerprint.
	if c := sample.HTTPStatus; c != nil {
		r.HTTPStatus = []int32{*c}
		why = append(why, fmt.Sprintf("httpStatus [%d]: the status of every record of the group.", *c))
	}
	if c := sample.GRPCCode; c != nil {
		r.GRPCCode = []int32{*c}
	}
	if c := sample.JSONRPCCode; c != nil {
		r.JSONRPCCode = []int32{*c}
	}
	if sample.Type != "" {
		cond := "error.type == " + strconv.Quote(sample.Type)
		if strings.Contains(sample.Type, store.NULStandIn) {
			cond = "error.type.matches(" + strconv.Quote(exactWithNUL(sample.Type)) + ")"
		}
		if r.When != "" {
			cond = r.When + " && " + cond
		}
		r.When = cond
		why = append(why, fmt.Sprintf("when error.type is %q: the type of every record of the group.", sample.Type))
	}
	// The pattern is drafted from the stored text, where a NUL is the stand-in; the rule is
	// evaluated on the message as the caller sent it, NUL and all. The stand-in can only come
	// from the pattern's quoted literals, so each becomes "either".
	if pat := strings.ReplaceAll(fingerprint.PatternOf(sample.Message), store.NULStandIn, nulOrStandIn); pat != "" && len(pat) <= 1024 {
		r.MessageMatches = pat
		why = append(why, fmt.Sprintf("messageMatches from the template %q: its variable parts (placeholders such as <num>) match any text, the rest literally, case-insensitively.", template))
	}
	if strings.Contains(g.Sample.Tool+sample.Type+sample.Message, store.NULStandIn) {
		why = append(why, "The records hold NUL characters, stored as "+store.NULStandIn+": the draft matches either, so it matches the errors as they are sent.")
	}
	// The outcome that decided most of the group's records; for a group that no rule decided,
	// that is the text model's guess or the documented default, which the author should review.
	type outcome struct{ class, code, rule string }
	counts := map[outcome]int{}
	for _, f := range members {
		counts[outcome{f.Class, f.Code, f.RuleID}]++
	}
	var best outcome
	for o, n := range counts {
		if n > counts[best] || n == counts[best] && o.class+o.code < best.class+best.code {
			best = o
		}
	}
	r.Then = ruleset.Outcome{Class: classify.Class(best.class), Code: best.code}
	if best.rule == classify.ModelRuleID || slices.Contains(store.UnclassifiedRuleIDs, best.rule) {
		if then, line, ok := proposeOutcome(g.Sample); ok {
			r.Then = then
			return r, append(why, line)
		}
	}
	switch {
	case best.rule == classify.ModelRuleID:
		why = append(why, fmt.Sprintf("then %s/%s: what the text model guessed for %d of the %d records; no rule decided them.", best.class, best.code, counts[best], len(members)))
	case slices.Contains(store.UnclassifiedRuleIDs, best.rule):
		why = append(why, fmt.Sprintf("then %s/%s: the documented default, which decided %d of the %d records; no rule knew them, so choose the class and code this error deserves.", best.class, best.code, counts[best], len(members)))
	default:
		why = append(why, fmt.Sprintf("then %s/%s: what rule %q decided for %d of the %d records.", best.class, best.code, best.rule, counts[best], len(members)))
	}
	return r, why
}

// nulOrStandIn is RE2 for where a stored record shows store.NULStandIn: the NUL that the caller
// sent, which is what rules are evaluated on, or the stand-in itself.
const nulOrStandIn = `(?:\x00|` + store.NULStandIn + `)`

// exactWithNUL is an RE2 pattern that matches s whole, with each NUL stand-in as nulOrStandIn.
func exactWithNUL(s string) string {
	parts := strings.Split(s, store.NULStandIn)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return "^" + strings.Join(parts, nulOrStandIn) + "$"
}

// withNUL returns in with each NUL stand-in in the fields a draft uses (tool, error type and
// message) back to the NUL it stood for, as the caller sent them.
func withNUL(in *classify.Input) *classify.Input {
	out := *in
	out.Tool = strings.ReplaceAll(in.Tool, store.NULStandIn, "\x00")
	out.Error.Type = strings.ReplaceAll(in.Error.Type, store.NULStandIn, "\x00")
	out.Error.Message = strings.ReplaceAll(in.Error.Message, store.NULStandIn, "\x00")
	return &out
}

// nearRules is how many of the nearest pack rules an explanation names.
const nearRules = 3

// proposeOutcome proposes a class and code for a group that no rule
// decided, from the pack rules nearest to its sample message (those that
// share a long literal of their own with it) and the text model's guess:
// the nearest pack rule's outcome when the model agrees on its class, or
// when the model has no confident guess; otherwise the model's guess. ok
// is false when neither says anything.
func proposeOutcome(sample store.Failure) (ruleset.Outcome, string, bool) {
	in, err := recordInput(sample)
	if err != nil {
		return ruleset.Outcome{}, "", false
	}
	near := ruleset.NearestPackRules(in.Error.Message, nearRules)
	var guess *classify.ModelGuess
	_, results := classify.Explain(in, sample.CreatedAt)
	for _, rr := range results {
		if rr.Guess != nil {
			guess = rr.Guess
		}
	}
	names := make([]string, len(near))
	for i, n := range near {
		names[i] = fmt.Sprintf("%s (%s/%s, shares %q)", n.Rule.Name, n.Rule.Then.Class, n.Rule.Then.Code, n.Shared)
	}
	switch {
	case len(near) > 0 && (guess == nil || !guess.Confident || guess.Class == near[0].Rule.Then.Class):
		top := near[0].Rule
		line := fmt.Sprintf("then %s/%s: the outcome of pack rule %s, the nearest to this message: it shares %q, though its pattern does not match this wording.", top.Then.Class, top.Then.Code, top.Name, near[0].Shared)
		if guess != nil && guess.Confident {
			line += fmt.Sprintf(" The text model agrees on the class (%s, probability %.2f).", guess.Class, guess.Probability)
		}
		if len(near) > 1 {
			line += " Nearest pack rules: " + strings.Join(names, "; ") + "."
		}
		return top.Then, line, true
	case guess != nil && guess.Confident:
		line := fmt.Sprintf("then %s/%s: the text model's guess (probability %.2f); no rule decided these records.", guess.Class, guess.Code, guess.Probability)
		if len(near) > 0 {
			line += " The nearest pack rules read it otherwise: " + strings.Join(names, "; ") + "; choose between them."
		}
		return ruleset.Outcome{Class: guess.Class, Code: guess.Code}, line, true
	}
	return ruleset.Outcome{}, "", false
}

// checkDraft compiles the draft (as enforce, so that a match decides) and runs it against the
// group's records and the tenant's other recent ones.
func checkDraft(r ruleset.Rule, fp string, members, recent []store.Failure, now time.Time) ([]string, error) {
	r.Mode = ruleset.Enforce
	set, err := ruleset.Compile(0, []ruleset.Rule{r})
	if err != nil {
		return nil, err
	}
	// A record matches when the draft matches it as stored and as the caller sent it: a NUL in
	// its text is stored as the stand-in, and rules are evaluated on the NUL.
	matches := func(f store.Failure) bool {
		in, err := recordInput(f)
		if err != nil {
			return false
		}
		if _, ok := set.Match(in, now); !ok {
			return false
		}
		_, ok := set.Match(withNUL(in), now)
		return ok
	}
	var lines []string
	missed := 0
	for _, f := range members {
		if !matches(f) {
			missed++
		}
	}
	if missed == 0 {
		lines = append(lines, fmt.Sprintf("Checked: it matches all %d records of the group.", len(members)))
	} else {
		lines = append(lines, fmt.Sprintf("Checked: it misses %d of the %d records of the group; widen messageMatches before relying on it.", missed, len(members)))
	}
	others := map[string]int{}
	checked := 0
	for _, f := range recent {
		if f.Fingerprint == fp {
			continue
		}
		checked++
		if matches(f) {
			others[f.Fingerprint]++
		}
	}
	if len(others) == 0 {
		lines = append(lines, fmt.Sprintf("It matches none of the tenant's %d other recent records.", checked))
	} else {
		fps := slices.Sorted(func(yield func(string) bool) {
			for k := range others {
				if !yield(k) {
					return
				}
			}
		})
		parts := make([]string, len(fps))
		for i, k := range fps {
			parts[i] = fmt.Sprintf("%s (%d)", k, others[k])
		}
		lines = append(lines, fmt.Sprintf("It would also match records of other groups: %s; narrow it if they are different problems.", strings.Join(parts, ", ")))
	}
	return lines, nil
}

// recordInput is the classifier's input for a stored record, as Classify built it.
func recordInput(f store.Failure) (*classify.Input, error) {
	e := &v1.RawError{}
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(f.Error, e); err != nil {
		return nil, err
	}
	return ClassifyInput(&v1.ClassifyRequest{Tool: f.Tool, Server: f.Server, Error: e}), nil
}
