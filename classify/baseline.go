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

// Baseline classifies a raw tool error with the built-in rules. It is
// deterministic for a given input and now; now only anchors RetryNotBefore.
// A nil input yields Default.
func Baseline(in *Input, now time.Time) Outcome {
	if in == nil {
		return Default(now)
	}
	s := newSignals(in, now)
	for _, r := range baselineRules {
		if k, ok := r.match(s); ok && k != kNone {
			return finish(s, k, r.id, now)
		}
	}
	return finish(s, kUnknown, DefaultRuleID, now)
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
}

// Explain is Baseline that also reports, for every baseline rule, whether
// it matched: a dry run for rule authors.
func Explain(in *Input, now time.Time) (Outcome, []RuleResult) {
	if in == nil {
		return Default(now), nil
	}
	s := newSignals(in, now)
	results := make([]RuleResult, len(baselineRules))
	decided := false
	out := Outcome{}
	for i, r := range baselineRules {
		results[i] = RuleResult{ID: r.id, Description: r.description}
		if k, ok := r.match(s); ok && k != kNone {
			results[i].Matched = true
			results[i].Outcome = finish(s, k, r.id, now)
			if !decided {
				out, decided = results[i].Outcome, true
			}
		}
	}
	if !decided {
		out = finish(s, kUnknown, DefaultRuleID, now)
	}
	return out, results
}

// finish turns a kind into an Outcome: retryability, retry time, guidance.
//
// A reliability failure is retryable when repeating the call is safe: the
// tool says it is idempotent or read-only, or the error shows the request
// never took effect (rate limited, refused connection, DNS failure,
// transaction rolled back). Otherwise the agent is told to check first.
func finish(s *signals, k kind, ruleID string, now time.Time) Outcome {
	info := kindTable[k]
	o := Outcome{Class: info.class, Code: info.code, RuleID: ruleID}
	var wait time.Duration
	if info.class == Reliability {
		a := s.in.Annotations
		// A client-side failure to connect or resolve proves the request
		// never left; the same words in a server's error body do not.
		clientSide := !s.hasHTTP
		notProcessed := info.notProcessed || clientSide && (s.textHas(tRefused) || s.textHas(tDNS))
		o.Retryable = isTrue(a.IdempotentHint) || isTrue(a.ReadOnlyHint) || notProcessed
		if o.Retryable {
			if t, ok := s.retryTime(); ok {
				o.RetryNotBefore = t
				wait = t.Sub(now)
			}
		}
	}
	o.AgentGuidance = guidance(k, o.Retryable, wait)
	return o
}

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
