package classify

import "time"

// RuleInfo describes one baseline rule, for Explain and documentation.
type RuleInfo struct {
	ID, Description string
}

// BaselineRules lists the baseline rules in evaluation order.
func BaselineRules() []RuleInfo {
	out := make([]RuleInfo, len(baselineRules))
	for i, r := range baselineRules {
		out[i] = RuleInfo{ID: r.id, Description: r.description}
	}
	return out
}

// Baseline classifies a raw tool error with the built-in rules and the
// embedded text model (DefaultEngine). It is deterministic for a given
// input and now; now only anchors RetryNotBefore. A nil input yields
// Default.
func Baseline(in *Input, now time.Time) Outcome { return DefaultEngine().Classify(in, now) }

// Explain is Baseline that also reports, for every baseline rule and the
// text model, whether it matched: a dry run for rule authors.
func Explain(in *Input, now time.Time) (Outcome, []RuleResult) {
	return DefaultEngine().Explain(in, now)
}

// trustedRules are the generic rules that decide without consulting the
// text model: explicit vendor shapes, where the error says in a field of
// its own what happened, and the rules that leave-system-out
// cross-validation finds right nearly always (docs/classification.md).
var trustedRules = func() []bool {
	t := make([]bool, len(baselineRules)+1)
	for i := range ruleIndex("baseline/vendor-code") {
		t[i] = true
	}
	// An SMTP reply is the mail server's own statement of whether to
	// retry (RFC 5321): the text does not overrule it.
	for _, id := range []string{"baseline/smtp-reply", "baseline/db-error-code", "baseline/exception-type", "baseline/errno"} {
		t[ruleIndex(id)] = true
	}
	return t
}()

// weakRules are the generic rules that read one weak signal: a status
// code alone, a phrase, an exception type. The text model overrules them
// more readily than the others.
var weakRules = func() []bool {
	w := make([]bool, len(baselineRules))
	for _, id := range []string{"baseline/http-status", "baseline/grpc-status", "baseline/jsonrpc-code",
		"baseline/exception-type", "baseline/message-text", "baseline/exception-type-generic"} {
		w[ruleIndex(id)] = true
	}
	return w
}()

// Classify decides the outcome of one failure. The generic rules read
// the error first; the rules before e.trusted decide on their own. For
// the others, the text model reads the error together with the rule's
// reading and decides when its class probability reaches the threshold;
// below it the rule decides, and without a rule the default.
func (e *Engine) Classify(in *Input, now time.Time) Outcome {
	if in == nil {
		return Default(now)
	}
	s := newSignals(in, now)
	ri, k := firstRule(s)
	if e.trusted[ri] || ri < len(baselineRules) && kindTable[k].class == Reliability && s.hasRetryTime() {
		// A trusted rule, or an error that says when to retry (a structural statement that the
		// text does not overrule, below): the model could not change the outcome.
		return finish(s, k, baselineRules[ri].id, now, e.evidence(s, ri, k, nil, false))
	}
	g, mk, ok := e.guess(s, ri, k)
	if !ok {
		if ri < len(baselineRules) {
			return finish(s, k, baselineRules[ri].id, now, e.evidence(s, ri, k, nil, false))
		}
		return finish(s, kUnknown, DefaultRuleID, now, "")
	}
	byModel := func() Outcome { return finish(s, mk, ModelRuleID, now, e.evidence(s, ri, mk, &g, true)) }
	switch {
	case ri == len(baselineRules):
		if g.Confident {
			return byModel()
		}
		if g.Words >= MinModelWords {
			// Nothing recognises the error: the model's best class is
			// the best guess there is, and with no evidence that the
			// failure is transient it is never retryable.
			return finish(s, mk, DefaultRuleID, now, "")
		}
	case g.Words < MinModelWords:
		// Too little text to overrule anything.
	case kindTable[k].class == Reliability && s.hasRetryTime():
		// The error says when to retry: a structural statement that
		// the text does not overrule.
	case kindTable[mk].class != kindTable[k].class:
		// A weak rule's refusal (permission, credentials, policy)
		// is turned into "retry" only at the general override:
		// retrying a refused call is the costlier mistake.
		weak := (weakRules[ri] || textOnly(s, ri)) && !(kindTable[mk].class == Reliability && kindTable[k].class == Governance)
		if kindTable[mk].class == Reliability && g.Probability < ModelRetryOverride {
			break // a permanent reading becomes "retry" only on strong evidence
		}
		if g.Probability >= e.override || weak && g.Probability >= e.weakOverride {
			return byModel()
		}
	case kindTable[mk].code != kindTable[k].code:
		if (weakRules[ri] || textOnly(s, ri)) && g.CodeProbability >= e.codeOverride {
			return byModel()
		}
	}
	if ri < len(baselineRules) {
		return finish(s, k, baselineRules[ri].id, now, e.evidence(s, ri, k, &g, false))
	}
	return finish(s, kUnknown, DefaultRuleID, now, "")
}

// httpTextRule is the position of baseline/http-status-text.
var httpTextRule = ruleIndex("baseline/http-status-text")

// textOnly reports whether rule ri read the message alone: the status
// part of baseline/http-status-text says nothing on a 2xx (an error body
// sent with success), so there its reading is a phrase's, as weak as
// baseline/message-text's.
func textOnly(s *signals, ri int) bool {
	return ri == httpTextRule && s.hasHTTP && s.http >= 200 && s.http < 300
}

func ruleIndex(id string) int {
	for i, r := range baselineRules {
		if r.id == id {
			return i
		}
	}
	return len(baselineRules)
}

// RuleResult is the verdict of one baseline rule in Explain.
type RuleResult struct {
	ID, Description string
	// Matched reports whether the rule recognised the error. Only the first
	// matching rule decides; later matches show what else the error
	// resembles.
	Matched bool
	// Outcome is what the rule would decide, when Matched.
	Outcome Outcome
	// Guess is the text model's reading, on the model's entry only
	// (ID ModelRuleID); Matched is then Guess.Confident.
	Guess *ModelGuess
}

// Explain is Classify that also reports, for every baseline rule and then
// the text model (which reads the error with the first rule's reading),
// whether it matched. The model's entry is Matched when it decided, and
// carries its guess either way.
func (e *Engine) Explain(in *Input, now time.Time) (Outcome, []RuleResult) {
	if in == nil {
		return Default(now), nil
	}
	out := e.Classify(in, now)
	s := newSignals(in, now)
	ri, rk := firstRule(s)
	results := make([]RuleResult, 0, len(baselineRules)+1)
	for i, r := range baselineRules {
		k, ok := r.match(s)
		rr := RuleResult{ID: r.id, Description: r.description, Matched: ok && k != kNone}
		if rr.Matched {
			rr.Outcome = finish(s, k, r.id, now, e.evidence(s, i, k, nil, false))
		}
		results = append(results, rr)
	}
	if g, _, ok := e.guess(s, ri, rk); ok {
		mr := RuleResult{
			ID:          ModelRuleID,
			Description: "the text model, reading the message, type and body with the first rule's reading; it decides when nothing matched and it is confident, or when it overrules a rule",
			Matched:     out.RuleID == ModelRuleID,
			Guess:       &g,
		}
		if mr.Matched {
			mr.Outcome = out
		}
		results = append(results, mr)
	}
	return out, results
}

// finish turns a kind into an Outcome: retryability, retry time, guidance.
//
// A reliability failure is retryable when something shows it transient
// (evidence, empty when nothing does) and repeating the call is safe: the
// tool says it is idempotent or read-only, or the error shows the request
// never took effect (rate limited, refused connection, DNS failure,
// transaction rolled back). Otherwise the agent is told to check first.
func finish(s *signals, k kind, ruleID string, now time.Time, evidence string) Outcome {
	info := kindTable[k]
	o := Outcome{Class: info.class, Code: info.code, RuleID: ruleID}
	var wait time.Duration
	if info.class == Reliability {
		a := s.in.Annotations
		// A client-side failure to connect or resolve proves the request
		// never left; the same words in a server's error body do not.
		clientSide := !s.hasHTTP
		notProcessed := info.notProcessed || clientSide && (s.textHas(tRefused) || s.textHas(tDNS))
		o.Retryable = evidence != "" && (isTrue(a.IdempotentHint) || isTrue(a.ReadOnlyHint) || notProcessed)
		if o.Retryable {
			o.RetryEvidence = evidence
			if t, ok := s.retryTime(); ok {
				o.RetryNotBefore = t
				wait = t.Sub(now)
			}
		}
	}
	if info.class == Reliability && evidence == "" {
		o.AgentGuidance = unprovenGuidance[k]
	} else {
		o.AgentGuidance = guidance(k, o.Retryable, wait)
	}
	return o
}

// unprovenGuidance is the guidance of a reliability reading that nothing
// shows to be transient: not retried automatically, and said so.
var unprovenGuidance = func() (g [kindCount]string) {
	for k := range g {
		if kindTable[k].class == Reliability {
			g[k] = kindTable[k].advice + " Nothing in the error shows that the failure is temporary, so do not retry automatically: check the call and its result, and report the correlation ID if it keeps failing."
		}
	}
	return g
}()

func isTrue(b *bool) bool { return b != nil && *b }

// Guidance returns the baseline agent guidance for an outcome, for rules
// that set a class and code but no guidance of their own. It never includes
// text from the error.
func Guidance(o Outcome, now time.Time) string {
	var wait time.Duration
	if o.Retryable && o.RetryNotBefore.After(now) {
		wait = o.RetryNotBefore.Sub(now)
	}
	if o.Class == Reliability {
		return guidance(kUnavailable, o.Retryable, wait)
	}
	if o.Code == CodeUserActionRequired {
		// Several kinds share the code (confirm, pay, set up, free
		// space); words that fit them all.
		return "This needs the user to act before it can work. Tell the user what is needed; do not retry automatically."
	}
	for k := kind(1); k < kindCount; k++ {
		if kindTable[k].class == o.Class && kindTable[k].code == o.Code {
			return guidance(k, false, 0)
		}
	}
	switch o.Class {
	case Capability:
		return "This call cannot succeed as made. Change the request or use another tool; do not repeat it unchanged."
	case Governance:
		return "This call was refused for a reason only the user can resolve. Tell the user; do not retry it automatically."
	}
	return ""
}
