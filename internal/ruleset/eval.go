package ruleset

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"strings"
	"time"
	"unicode/utf8"

	"cel.dev/cel-go/common/types"

	"github.com/omcp/toolfailure/internal/classify"
)

// Result is the outcome of one classification.
type Result struct {
	// Outcome is what applies. Its RuleID is the deciding tenant rule's name,
	// or the baseline's rule ID ("baseline/…") when no tenant rule decided.
	classify.Outcome
	// Version is the rule-set version the set was compiled from; records
	// store it next to the RuleID.
	Version int64
	// Tenant reports whether a tenant rule decided, Pack whether a
	// baseline pack rule did (neither: the generic baseline).
	Tenant, Pack bool
	// Shadows are the shadow rules that matched and rank above the decider,
	// in evaluation order: what would have applied instead, had they been
	// enforced. Shadow rules ranked below the decider could not have changed
	// anything and are not evaluated.
	Shadows []ShadowMatch
	// Spent is what the tenant's rules cost on this request, in CEL cost
	// units (see RequestBudget).
	Spent uint64
	// Exhausted reports that the request's rule budget ran out before any
	// enforce rule matched: the tenant's rules from StoppedAt on were not
	// evaluated, and the baseline decided.
	Exhausted bool
	StoppedAt string
}

// ShadowMatch is a shadow rule's would-be outcome.
type ShadowMatch struct {
	RuleID  string
	Outcome classify.Outcome
}

// Classify decides the outcome of one failure: the tenant's rules by
// priority (through the matcher index), then the baseline packs (except
// the rules the tenant replaced by name), then the generic baseline, whose
// documented default applies when nothing matches. It never fails: a
// condition that cannot be evaluated on this request (a missing key in
// error.details, an absent status) simply does not match, and when the
// request's rule budget (RequestBudget) runs out, the baseline decides and
// the Result says so.
func (s *Set) Classify(in *classify.Input, now time.Time) Result {
	return s.ClassifyWith(classify.DefaultEngine(), in, now)
}

// ClassifyContext is Classify for a caller who may go away: when ctx ends
// before a decision, the evaluation of the tenant's rules stops (between
// rules, and inside a condition's loops) and ClassifyContext returns the
// context's error.
func (s *Set) ClassifyContext(ctx context.Context, in *classify.Input, now time.Time) (Result, error) {
	return s.classify(ctx, classify.DefaultEngine(), in, now)
}

// ClassifyWith is Classify with another generic baseline engine (another
// text model), as leave-system-out cross-validation needs.
func (s *Set) ClassifyWith(e *classify.Engine, in *classify.Input, now time.Time) Result {
	res, _ := s.classify(context.Background(), e, in, now)
	return res
}

func (s *Set) classify(ctx context.Context, e *classify.Engine, in *classify.Input, now time.Time) (Result, error) {
	a := newActivation(in)
	res, ok, err := s.metered(ctx, a, in, now)
	if err != nil || ok {
		return res, err
	}
	var skip []bool
	if s != nil {
		skip = s.packSkip
	}
	pa := a
	if len(in.Error.Message) > MaxPackMessage {
		cut := *in
		cut.Error.Message = truncateUTF8(in.Error.Message, MaxPackMessage)
		pa = newActivation(&cut)
	}
	// A firewall's block page and a runtime's report of a bug outrank the
	// packs' reading of their words (classify.OutranksPacks). That is asked
	// only when a pack matched: otherwise the engine, which reads both
	// itself, decides anyway.
	if o, ok := packs().set.first(pa, in, now, skip); ok && !classify.OutranksPacks(in) {
		if o.Retryable && e.DoubtsRetry(in, now) {
			// A pack's transient phrase in a message the model reads as
			// hardly transient: reliability still, but no automatic retry.
			o = classify.Unproven(o)
		}
		res.Outcome, res.Pack = o, true
		return res, nil
	}
	res.Outcome = e.Classify(in, now)
	return res, nil
}

// metered is match within the request's rule budget, which it reports in
// the Result; err is the context's error when the caller went away first.
// The activation is left without a meter: the baseline packs that may run
// next are the service's own, not charged to the tenant.
func (s *Set) metered(ctx context.Context, a *activation, in *classify.Input, now time.Time) (res Result, ok bool, err error) {
	if s.Len() == 0 {
		res, ok = s.match(a, in, now)
		return res, ok, nil
	}
	m := a.startMeter(ctx, RequestBudget)
	res, ok = s.match(a, in, now)
	m.close()
	a.meter = nil
	res.Spent = m.spent()
	if err := m.err(); err != nil {
		return res, false, err
	}
	if m.exhausted && !ok {
		res.Exhausted, res.StoppedAt = true, m.at
	}
	return res, ok, nil
}

// MaxPackMessage is how much of a message the baseline packs read: the
// words that say what an error is come first, and a pack's many patterns
// must not each scan a 64 KiB stack trace. Tenant rules read the whole
// message.
const MaxPackMessage = 4 << 10

// truncateUTF8 cuts s to at most n bytes, at a rune boundary.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Match evaluates the tenant's rules only, within the rule budget. It
// reports false when no enforce rule matched; the Result then carries only
// the version, any shadow matches and the budget's account, and the caller
// falls back to the baseline (Classify does).
func (s *Set) Match(in *classify.Input, now time.Time) (Result, bool) {
	res, ok, _ := s.metered(context.Background(), newActivation(in), in, now)
	return res, ok
}

func (s *Set) match(a *activation, in *classify.Input, now time.Time) (Result, bool) {
	if s == nil || len(s.rules) == 0 {
		return Result{Version: s.Version()}, false
	}
	m := a.meter
	var c candidates
	s.idx.candidates(a, &c)
	var shadows []ShadowMatch
	for i := c.next(); i >= 0; i = c.next() {
		r := s.rules[i]
		if m != nil {
			if m.stopped() {
				break
			}
			m.at = r.Name
		}
		if r.detailKey != "" && lacksDetail(a.err.Details, r.detailKey) || !a.messageMatches(s, i) || !a.guardHolds(s, i) {
			continue
		}
		if ok, _, _ := r.match(a, true); !ok {
			continue
		}
		o := r.outcome(in, now)
		if r.mode == Shadow {
			shadows = append(shadows, ShadowMatch{RuleID: r.Name, Outcome: o})
			continue
		}
		return Result{Outcome: o, Version: s.version, Tenant: true, Shadows: shadows}, true
	}
	return Result{Version: s.version, Shadows: shadows}, false
}

// first returns the outcome of the first enforce rule that matches,
// skipping the positions marked in skip: the baseline packs' evaluation.
//
// The packs' rules nearly all test the message, and few of them hold a
// needle that is in it, so the message is scanned first and only the rules
// that the index selects and the scan leaves possible are visited, in
// evaluation order, instead of every selected rule in turn.
func (s *Set) first(a *activation, in *classify.Input, now time.Time, skip []bool) (classify.Outcome, bool) {
	a.scanned(s)
	s.idx.candidateBits(a, a.cands)
	for w, word := range a.cands {
		word &= a.seenRules[w] | s.unfiltered[w]
		for word != 0 {
			i := int32(w<<6 | bits.TrailingZeros64(word))
			word &= word - 1
			r := s.rules[i]
			if skip != nil && skip[i] || r.mode != Enforce || r.detailKey != "" && lacksDetail(a.err.Details, r.detailKey) ||
				!a.messageMatches(s, i) || !a.guardHolds(s, i) {
				continue
			}
			if ok, _, _ := r.match(a, true); ok {
				return r.outcome(in, now), true
			}
		}
	}
	return classify.Outcome{}, false
}

// match evaluates the rule's parts in order. viaIndex skips the part that
// the index has already decided, and messageMatches and a message guard,
// which the caller has evaluated natively (activation.messageMatches and
// guardHolds). On a miss it returns the part that failed and, when
// evaluation stopped on an error rather than false, the error.
func (c *compiled) match(a *activation, viaIndex bool) (bool, *part, error) {
	for k := range c.parts {
		if viaIndex && (k == c.keyPart || k == c.msgPart || k == c.guardPart) {
			continue
		}
		p := &c.parts[k]
		if k == c.msgPart {
			if m := a.meter; m != nil && !m.charge(scanCost(len(a.err.Message))+c.msg.worstCost(len(a.err.Message))) {
				return false, p, errBudgetSpent
			}
			if !c.msg.matchString(a.err.Message) {
				return false, p, nil
			}
			continue
		}
		v, err := a.eval(p.prog)
		if err != nil {
			return false, p, err
		}
		if b, ok := v.(types.Bool); !ok || !bool(b) {
			if !ok {
				return false, p, fmt.Errorf("the condition gave %v, not a bool", v)
			}
			return false, p, nil
		}
	}
	return true, nil, nil
}

func (c *compiled) outcome(in *classify.Input, now time.Time) classify.Outcome {
	o := classify.Outcome{Class: c.Then.Class, Code: c.Then.Code, RuleID: c.Name}
	if c.retryable {
		o.Retryable, o.RetryEvidence = true, c.Name
		switch {
		case c.fromError:
			if t, ok := classify.ParseRetryAfter(in.Error.RetryAfter, now); ok && t.After(now) {
				o.RetryNotBefore = t
			}
		case c.delay > 0:
			o.RetryNotBefore = now.Add(c.delay)
		default:
			// No delay of the rule's own: when the error says when to
			// retry (a Retry-After header first, then the body's fields
			// and its words), that time holds, as it does for the
			// baseline; a vague "try again in a few minutes" in the text
			// never hides the header's time.
			if t, ok := classify.RetryTime(in, now); ok && t.After(now) {
				o.RetryNotBefore = t
			}
		}
	}
	if c.guidance == nil || len(c.guidance.segs) == 0 {
		// No guidance of its own: the baseline's words for this class and
		// code, which never quote the error.
		o.AgentGuidance = classify.Guidance(o, now)
	} else {
		o.AgentGuidance = c.guidance.render(in, &o, now)
	}
	return o
}

// Source values of Evaluation.
const (
	SourceTenant   = "tenant"
	SourcePack     = "pack"
	SourceBaseline = "baseline"
)

// DecidedBy values of Explanation: which kind of signal decided.
const (
	DecidedByTenant    = "tenant"
	DecidedByPack      = "pack"
	DecidedByStructure = "structure"
	DecidedByModel     = "model"
	DecidedByDefault   = "default"
)

// Evaluation is what one rule did with a request, for Explain.
type Evaluation struct {
	RuleID  string
	Source  string // SourceTenant, SourcePack or SourceBaseline
	Mode    Mode
	Matched bool
	// Outcome is what the rule gives when it matches, rendered for this
	// request.
	Outcome classify.Outcome
	// Detail says why it matched or not, in words for the rule author.
	Detail string
}

// Explanation is a dry run: the result Classify gives, and the trail that
// led to it.
type Explanation struct {
	Result
	// Evaluations lists every tenant rule in evaluation order, then the
	// baseline packs' rules, then the generic baseline's rules and its
	// text model (or one entry saying a stage was not reached). Unlike
	// Classify, Explain evaluates every tenant rule, even those ranked
	// below the decider, so that an author sees what each of them would
	// do.
	Evaluations []Evaluation
	// Reason says why the decider won, in one sentence.
	Reason string
	// DecidedBy is the kind of signal that decided (DecidedBy…).
	DecidedBy string
	// Guess is the text model's reading, when the generic baseline was
	// reached.
	Guess *classify.ModelGuess
}

// errBudgetSpent is a rule's evaluation cut short by the rule budget.
var errBudgetSpent = errors.New("the request's rule budget was spent")

// BudgetEvaluationID is the RuleID of the Evaluation by which Explain says
// that the request's rule budget ran out (Result.Exhausted). A rule name
// cannot contain '/', so it names no rule.
const BudgetEvaluationID = "tenant/rule-budget"

// Explain returns what Classify returns, plus an evaluation of every rule.
// It skips the index and evaluates each condition part by part, so it is
// slower than Classify; it exists for rule authors and support engineers.
// A tenant with no rules gets the same trail as any other, minus its own
// rules. The trail has a rule budget of its own, as large as Classify's:
// the rules it cannot afford are listed as not evaluated.
func (s *Set) Explain(in *classify.Input, now time.Time) Explanation {
	ex, _ := s.ExplainContext(context.Background(), in, now)
	return ex
}

// ExplainContext is Explain for a caller who may go away: when ctx ends
// first, it returns the context's error.
func (s *Set) ExplainContext(ctx context.Context, in *classify.Input, now time.Time) (Explanation, error) {
	res, err := s.classify(ctx, classify.DefaultEngine(), in, now)
	ex := Explanation{Result: res}
	if err != nil {
		return ex, err
	}
	a := newActivation(in)
	m := a.startMeter(ctx, RequestBudget)
	defer m.close() // on an early return; closing twice is harmless
	decided := false
	// reached is whether Classify's evaluation reached the rule: not from
	// the rule at which its budget ran out on.
	reached := true
	for _, r := range s.rulesOrNil() {
		if res.Exhausted && r.Name == res.StoppedAt {
			reached = false
		}
		ev := Evaluation{RuleID: r.Name, Source: SourceTenant, Mode: r.mode, Outcome: r.outcome(in, now)}
		var ok bool
		var failed *part
		if !m.stopped() {
			ok, failed, err = r.match(a, false)
		}
		if m.stopped() && !ok {
			if err := m.err(); err != nil {
				return ex, err
			}
			ev.Detail = fmt.Sprintf("not evaluated: this explanation's own rule budget (%d CEL cost units) was spent", RequestBudget)
			ex.Evaluations = append(ex.Evaluations, ev)
			continue
		}
		ev.Matched = ok
		switch {
		case !ok && err != nil:
			ev.Detail = fmt.Sprintf("not matched: %s: %s: %v", failed.field, failed.src, err)
		case !ok:
			ev.Detail = fmt.Sprintf("not matched: %s is false: %s", failed.field, failed.src)
		case !reached:
			ev.Detail = fmt.Sprintf("matched, but the request's rule budget ran out at rule %q before this rule could decide, so the baseline decided", res.StoppedAt)
		case r.mode == Shadow && !decided:
			ev.Detail = "matched in shadow mode: reported, not applied"
		case r.mode == Shadow:
			ev.Detail = fmt.Sprintf("matched in shadow mode, but ranks below %q, which decided", res.RuleID)
		case !decided:
			ev.Detail = "matched: the highest-ranked enforce rule that matched, so it decides"
			decided = true
		default:
			ev.Detail = fmt.Sprintf("matched, but %q ranks higher and decided", res.RuleID)
		}
		ex.Evaluations = append(ex.Evaluations, ev)
	}
	// The baseline packs' trail is the service's own work, outside the budget.
	m.close()
	a.meter = nil
	if res.Exhausted {
		ex.Evaluations = append(ex.Evaluations, Evaluation{RuleID: BudgetEvaluationID, Source: SourceTenant, Mode: Enforce,
			Detail: fmt.Sprintf("rule budget spent: the tenant's rules reached the budget of %d CEL cost units per request at rule %q, "+
				"before any enforce rule matched; the rules from there on were not evaluated, and the baseline decided", RequestBudget, res.StoppedAt)})
	}
	ex.Reason = reason(s, res)
	if res.Tenant {
		// The baseline was not consulted: one line says so, rather than
		// one per baseline rule.
		ex.Evaluations = append(ex.Evaluations, Evaluation{RuleID: "baseline", Source: SourceBaseline, Mode: Enforce,
			Detail: fmt.Sprintf("not reached: tenant rule %q decided", res.RuleID)})
		ex.DecidedBy = DecidedByTenant
		return ex, nil
	}
	pk := packs()
	if len(in.Error.Message) > MaxPackMessage {
		cut := *in
		cut.Error.Message = truncateUTF8(in.Error.Message, MaxPackMessage)
		a = newActivation(&cut)
	}
	for i, r := range pk.set.rules {
		ev := Evaluation{RuleID: r.Name, Source: SourcePack, Mode: r.mode, Outcome: r.outcome(in, now)}
		if s != nil && s.packSkip != nil && s.packSkip[i] {
			ev.Detail = "replaced by the tenant's rule of the same name"
			ex.Evaluations = append(ex.Evaluations, ev)
			continue
		}
		ok, failed, err := r.match(a, false)
		ev.Matched = ok
		switch {
		case !ok && err != nil:
			ev.Detail = fmt.Sprintf("not matched: %s: %v", failed.field, err)
		case !ok:
			ev.Detail = fmt.Sprintf("not matched: %s is false", failed.field)
		case res.Pack && r.Name == res.RuleID && packDoubted(res):
			ev.Detail = "matched: the highest-ranked baseline pack rule that matched, so it decides, but not retryable: the text model doubts that the failure is temporary"
		case res.Pack && r.Name == res.RuleID:
			ev.Detail = "matched: the highest-ranked baseline pack rule that matched, so it decides"
		default:
			ev.Detail = fmt.Sprintf("matched, but %q ranks higher and decided", res.RuleID)
		}
		ex.Evaluations = append(ex.Evaluations, ev)
	}
	if res.Pack {
		ex.Evaluations = append(ex.Evaluations, Evaluation{RuleID: "baseline", Source: SourceBaseline, Mode: Enforce,
			Detail: fmt.Sprintf("not reached: baseline pack rule %q decided", res.RuleID)})
		ex.DecidedBy = DecidedByPack
		return ex, nil
	}
	_, baseline := classify.DefaultEngine().Explain(in, now)
	for _, br := range baseline {
		ev := Evaluation{RuleID: br.ID, Source: SourceBaseline, Mode: Enforce, Outcome: br.Outcome, Matched: br.Matched}
		switch {
		case br.Guess != nil:
			ex.Guess = br.Guess
			what := fmt.Sprintf("the model reads %s/%s with probability %.2f", br.Guess.Class, br.Guess.Code, br.Guess.Probability)
			if br.Matched {
				ev.Detail = "decides: " + what
			} else {
				ev.Detail = "does not decide: " + what
			}
		case br.Matched && br.ID == res.RuleID:
			ev.Detail = "matched: the first matching baseline rule, and the model did not overrule it, so it decides (" + br.Description + ")"
		case br.Matched:
			ev.Detail = fmt.Sprintf("matched, but %s decided (%s)", res.RuleID, br.Description)
		default:
			ev.Detail = "not matched (" + br.Description + ")"
		}
		ex.Evaluations = append(ex.Evaluations, ev)
	}
	switch res.RuleID {
	case classify.DefaultRuleID:
		ex.Evaluations = append(ex.Evaluations, Evaluation{RuleID: res.RuleID, Source: SourceBaseline, Mode: Enforce,
			Matched: true, Outcome: res.Outcome, Detail: "nothing decided: the documented default applies"})
		ex.DecidedBy = DecidedByDefault
	case classify.ModelRuleID:
		ex.DecidedBy = DecidedByModel
	default:
		ex.DecidedBy = DecidedByStructure
	}
	return ex, nil
}

func (s *Set) rulesOrNil() []*compiled {
	if s == nil {
		return nil
	}
	return s.rules
}

// packDoubted reports whether res is a baseline pack rule's transient
// reading that the text model's doubt left without a retry
// (classify.Engine.DoubtsRetry).
func packDoubted(res Result) bool {
	if !res.Pack || res.Outcome.Class != classify.Reliability || res.Outcome.Retryable {
		return false
	}
	pk := packs()
	i, ok := pk.names[res.RuleID]
	return ok && pk.set.rules[i].retryable
}

func reason(s *Set, res Result) string {
	var b strings.Builder
	if res.Tenant {
		var prio int32
		for _, r := range s.rules {
			if r.Name == res.RuleID {
				prio = r.Priority
				break
			}
		}
		fmt.Fprintf(&b, "tenant rule %q (priority %d) is the highest-ranked enforce rule that matched", res.RuleID, prio)
	} else {
		switch n := s.Len(); {
		case res.Exhausted:
			fmt.Fprintf(&b, "the request's rule budget (%d CEL cost units) was spent at tenant rule %q before any of the tenant's %d rules matched in enforce mode",
				RequestBudget, res.StoppedAt, n)
		case n == 0:
			b.WriteString("the tenant has no rules")
		default:
			fmt.Fprintf(&b, "none of the tenant's %d rules matched in enforce mode", n)
		}
		switch {
		case res.Pack:
			fmt.Fprintf(&b, ", so the baseline pack rule %s decided", res.RuleID)
			if packDoubted(res) {
				b.WriteString("; the text model reads the whole message as hardly transient, so the rule's reading is not evidence enough and the call is not retried automatically")
			}
		case res.RuleID == classify.DefaultRuleID:
			b.WriteString(", nor did any baseline rule, and the text model was not confident, so the documented default applies")
		case res.RuleID == classify.ModelRuleID:
			b.WriteString(", nor did any baseline pack rule, so the baseline's text model decided")
		default:
			fmt.Fprintf(&b, ", so the baseline rule %s decided", res.RuleID)
		}
	}
	if len(res.Shadows) > 0 {
		sh := res.Shadows[0]
		fmt.Fprintf(&b, "; shadow rule %q ranks above it and would have given %s/%s", sh.RuleID, sh.Outcome.Class, sh.Outcome.Code)
	}
	return b.String()
}
