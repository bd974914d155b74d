package classify

import "time"

// A reliability reading says "this may work later"; it is retryable only
// with positive evidence that the condition is transient. Telling an agent
// to retry a permanent error is the costlier mistake (it repeats a call that
// cannot work, adds load to a failing service and hides the real cause from
// the user), so the evidence rule trades a few transient errors left to the
// agent's judgement for fewer permanent ones retried: docs/classification.md,
// "When a failure is retryable", gives the cost ratio and the measurement.

// retryTier groups the readings by how much they show on their own.
type retryTier uint8

const (
	// tierStatus: a protocol status code that means a transient condition
	// or the server's own failure (429, 500, 502–504, UNAVAILABLE,
	// DEADLINE_EXCEEDED, a serialization failure), with or without its text.
	tierStatus retryTier = iota
	// tierPhrase: a transient condition named in the message's words or a
	// generic I/O exception type (timed out, connection reset, rate limit).
	tierPhrase
	// tierVague: a reading in prose that only says something failed on
	// the other side ("internal error", "unavailable").
	tierVague
	tierCount
)

// DefaultRetryFloors are, per tier, the text model's reliability
// probability under which the tier's reading does not make a failure
// retryable; DefaultRetryModel is the probability the model needs when it
// decided alone. They were chosen with grouped cross-validation
// (trainmodel -sweep-retry): the lowest cost at the ratio of
// docs/classification.md among the settings that keep both retry floors.
var DefaultRetryFloors = [tierCount]float32{tierStatus: 0.2, tierPhrase: 0.1, tierVague: 0.5}

// DefaultRetryModel: see DefaultRetryFloors.
const DefaultRetryModel float32 = 0.8

// DefaultPackRetryFloor is the text model's reliability probability under
// which a baseline pack's transient reading is not retried automatically:
// the phrase tier's floor, since a pack's reading is a phrase too
// ("temporarily", "still pending", "busy", "not responding"). A message
// can hold such a phrase beside the permanent cause ("temporarily locked
// … reset your password", "verification still pending … upload a valid
// ID"); when the model reads the whole message as hardly transient at all,
// the phrase is not evidence enough. The reading stays reliability; only
// the automatic retry goes. Measured on the fresh batches at their frozen
// commits, where the packs meet wording they were not written from
// (docs/classification.md, "When a failure is retryable").
var DefaultPackRetryFloor = DefaultRetryFloors[tierPhrase]

// DoubtsRetry reports whether the text model doubts a transient reading
// that a rule outside the engine (a baseline pack) made of in: the error
// says nothing of when to retry, no status code or trusted generic rule
// reads it as transient, there is enough text for the model, and the
// model's reliability probability is under the engine's pack floor.
func (e *Engine) DoubtsRetry(in *Input, now time.Time) bool {
	if in == nil || e.model == nil || e.packRetryFloor <= 0 {
		return false
	}
	s := newSignals(in, now)
	if s.hasRetryTime() {
		return false
	}
	ri, k := firstRule(s)
	if kindTable[k].class == Reliability && (e.trusted[ri] || statusRules[ri]) {
		return false
	}
	g, _, ok := e.guess(s, ri, k)
	return ok && g.Words >= MinModelWords && g.Reliability < e.packRetryFloor
}

// Unproven returns o, a transient reading, as one that nothing shows to be
// transient: not retryable, and guidance that says so.
func Unproven(o Outcome) Outcome {
	o.Retryable, o.RetryEvidence, o.RetryNotBefore = false, "", time.Time{}
	o.AgentGuidance = unprovenGuidance[kUnavailable]
	return o
}

// Evidence names for RetryEvidence besides the rule IDs.
const (
	EvidenceRetryTime = "retry-time"
)

// statusRules are the generic rules that read a protocol's status code.
var statusRules = func() []bool {
	t := make([]bool, len(baselineRules)+1)
	for _, id := range []string{"baseline/reason-code", "baseline/jsonrpc-data-code", "baseline/slack-error",
		"baseline/http-status-text", "baseline/http-status", "baseline/grpc-status-text", "baseline/grpc-status",
		"baseline/jsonrpc-text", "baseline/jsonrpc-code", "baseline/sqlstate", "baseline/redis-error"} {
		t[ruleIndex(id)] = true
	}
	return t
}()

func tierOf(ri int, k kind) retryTier {
	switch k {
	case kUnknown:
		return tierVague
	case kServer, kUnavailable:
		// A remote's own 500, 503, INTERNAL or UNAVAILABLE is a status the
		// protocol defines as the server's failure: every published retry
		// rule retries it. The same words in prose are vague.
		if statusRules[ri] {
			return tierStatus
		}
		return tierVague
	}
	if statusRules[ri] {
		return tierStatus
	}
	return tierPhrase
}

// evidence returns what shows a reliability reading k (by rule ri, or by
// the model when byModel) to be transient, or "" when nothing does. g is
// the model's guess, nil without a model.
func (e *Engine) evidence(s *signals, ri int, k kind, g *ModelGuess, byModel bool) string {
	if kindTable[k].class != Reliability {
		return ""
	}
	if s.hasRetryTime() {
		return EvidenceRetryTime
	}
	if ri >= len(baselineRules) && !byModel {
		return "" // nothing recognised the error
	}
	if byModel {
		if g != nil && g.Reliability >= e.retryModel {
			return ModelRuleID
		}
		return ""
	}
	if e.trusted[ri] || g == nil || g.Words < MinModelWords {
		// A rule that decides alone, or no text for the model to doubt
		// the reading with: the reading is the evidence.
		return baselineRules[ri].id
	}
	if g.Reliability >= e.retryFloor[tierOf(ri, k)] {
		return baselineRules[ri].id
	}
	return ""
}
