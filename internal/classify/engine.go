package classify

import (
	"strings"
	"sync"
	"time"

	"github.com/omcp/toolfailure/internal/classify/textmodel"
)

// ModelRuleID is the RuleID of outcomes that the text model decided.
const ModelRuleID = "baseline/text-model"

// DefaultModelThreshold is the class probability under which the text
// model's guess is not used and the documented default applies. It was
// chosen with leave-system-out cross-validation (docs/classification.md,
// "The text model"): below it, the model is wrong more often than the
// default is.
const DefaultModelThreshold = 0.4

// MinModelWords is the amount of text (letters of the words of the
// message, type and body that have two letters or more and no digits; a
// CJK character counts two) under which the model's guess is not used: on an empty or opaque error
// it would only repeat its priors, and the documented default says more
// honestly that nothing is known.
const MinModelWords = 5

// The probabilities with which the model overrules a generic rule that
// matched (docs/classification.md, "The text model"): the class of any
// rule but the trusted ones, the class of a weak rule (a status code
// alone, a phrase, an exception type), and the code of a weak rule within
// its class. Like the threshold, they were chosen with leave-system-out
// cross-validation.
const (
	DefaultModelOverride     = 0.8
	DefaultModelWeakOverride = 0.6
	DefaultModelCodeOverride = 0.6
	// ModelRetryOverride is the least class probability with which the
	// model turns a rule's permanent reading into a transient one, weak
	// rule or not: a permanent error told to retry is the costlier
	// mistake, and overrides of that kind made most of the model's share
	// of them in cross-validation.
	ModelRetryOverride = 0.9
)

// Engine is the baseline: the ordered generic rules, with a text model for
// the errors whose structure does not decide. Engines are immutable and
// safe for concurrent use.
type Engine struct {
	model     *textmodel.Model
	threshold float32
	// trusted marks the generic rules that decide without the model
	// (indexed by rule position; the last entry, for no rule, is false).
	trusted []bool
	// override is the class probability with which the model overrules
	// a generic rule that reads the error otherwise.
	override float32
	// weakOverride and codeOverride apply to the weak rules (a status
	// code alone, a phrase, an exception type): the class probability
	// with which the model overrules such a rule's class, and the code
	// probability with which it overrules its code within the class.
	weakOverride, codeOverride float32
	// retryFloor is, for each tier of reading (retryTier), the model's
	// reliability probability under which a reliability reading is not
	// evidence enough to retry; retryModel is the probability the model
	// needs when it decided alone (DefaultRetryFloors).
	retryFloor [tierCount]float32
	retryModel float32
	// packRetryFloor is the model's reliability probability under which
	// a transient reading made outside the engine (a baseline pack's) is
	// doubted and not retried automatically (DefaultPackRetryFloor).
	packRetryFloor float32
	kinds          [textmodel.MaxLabels]kind
	classes        [textmodel.MaxLabels]Class
}

// NewEngine returns the baseline with the given text model (nil: none)
// and class-probability threshold.
func NewEngine(m *textmodel.Model, threshold float32) *Engine {
	e := &Engine{model: m, threshold: threshold, trusted: trustedRules,
		override: DefaultModelOverride, weakOverride: DefaultModelWeakOverride, codeOverride: DefaultModelCodeOverride,
		retryFloor: DefaultRetryFloors, retryModel: DefaultRetryModel, packRetryFloor: DefaultPackRetryFloor}
	if m != nil {
		for i, l := range m.Labels() {
			class, code, _ := strings.Cut(l, "/")
			e.classes[i] = Class(class)
			e.kinds[i] = kindOfCode(Class(class), code)
		}
	}
	return e
}

// kindOfCode is the kind whose class, code and guidance fit a model label.
func kindOfCode(class Class, code string) kind {
	switch code {
	case CodeInvalidInput:
		return kInvalid
	case CodeResourceNotFound:
		return kNotFound
	case CodeCapabilityUnsupported:
		return kUnsupported
	case CodeAuthRequired:
		return kAuth
	case CodePermissionDenied:
		return kPermission
	case CodePolicyBlocked:
		return kPolicy
	case CodeUserActionRequired:
		return kSetup
	case CodeInternalError:
		return kDefect
	}
	if class == Reliability {
		return kUnavailable
	}
	return kUnknown
}

// WithOverrides returns a copy of e with other probabilities for the
// model to overrule a rule: the class of any untrusted rule, the class
// of a weak rule, and the code of a weak rule within its class (see
// DefaultModelOverride). For measuring them with cross-validation.
func (e *Engine) WithOverrides(override, weak, code float32) *Engine {
	c := *e
	c.override, c.weakOverride, c.codeOverride = override, weak, code
	return &c
}

// WithRetryFloors returns a copy of e with other evidence floors for a
// retry (see DefaultRetryFloors). For measuring them with
// cross-validation.
func (e *Engine) WithRetryFloors(floors [tierCount]float32, model float32) *Engine {
	c := *e
	c.retryFloor, c.retryModel = floors, model
	return &c
}

// WithPackRetryFloor returns a copy of e that doubts a pack's transient
// reading under another reliability probability (0: never), for
// measuring it (DefaultPackRetryFloor).
func (e *Engine) WithPackRetryFloor(f float32) *Engine {
	c := *e
	c.packRetryFloor = f
	return &c
}

// WithThreshold returns a copy of e with another class-probability
// threshold for the model to decide alone.
func (e *Engine) WithThreshold(t float32) *Engine {
	c := *e
	c.threshold = t
	return &c
}

var defaultEngine = sync.OnceValue(func() *Engine {
	return NewEngine(textmodel.Default(), DefaultModelThreshold)
})

// DefaultEngine is the engine Baseline uses: the embedded model at the
// default threshold.
func DefaultEngine() *Engine { return defaultEngine() }

// ModelGuess is what the text model made of an error.
type ModelGuess struct {
	Class Class
	Code  string
	// Probability is the model's probability for Class (the sum over the
	// class's codes), calibrated on held-out systems.
	Probability float32
	// CodeProbability is the model's probability for Code alone.
	CodeProbability float32
	// Reliability is the model's probability that the failure is
	// transient (the reliability class's share), whatever its best guess.
	Reliability float32
	// Words is how much text the guess rests on (letters, as
	// MinModelWords counts them); under MinModelWords it never decides.
	Words int
	// Confident reports whether Probability reaches the engine's
	// threshold, so that the guess may decide.
	Confident bool
}

// ModelInput is what the text model reads of in: the raw error's
// message, type, body and status codes as the server gave them, and the
// generic rules' reading of it as hints.
func ModelInput(in *Input) textmodel.Input {
	s := newSignals(in, time.Time{})
	ri, k := firstRule(s)
	return modelInput(s, ri, k)
}

// firstRule returns the position and reading of the first generic rule
// that recognises the error, or len(baselineRules) and kUnknown.
func firstRule(s *signals) (int, kind) {
	for i, r := range baselineRules {
		if k, ok := r.match(s); ok && k != kNone {
			return i, k
		}
	}
	return len(baselineRules), kUnknown
}

func modelInput(s *signals, ri int, k kind) textmodel.Input {
	r := &s.in.Error
	mi := textmodel.Input{
		Message:       r.Message,
		Type:          r.Type,
		Details:       r.Details,
		HasRetryAfter: r.RetryAfter != "",
		// The rule and its reading, and the reading alone: the model
		// learns how far each rule is to be trusted.
		Hints: [2]uint32{uint32(ri+1)<<8 | uint32(k), 1<<16 | uint32(k)},
	}
	if r.HTTPStatus != nil {
		mi.HTTPStatus, mi.HasHTTP = *r.HTTPStatus, true
	}
	if r.GRPCCode != nil {
		mi.GRPCCode, mi.HasGRPC = *r.GRPCCode, true
	}
	if r.JSONRPCCode != nil {
		mi.JSONRPCCode, mi.HasJSONRPC = *r.JSONRPCCode, true
	}
	return mi
}

// guess runs the model on s's input. ok is false without a model.
func (e *Engine) guess(s *signals, ri int, rk kind) (g ModelGuess, k kind, ok bool) {
	if e.model == nil {
		return g, kNone, false
	}
	mi := modelInput(s, ri, rk)
	var p [textmodel.MaxLabels]float32
	n, words := e.model.PredictWords(&mi, &p)
	var classP [3]float32
	classIdx := func(c Class) int {
		switch c {
		case Capability:
			return 0
		case Reliability:
			return 1
		}
		return 2
	}
	for i := range n {
		classP[classIdx(e.classes[i])] += p[i]
	}
	best := 0
	for i := range n {
		ci := classIdx(e.classes[i])
		bi := classIdx(e.classes[best])
		if classP[ci] > classP[bi] || ci == bi && p[i] > p[best] {
			best = i
		}
	}
	k = e.kinds[best]
	info := kindTable[k]
	g = ModelGuess{Class: info.class, Code: info.code, Probability: classP[classIdx(e.classes[best])], CodeProbability: p[best]}
	g.Reliability = classP[1]
	g.Words = words
	g.Confident = g.Probability >= e.threshold && words >= MinModelWords
	return g, k, true
}
