package ruleset

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/cost"

	"github.com/omcp/toolfailure/internal/classify"
)

// Set is a tenant's compiled rule set: every condition parsed, checked and
// planned once, the rules in evaluation order, and the matcher index. It is
// immutable and safe for concurrent use; a change to the rules makes a new
// Set. The nil *Set is valid and holds no rules: only the baseline decides.
type Set struct {
	version int64
	rules   []*compiled // evaluation order: priority descending, then name
	idx     index
	// packSkip marks the baseline pack rules that rules of this set
	// replace (same name); nil when none do.
	packSkip []bool
	// needles finds which rules' messageMatches needles a message holds.
	needles *needleIndex
	// unfiltered marks (one bit per rule) the rules that the needle scan
	// cannot rule out: those without messageMatches, or with a branch that
	// has no needles.
	unfiltered []uint64
	// cost is the set's estimated cost on the most expensive request, and
	// crossAt the first rule (in evaluation order) at which it exceeds
	// RequestBudget, or -1 (budget.go).
	cost    uint64
	crossAt int
}

// compiled is one rule ready to evaluate.
type compiled struct {
	Rule
	// index is the rule's position in the input to Compile.
	index int
	mode  Mode
	// parts are the rule's conjuncts, each its own CEL program: one per
	// shortcut that is set, then When. The rule matches when every part
	// evaluates to true.
	parts []part
	// keys are the index keys the rule offers; buildIndex files the rule
	// under the most selective one, key, and sets keyPart to the part that
	// the key decides on its own (evaluation skips it), or -1.
	keys    []keyCandidate
	key     indexKey
	keyPart int

	// msg evaluates messageMatches natively (needles.go); msgPart is its
	// part, which evaluation through the index skips; -1 without one.
	msg     *messageMatcher
	msgPart int
	// guard evaluates a `when` of message patterns natively (guard.go),
	// its patterns being guardLeaves; guardPart is the part, which
	// evaluation through the index skips; -1 without one.
	guard       *guard
	guardLeaves []*messageMatcher
	guardPart   int
	// detailKey is an error.details key that `when` requires (has(…) is
	// one of its conjuncts), or "" (detailKeyOf).
	detailKey string

	guidance  *template
	retryable bool
	delay     time.Duration
	fromError bool
}

type part struct {
	field string // the rules-file field it came from
	src   string // its CEL source
	prog  cel.Program
	// cost is the part's estimated worst case with each request field at
	// its own largest size (fieldBound), for the set's rule budget.
	cost uint64
}

// Version is the tenant's rule-set version that the set was compiled from.
// Records store it next to the deciding rule.
func (s *Set) Version() int64 {
	if s == nil {
		return 0
	}
	return s.version
}

// Len is the number of rules in the set.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.rules)
}

// Rules returns the rules in evaluation order: priority descending, then name.
func (s *Set) Rules() []Rule {
	if s == nil {
		return nil
	}
	out := make([]Rule, len(s.rules))
	for i, c := range s.rules {
		out[i] = c.Rule
	}
	return out
}

// Compile checks and compiles a tenant's rules. Nothing is partially
// accepted: if any rule is invalid, or the set as a whole could cost more
// than RequestBudget on one request, Compile returns an *InvalidError
// listing the problems and no Set. version is the rule-set version the rules
// belong to (0 when they are not stored, as in an offline test).
func Compile(version int64, rules []Rule) (*Set, error) {
	s, err := CompileStored(version, rules)
	if err != nil {
		return nil, err
	}
	if s.crossAt >= 0 {
		invalid := &InvalidError{}
		invalid.add(budgetProblem(s))
		return nil, invalid
	}
	return s, nil
}

// CompileStored is Compile for rules that were accepted when they were
// stored: every rule is checked as Compile checks it, but the set's cost is
// not held to RequestBudget, so that a set stored under older limits keeps
// classifying; evaluation enforces the budget on each request instead.
func CompileStored(version int64, rules []Rule) (*Set, error) {
	s, err := compileSet(version, rules, costLimit)
	if err != nil {
		return nil, err
	}
	s.packSkip = overriddenPacks(s.rules)
	return s, nil
}

// compileSet is Compile without the link to the baseline packs, which are
// compiled with it.
func compileSet(version int64, rules []Rule, limit uint64) (*Set, error) {
	e, err := env()
	if err != nil {
		return nil, fmt.Errorf("ruleset: build CEL environment: %w", err)
	}
	invalid := &InvalidError{}
	if len(rules) > MaxRules {
		invalid.add(&RuleError{Index: -1, Msg: fmt.Sprintf("%d rules; at most %d are allowed per tenant", len(rules), MaxRules)})
		return nil, invalid
	}
	s := &Set{version: version, rules: make([]*compiled, 0, len(rules))}
	seen := make(map[string]int, len(rules))
	for i := range rules {
		r := rules[i]
		c, problems := compileRule(e, i, r, limit)
		if c != nil {
			c.index = i
		}
		if prev, dup := seen[r.Name]; dup && r.Name != "" {
			problems = append(problems, &RuleError{Index: i, Name: r.Name, Field: "name",
				Msg: fmt.Sprintf("duplicate name: rules[%d] has it too; names are unique per tenant", prev)})
		} else {
			seen[r.Name] = i
		}
		for _, p := range problems {
			invalid.add(p)
		}
		if len(problems) == 0 {
			s.rules = append(s.rules, c)
		}
	}
	if invalid.Total > 0 {
		return nil, invalid
	}
	slices.SortFunc(s.rules, func(a, b *compiled) int {
		if c := cmp.Compare(b.Priority, a.Priority); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	s.idx = buildIndex(s.rules)
	s.needles = buildNeedleIndex(s.rules)
	s.unfiltered = make([]uint64, (len(s.rules)+63)/64)
	for i, r := range s.rules {
		if r.msg == nil || r.msg.open {
			s.unfiltered[i>>6] |= 1 << (i & 63)
		}
	}
	s.cost, s.crossAt = s.estimateCost()
	return s, nil
}

var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
var codePattern = regexp.MustCompile(`^[a-z][a-z0-9_.-]*$`)

func compileRule(e *cel.Env, i int, r Rule, limit uint64) (*compiled, []*RuleError) {
	var problems []*RuleError
	fail := func(field string, line, col int, format string, args ...any) {
		problems = append(problems, &RuleError{Index: i, Name: r.Name, Field: field, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)})
	}

	switch {
	case r.Name == "":
		fail("name", 0, 0, "required")
	case len(r.Name) > maxNameLen:
		fail("name", 0, 0, "longer than %d characters", maxNameLen)
	case !namePattern.MatchString(r.Name):
		fail("name", 0, 0, "%q: use letters, digits, '.', '_' and '-', starting with a letter or digit", r.Name)
	}
	switch r.Mode {
	case "", Enforce, Shadow:
	default:
		fail("mode", 0, 0, "%q: must be enforce or shadow", r.Mode)
	}

	c := &compiled{Rule: r, mode: r.mode(), keyPart: -1, msgPart: -1, guardPart: -1}
	// Shortcuts first: they are cheap, and they are what the index keys on.
	if r.Tool != "" {
		if len(r.Tool) > maxToolGlobLen {
			fail("tool", 0, 0, "longer than %d characters", maxToolGlobLen)
		} else if re, _, exact := globRegexp(r.Tool); exact {
			c.parts = append(c.parts, part{field: "tool", src: "tool == " + celString(r.Tool)})
		} else {
			c.parts = append(c.parts, part{field: "tool", src: "tool.matches(" + celString(re) + ")"})
		}
	}
	codes := func(field, celField string, list []int32, maxItems int, lo, hi int64) {
		if len(list) == 0 {
			return
		}
		if len(list) > maxItems {
			fail(field, 0, 0, "%d codes; at most %d", len(list), maxItems)
			return
		}
		items := make([]string, len(list))
		for k, v := range list {
			if int64(v) < lo || int64(v) > hi {
				fail(field, 0, 0, "%d is not between %d and %d", v, lo, hi)
				return
			}
			items[k] = strconv.Itoa(int(v))
		}
		src := celField + " in [" + strings.Join(items, ", ") + "]"
		if len(items) == 1 {
			src = celField + " == " + items[0]
		}
		c.parts = append(c.parts, part{field: field, src: src})
	}
	codes("httpStatus", "error.httpStatus", r.HTTPStatus, maxStatusItems, 100, 599)
	codes("grpcCode", "error.grpcCode", r.GRPCCode, maxGRPCItems, 0, 16)
	codes("jsonrpcCode", "error.jsonrpcCode", r.JSONRPCCode, maxStatusItems, -1<<31, 1<<31-1)
	if r.MessageMatches != "" {
		if len(r.MessageMatches) > maxRegexLen {
			fail("messageMatches", 0, 0, "longer than %d characters", maxRegexLen)
		} else if _, err := regexp.Compile(r.MessageMatches); err != nil {
			// Go's regexp is RE2: no backreferences or lookaround, and
			// matching time linear in the input, whatever the pattern.
			fail("messageMatches", 0, 0, "%s (regular expressions are RE2: no backreferences or lookaround)",
				strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		} else {
			c.parts = append(c.parts, part{field: "messageMatches", src: "error.message.matches(" + celString(r.MessageMatches) + ")"})
			if m, err := newMessageMatcher(r.MessageMatches); err == nil {
				c.msg, c.msgPart = m, len(c.parts)-1
			}
		}
	}
	if r.When != "" {
		if utf8.RuneCountInString(r.When) > maxWhenLen {
			fail("when", 0, 0, "longer than %d characters", maxWhenLen)
		} else {
			c.parts = append(c.parts, part{field: "when", src: r.When})
		}
	}
	if len(c.parts) == 0 && len(problems) == 0 {
		fail("when", 0, 0, "a rule needs a condition: when, or at least one of tool, httpStatus, grpcCode, jsonrpcCode, messageMatches")
	}
	problems = append(problems, c.compileOutcome(i)...)

	for k := range c.parts {
		if k == c.msgPart {
			// Evaluated natively (needles.go), never by CEL: a compiled
			// copy would only cost memory, which every GC cycle scans.
			continue
		}
		p := &c.parts[k]
		ast, iss := e.Compile(p.src)
		if iss != nil && iss.Err() != nil {
			for _, ce := range iss.Errors() {
				line, col := ce.Location.Line(), ce.Location.Column()+1
				if p.field != "when" || line <= 0 {
					line, col = 0, 0 // generated source: positions would not help
				}
				fail(p.field, line, col, "%s", ce.Message)
			}
			continue
		}
		if t := ast.OutputType(); !t.IsExactType(cel.BoolType) && !t.IsExactType(cel.DynType) {
			fail(p.field, 0, 0, "the condition is of type %s; it must be a bool", t)
			continue
		}
		est, err := e.EstimateCost(ast, sizeBound{})
		if err != nil {
			fail(p.field, 0, 0, "cannot estimate its cost: %v", err)
			continue
		}
		if est.Max > limit {
			fail(p.field, 0, 0, "too expensive: on the largest request accepted it could cost %s units, over the limit of %d; avoid nested loops over error.details and regular expressions built at run time",
				costString(est.Max), limit)
			continue
		}
		if fest, err := e.EstimateCost(ast, fieldBound{}); err == nil {
			p.cost = fest.Max
		} else {
			p.cost = est.Max
		}
		prog, err := newProgram(e, ast)
		if err != nil {
			fail(p.field, 0, 0, "%v", err)
			continue
		}
		p.prog = prog
		if p.field == "when" {
			// The CEL program stays, for Explain, which evaluates every part
			// as written.
			if g, leaves := guardOf(ast.NativeRep().Expr()); g != nil {
				c.guard, c.guardLeaves, c.guardPart = g, leaves, k
			}
			c.detailKey = detailKeyOf(ast.NativeRep().Expr())
		}
		for _, key := range keysOf(ast.NativeRep().Expr()) {
			// A key from a shortcut is exactly that part, so when the index
			// selects the rule by it, evaluation can skip the part. A key
			// from inside `when` is one of its conjuncts only, and a tool
			// prefix decides a glob only when the glob is the prefix and
			// one trailing *.
			decisive := p.field != "when" && (key.dim != dimToolPrefix || r.Tool == key.strs[0]+"*")
			c.keys = append(c.keys, keyCandidate{key: key, part: k, decisive: decisive})
		}
	}
	if len(problems) > 0 {
		return nil, problems
	}
	return c, nil
}

// newProgram plans a condition for evaluation. Its loops look at the
// request's context every interruptEvery iterations (meter), so that a
// caller who leaves stops the work.
func newProgram(e *cel.Env, ast *cel.Ast) (cel.Program, error) {
	return e.Program(ast, cel.EvalOptions(cel.OptOptimize), cel.InterruptCheckFrequency(interruptEvery))
}

func costString(v uint64) string {
	if v == ^uint64(0) {
		return "unbounded"
	}
	return strconv.FormatUint(v, 10)
}

// maxInputSize bounds every string, list and map a condition can reach:
// requests are limited to well under this by the service (error.message to
// 64 KiB, error.details to 256 KiB of JSON).
const maxInputSize = 256 << 10

// sizeBound tells CEL's cost estimator how large the inputs can be, so that
// the estimate is a worst case over every request the service accepts.
type sizeBound struct{}

func (sizeBound) EstimateSize(n cost.AstNode) *cost.SizeEstimate {
	if n.ComputedSize() != nil {
		return nil
	}
	return &cost.SizeEstimate{Min: 0, Max: maxInputSize}
}

func (sizeBound) EstimateCallCost(function, overloadID string, target *cost.AstNode, args []cost.AstNode) *cost.CallEstimate {
	return nil
}

func (c *compiled) compileOutcome(i int) []*RuleError {
	var problems []*RuleError
	fail := func(field string, line, col int, format string, args ...any) {
		problems = append(problems, &RuleError{Index: i, Name: c.Name, Field: field, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)})
	}
	o := c.Then
	if !o.Class.Valid() {
		if o.Class == "" {
			fail("then.class", 0, 0, "required: capability, reliability or governance")
		} else {
			fail("then.class", 0, 0, "%q: must be capability, reliability or governance", o.Class)
		}
	}
	switch {
	case o.Code == "":
		fail("then.code", 0, 0, "required")
	case len(o.Code) > maxCodeLen:
		fail("then.code", 0, 0, "longer than %d characters", maxCodeLen)
	case !codePattern.MatchString(o.Code):
		fail("then.code", 0, 0, "%q: use lowercase letters, digits, '_', '.' and '-', starting with a letter", o.Code)
	default:
		// A baseline code means the same thing everywhere: clients that
		// know the vocabulary must be able to trust the pairing.
		if want, ok := classify.BaselineCodes()[o.Code]; ok && o.Class.Valid() && want != o.Class {
			fail("then.code", 0, 0, "%s is a baseline code of class %s, not %s", o.Code, want, o.Class)
		}
	}
	c.retryable = o.Retryable != nil && *o.Retryable
	if c.retryable && o.Class.Valid() && o.Class != classify.Reliability {
		fail("then.retryable", 0, 0, "only class reliability may be retryable (this rule's class is %s); clients never retry %s failures automatically", o.Class, o.Class)
	}
	switch {
	case o.RetryAfter == "":
	case !c.retryable:
		fail("then.retryAfter", 0, 0, "only allowed with retryable: true")
	case o.RetryAfter == RetryAfterFromError:
		c.fromError = true
	default:
		d, err := time.ParseDuration(o.RetryAfter)
		switch {
		case err != nil:
			fail("then.retryAfter", 0, 0, "%q: want a duration such as 30s or 2m, or %s", o.RetryAfter, RetryAfterFromError)
		case d <= 0 || d > maxRetryDelay*time.Second:
			fail("then.retryAfter", 0, 0, "%s: must be positive and at most 24h", o.RetryAfter)
		default:
			c.delay = d
		}
	}
	if n := utf8.RuneCountInString(o.AgentGuidance); n > maxGuidanceRunes {
		fail("then.agentGuidance", 0, 0, "%d characters; at most %d: the calling model reads it on every failure", n, maxGuidanceRunes)
	} else if !utf8.ValidString(o.AgentGuidance) {
		fail("then.agentGuidance", 0, 0, "not valid UTF-8")
	} else {
		t, perr := parseTemplate(o.AgentGuidance)
		if perr != nil {
			fail("then.agentGuidance", perr.line, perr.col, "%s", perr.msg)
		}
		c.guidance = t
	}
	return problems
}

// WithVersion returns the set labelled with another version: the service
// compiles a set before storing it, and learns its version only from the
// store.
func (s *Set) WithVersion(version int64) *Set {
	if s == nil {
		return &Set{version: version}
	}
	c := *s
	c.version = version
	return &c
}
