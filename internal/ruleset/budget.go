package ruleset

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/cost"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/interpreter"
)

// The rule budget. Each rule's condition is held to costLimit on its own, but a set holds up
// to MaxRules of them, and 2,000 rules that each split a 64 KiB message cost more than a
// second of CPU per request. So a tenant's whole set has a budget per request, RequestBudget,
// in CEL's cost units (about one per operation, proportional to the size of the strings and
// lists walked; roughly 10,000 units per millisecond of CPU for string work):
//
//   - When rules are saved (Compile), the set's cost on the most expensive request it can see
//     is estimated, and a set over the budget is refused, naming the rule, in evaluation order,
//     at which the budget is crossed. The estimate follows evaluation: each rule is priced by
//     its CEL parts' worst case over the largest request the service accepts (field by field:
//     a 256-byte tool name, a 64 KiB message, …), without the part the matcher index decides;
//     message patterns that run natively (messageMatches, a `when` of message patterns) are
//     priced as CEL prices matches, per branch that runs a regular expression (a branch that is
//     a set of phrases is decided by the one needle scan of the message, priced once). And
//     since a request carries one value per indexed field, the rules filed under values of one
//     field count for the most expensive value only, plus every rule the index cannot skip.
//   - At run time (Classify, Explain) every condition of a request shares one CEL cost tracker
//     whose limit is what is left of the budget, and the native patterns draw from it too.
//     When it runs out, the rules from there on are not evaluated, the baseline decides, and the
//     Result says so (Exhausted). A set accepted by Compile never runs out on a request the
//     service accepts; the check at run time bounds sets stored under older limits, inputs
//     larger than the service's (offline tools), and estimation error.
//   - Evaluation honours its context: it stops between rules, and inside a condition's loops,
//     when the caller has gone away.

// RequestBudget is what one request may spend on a tenant's rules, in CEL cost units: as much
// as one condition may cost (costLimit), about a tenth of a second of CPU at most. The baseline
// packs are the service's own and are not charged to it.
const RequestBudget = costLimit

// The largest values of a request's fields, as the service's API accepts them (the .proto's
// buf.validate rules; TestRequestBounds holds them to it). They size the estimate of a rule's
// cost within the set; the per-condition limit (costLimit, sizeBound) keeps its coarser bound.
const (
	maxToolBytes       = 256
	maxServerBytes     = 256
	maxMessageBytes    = 64 << 10
	maxTypeBytes       = 256
	maxRetryAfterBytes = 128
	maxAttributes      = 64
	maxAttrKeyBytes    = 256
	maxAttrValueBytes  = 4096
)

// interruptEvery is how many iterations of a comprehension run between two looks at the
// request's context.
const interruptEvery = 64

// fieldBound is sizeBound with the size of each request field: error.message is at most 64 KiB,
// not 256 KiB like error.details.
type fieldBound struct{}

func (fieldBound) EstimateSize(n cost.AstNode) *cost.SizeEstimate {
	if n.ComputedSize() != nil {
		return nil
	}
	var size uint64 = maxInputSize
	switch p := n.Path(); {
	case len(p) == 1 && p[0] == "tool":
		size = maxToolBytes
	case len(p) == 1 && p[0] == "server":
		size = maxServerBytes
	case len(p) >= 2 && p[0] == "error":
		switch strings.Join(p[1:], ".") {
		case "message":
			size = maxMessageBytes
		case "type":
			size = maxTypeBytes
		case "retryAfter":
			size = maxRetryAfterBytes
		case "attributes":
			size = maxAttributes
		case "attributes.@keys":
			size = maxAttrKeyBytes
		case "attributes.@values":
			size = maxAttrValueBytes
		}
	}
	return &cost.SizeEstimate{Min: 0, Max: size}
}

func (fieldBound) EstimateCallCost(function, overloadID string, target *cost.AstNode, args []cost.AstNode) *cost.CallEstimate {
	return nil
}

// regexCost is what a regular expression of patternLen bytes costs on a message of msgLen
// bytes, priced as CEL prices matches (StringTraversalCostFactor times
// RegexStringLengthCostFactor), rounded up.
func regexCost(msgLen, patternLen int) uint64 {
	return (uint64(msgLen)/10 + 1) * (uint64(patternLen)/4 + 1)
}

// scanCost is what the needle scan of a message costs: one pass, priced as CEL prices
// contains.
func scanCost(msgLen int) uint64 { return uint64(msgLen)/10 + 1 }

// branchCost is what running branch b costs on a message of msgLen bytes: nothing for a set of
// phrases (the needle scan decides it), else its regular expression.
func (b *branch) cost(msgLen int) uint64 {
	if b.literal || b.re == nil {
		return 0
	}
	return regexCost(msgLen, len(b.re.String()))
}

// worstCost is the most m can cost on a message of msgLen bytes: every branch that runs a
// regular expression runs it.
func (m *messageMatcher) worstCost(msgLen int) uint64 {
	var c uint64
	for i := range m.branches {
		c += m.branches[i].cost(msgLen)
	}
	return c
}

// evalCost is the estimated worst-case cost of evaluating rule c through the index on one
// request, without the needle scan: its CEL parts (field by field), except the one the index
// decides, and its native message patterns.
func (c *compiled) evalCost() uint64 {
	var total uint64
	for k := range c.parts {
		switch k {
		case c.keyPart:
		case c.msgPart:
			total = cost.SafeAdd(total, c.msg.worstCost(maxMessageBytes))
		case c.guardPart:
			for _, m := range c.guardLeaves {
				total = cost.SafeAdd(total, m.worstCost(maxMessageBytes))
			}
		default:
			total = cost.SafeAdd(total, c.parts[k].cost)
		}
	}
	return total
}

// estimateCost computes the set's worst-case cost on one request (Set.Cost) and the first rule,
// in evaluation order, at which it exceeds RequestBudget (-1 when it never does).
//
// The rules are added in evaluation order. Rules the index cannot skip count for every
// request. Rules filed under values of one field count per value, and a request reaches the
// rules of one value per field (its tool, its status, …), so each field contributes its most
// expensive value; tool prefixes nest ("send_*" and "send_mail_*" both reach send_mail_x), so
// they contribute the most expensive chain of prefixes. Counting the fields separately bounds
// the cost from above.
func (s *Set) estimateCost() (total uint64, crossAt int) {
	var base uint64
	if scansMessage(s.rules) {
		base = scanCost(maxMessageBytes)
	}
	var always uint64
	var perDim [dimTool + 1]struct {
		strs map[string]uint64
		ints map[int64]uint64
		max  uint64
	}
	// Tool prefixes: every distinct prefix, sorted, so that the prefixes that extend p are
	// the run that starts at p; chain[i] is the cost of the rules filed under prefix i and
	// under every shorter prefix of it.
	var prefixes []string
	for _, r := range s.rules {
		if r.key.dim == dimToolPrefix {
			prefixes = append(prefixes, r.key.strs[0])
		}
	}
	slices.Sort(prefixes)
	prefixes = slices.Compact(prefixes)
	chain := make([]uint64, len(prefixes))
	var prefixMax uint64

	sum := func() uint64 {
		t := cost.SafeAdd(base, always)
		for d := range perDim {
			t = cost.SafeAdd(t, perDim[d].max)
		}
		return cost.SafeAdd(t, prefixMax)
	}
	crossAt = -1
	for i, r := range s.rules {
		c := r.evalCost()
		switch d := r.key.dim; d {
		case dimNone:
			always = cost.SafeAdd(always, c)
		case dimToolPrefix:
			p := r.key.strs[0]
			lo, _ := slices.BinarySearch(prefixes, p)
			for j := lo; j < len(prefixes) && strings.HasPrefix(prefixes[j], p); j++ {
				chain[j] = cost.SafeAdd(chain[j], c)
				prefixMax = max(prefixMax, chain[j])
			}
		default:
			b := &perDim[d]
			for _, v := range r.key.strs {
				if b.strs == nil {
					b.strs = map[string]uint64{}
				}
				b.strs[v] = cost.SafeAdd(b.strs[v], c)
				b.max = max(b.max, b.strs[v])
			}
			for _, v := range r.key.ints {
				if b.ints == nil {
					b.ints = map[int64]uint64{}
				}
				b.ints[v] = cost.SafeAdd(b.ints[v], c)
				b.max = max(b.max, b.ints[v])
			}
		}
		if crossAt < 0 && sum() > RequestBudget {
			crossAt = i
		}
	}
	return sum(), crossAt
}

// scansMessage reports whether some rule has message patterns with needles, for which the
// message is scanned once per request.
func scansMessage(rules []*compiled) bool {
	for _, r := range rules {
		if r.msg != nil && r.msg.hasNeedles() {
			return true
		}
		for _, m := range r.guardLeaves {
			if m.hasNeedles() {
				return true
			}
		}
	}
	return false
}

func (m *messageMatcher) hasNeedles() bool {
	for i := range m.branches {
		if m.branches[i].needles != nil {
			return true
		}
	}
	return false
}

// CostWith is the Cost of the set with rule r added, or put in place of the rule of its name,
// and the name of the rule at which that set would cross RequestBudget ("" when it would not).
// It compiles r alone, and files the rules anew, as Compile would, without compiling the others
// again: the service prices one rule created or updated in a large set with it. An invalid r
// is an *InvalidError, as from Compile.
func (s *Set) CostWith(r Rule) (cost uint64, crossAt string, err error) {
	e, err := env()
	if err != nil {
		return 0, "", fmt.Errorf("ruleset: build CEL environment: %w", err)
	}
	c, problems := compileRule(e, 0, r, costLimit)
	if len(problems) > 0 {
		invalid := &InvalidError{}
		for _, p := range problems {
			invalid.add(p)
		}
		return 0, "", invalid
	}
	rules := make([]*compiled, 0, s.Len()+1)
	for _, old := range s.rulesOrNil() {
		if old.Name != r.Name {
			cp := *old // buildIndex files the copy, not the set's rule
			rules = append(rules, &cp)
		}
	}
	rules = append(rules, c)
	slices.SortFunc(rules, func(a, b *compiled) int {
		if a.Priority != b.Priority {
			if a.Priority > b.Priority {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	t := &Set{rules: rules}
	t.idx = buildIndex(rules)
	cost, at := t.estimateCost()
	if at >= 0 {
		crossAt = rules[at].Name
	}
	return cost, crossAt, nil
}

// Cost is the set's estimated cost on the most expensive request it can see, in CEL cost units
// (see RequestBudget). Compile refuses a set whose cost exceeds the budget; a set compiled by
// CompileStored may exceed it, and then the budget is enforced at run time.
func (s *Set) Cost() uint64 {
	if s == nil {
		return 0
	}
	return s.cost
}

func budgetProblem(s *Set) *RuleError {
	r := s.rules[s.crossAt]
	return &RuleError{Index: r.index, Name: r.Name,
		Msg: fmt.Sprintf("the rule set could cost %s CEL cost units on one request, over the budget of %d per request; "+
			"it is crossed at this rule, in evaluation order (this rule alone could cost %s). Give rules a tool, a code or "+
			"an error type at the top level of the condition, so that a request reaches fewer of them, prefer messageMatches "+
			"phrases to string functions on error.message, or remove rules",
			costString(s.cost), RequestBudget, costString(r.evalCost()))}
}

// trackerProto is a CEL cost tracker configured as the environment's programs configure theirs
// (the cost models of the string extensions included) and with their handler for a spent
// limit: each request's meter clones it. CEL builds one only for a program compiled with cost
// tracking, and hands it to the evaluation's frame; a program is compiled for that once.
var trackerProto = sync.OnceValues(func() (*cost.Tracker, error) {
	e, err := env()
	if err != nil {
		return nil, err
	}
	ast, iss := e.Compile("true")
	if iss != nil && iss.Err() != nil {
		return nil, iss.Err()
	}
	prog, err := e.Program(ast, cel.CostTracking(nil))
	if err != nil {
		return nil, err
	}
	frame, err := interpreter.NewExecutionFrame(map[string]any{})
	if err != nil {
		return nil, err
	}
	defer frame.Close()
	if _, _, err := prog.Eval(frame); err != nil {
		return nil, err
	}
	t := frame.CostTracker()
	if t == nil {
		return nil, errors.New("ruleset: CEL built no cost tracker")
	}
	return t.Clone()
})

// meter is one evaluation's rule budget: the CEL cost tracker that every condition evaluated for
// the request shares (through one execution frame, which also carries the context for CEL's
// interrupt checks), plus what the natively evaluated message patterns cost.
type meter struct {
	ctx    context.Context
	done   <-chan struct{}
	a      *activation
	budget uint64

	frame   *interpreter.ExecutionFrame // made on the first CEL evaluation
	tracker *cost.Tracker               // &tr once frame is made
	tr      cost.Tracker
	native  uint64
	limit   uint64 // the tracker's limit: budget - native

	// exhausted: the budget ran out; cancelled: the context ended. at is the rule being
	// evaluated then.
	exhausted, cancelled bool
	at                   string
	// yielded is what had been spent when evaluation last gave way (see stopped).
	yielded uint64
}

// yieldEvery is how much a request's rules may spend, in cost units (about a fifth of a
// millisecond of CPU), before evaluation gives way between two rules to the other goroutines
// ready to run. A tenant's heavy set then runs in slices that short instead of the runtime's
// ten-millisecond ones, and another tenant's request that became ready meanwhile (its store
// write answered, say) does not wait behind it: the CPU the set takes is bounded by its slots
// (evalSlots), and this keeps it from adding its slices to the other tenants' latency.
const yieldEvery = 2_000

// startMeter gives the activation a meter with budget, held in the activation itself (one
// allocation less per request).
func (a *activation) startMeter(ctx context.Context, budget uint64) *meter {
	a.meterBuf = meter{ctx: ctx, done: ctx.Done(), a: a, budget: budget, limit: budget}
	a.meter = &a.meterBuf
	return a.meter
}

// spent is what the evaluation has cost so far.
func (m *meter) spent() uint64 {
	var c uint64
	if m.tracker != nil {
		c = m.tracker.ActualCost()
	}
	return cost.SafeAdd(c, m.native)
}

// stopped reports whether evaluation must stop: the budget is spent or the caller has gone.
func (m *meter) stopped() bool {
	if m.exhausted || m.cancelled {
		return true
	}
	if m.done != nil {
		select {
		case <-m.done:
			m.cancelled = true
			return true
		default:
		}
	}
	if spent := m.spent(); spent-m.yielded >= yieldEvery {
		m.yielded = spent
		runtime.Gosched()
	}
	return false
}

// charge draws c units for native work about to be done, and reports false (the budget is
// spent, and the work must not be done) when fewer are left.
func (m *meter) charge(c uint64) bool {
	if m.exhausted {
		return false
	}
	if cost.SafeAdd(m.spent(), c) > m.budget {
		m.exhausted = true
		return false
	}
	m.native += c
	m.limit = m.budget - m.native
	return true
}

// eval evaluates a CEL program within the budget. A program that runs out of budget or is
// interrupted returns an error, and the meter records which.
func (m *meter) eval(p cel.Program) (ref.Val, error) {
	if m.frame == nil {
		if err := m.start(); err != nil {
			v, _, err := p.Eval(m.a)
			return v, err
		}
	}
	v, _, err := p.Eval(m.frame)
	if err != nil {
		// Most errors are a condition's own (an absent field): told apart
		// without allocating.
		if ce, ok := err.(interpreter.EvalCancelledError); ok && ce.Cause == interpreter.CostLimitExceeded {
			m.exhausted = true
		} else if m.done != nil && errors.Is(err, interpreter.InterruptError{}) {
			m.cancelled = true
		}
	}
	return v, err
}

func (m *meter) start() error {
	proto, err := trackerProto()
	if err != nil {
		return err
	}
	m.tr = *proto // a clone: the prototype has no cost
	t := &m.tr
	frame, err := interpreter.NewExecutionFrame(m.a)
	if err != nil {
		return err
	}
	if m.done != nil {
		if err := frame.SetContext(m.ctx, interruptEvery); err != nil {
			frame.Close()
			return err
		}
	}
	t.Limit = &m.limit
	frame.SetCostTracker(t)
	m.frame, m.tracker = frame, t
	return nil
}

// close releases the frame. The tracker stays readable.
func (m *meter) close() {
	if m.frame != nil {
		m.frame.Close()
		m.frame = nil
	}
}

// err is the context's error when evaluation stopped because the caller went away.
func (m *meter) err() error {
	if !m.cancelled {
		return nil
	}
	if err := context.Cause(m.ctx); err != nil {
		return err
	}
	return context.Canceled
}
