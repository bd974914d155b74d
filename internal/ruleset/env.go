package ruleset

import (
	"errors"
	"sync"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/ext"
	"cel.dev/cel-go/interpreter"

	"github.com/omcp/toolfailure/internal/classify"
)

// The CEL object types of the request. They are not protobuf messages: the
// rule author's field names are the API's JSON names (error.httpStatus, not
// error.http_status), and the values are read straight from the
// classify.Input that the service already holds, with no conversion per
// request. A custom type provider tells the checker the field types, so a
// condition such as error.httpStatus == "503" is refused when it is
// compiled, not discovered to be always false in production.
const (
	errorTypeName       = "toolfailure.rules.Error"
	annotationsTypeName = "toolfailure.rules.ToolAnnotations"
)

// Absent codes are errors, not zero: error.httpStatus >= 500 must not match
// an error that has no HTTP status, and CEL's && and || absorb errors, so
// `has(error.httpStatus) && …` and `error.httpStatus == 503 || …` behave as
// authors expect. Preallocated, because rules ask for absent codes often.
var (
	errNoHTTPStatus  = errors.New("error.httpStatus is absent")
	errNoGRPCCode    = errors.New("error.grpcCode is absent")
	errNoJSONRPCCode = errors.New("error.jsonrpcCode is absent")
)

type field struct {
	t     *types.Type
	isSet func(any) bool
	get   func(any) (any, error)
}

func rawError(v any) *classify.RawError { return v.(*classify.RawError) }

func annotations(v any) *classify.Annotations { return v.(*classify.Annotations) }

func stringField(get func(*classify.RawError) string) field {
	return field{
		t:     types.StringType,
		isSet: func(v any) bool { return get(rawError(v)) != "" },
		get:   func(v any) (any, error) { return types.String(get(rawError(v))), nil },
	}
}

func codeField(get func(*classify.RawError) *int32, absent error) field {
	return field{
		t:     types.IntType,
		isSet: func(v any) bool { return get(rawError(v)) != nil },
		get: func(v any) (any, error) {
			p := get(rawError(v))
			if p == nil {
				return nil, absent
			}
			return types.Int(*p), nil
		},
	}
}

// hintField reads an MCP tool annotation. An absent hint reads as the MCP
// default (destructive and open-world are true by default, the others
// false); has() tells whether the tool declared it.
func hintField(get func(*classify.Annotations) *bool, def bool) field {
	return field{
		t:     types.BoolType,
		isSet: func(v any) bool { return get(annotations(v)) != nil },
		get: func(v any) (any, error) {
			if p := get(annotations(v)); p != nil {
				return types.Bool(*p), nil
			}
			return types.Bool(def), nil
		},
	}
}

var objectFields = map[string]map[string]field{
	errorTypeName: {
		"message":     stringField(func(e *classify.RawError) string { return e.Message }),
		"type":        stringField(func(e *classify.RawError) string { return e.Type }),
		"retryAfter":  stringField(func(e *classify.RawError) string { return e.RetryAfter }),
		"httpStatus":  codeField(func(e *classify.RawError) *int32 { return e.HTTPStatus }, errNoHTTPStatus),
		"grpcCode":    codeField(func(e *classify.RawError) *int32 { return e.GRPCCode }, errNoGRPCCode),
		"jsonrpcCode": codeField(func(e *classify.RawError) *int32 { return e.JSONRPCCode }, errNoJSONRPCCode),
		"details": {
			t:     types.DynType,
			isSet: func(v any) bool { return rawError(v).Details != nil },
			// Returned as decoded JSON: the interpreter selects keys of a
			// map[string]any directly, without converting the document.
			get: func(v any) (any, error) {
				if d := rawError(v).Details; d != nil {
					return d, nil
				}
				return types.NullValue, nil
			},
		},
		"attributes": {
			t:     types.NewMapType(types.StringType, types.StringType),
			isSet: func(v any) bool { return len(rawError(v).Attributes) > 0 },
			get: func(v any) (any, error) {
				if a := rawError(v).Attributes; a != nil {
					return a, nil
				}
				return emptyAttributes, nil
			},
		},
	},
	annotationsTypeName: {
		"idempotentHint":  hintField(func(a *classify.Annotations) *bool { return a.IdempotentHint }, false),
		"readOnlyHint":    hintField(func(a *classify.Annotations) *bool { return a.ReadOnlyHint }, false),
		"destructiveHint": hintField(func(a *classify.Annotations) *bool { return a.DestructiveHint }, true),
		"openWorldHint":   hintField(func(a *classify.Annotations) *bool { return a.OpenWorldHint }, true),
	},
}

var emptyAttributes = map[string]string{}

// provider adds the request's object types to CEL's standard registry.
type provider struct {
	*types.Registry
}

func (p provider) FindStructType(name string) (*types.Type, bool) {
	if _, ok := objectFields[name]; ok {
		return types.NewTypeTypeWithParam(types.NewObjectType(name)), true
	}
	return p.Registry.FindStructType(name)
}

func (p provider) FindStructFieldNames(name string) ([]string, bool) {
	fields, ok := objectFields[name]
	if !ok {
		return p.Registry.FindStructFieldNames(name)
	}
	names := make([]string, 0, len(fields))
	for n := range fields {
		names = append(names, n)
	}
	return names, true
}

func (p provider) FindStructFieldType(structType, fieldName string) (*types.FieldType, bool) {
	fields, ok := objectFields[structType]
	if !ok {
		return p.Registry.FindStructFieldType(structType, fieldName)
	}
	f, ok := fields[fieldName]
	if !ok {
		return nil, false
	}
	return &types.FieldType{Type: f.t, IsSet: f.isSet, GetFrom: f.get}, true
}

// NewValue refuses to build request objects inside a condition: they exist
// only as input.
func (p provider) NewValue(structType string, fields map[string]ref.Val) ref.Val {
	if _, ok := objectFields[structType]; ok {
		return types.NewErr("%s cannot be constructed in a rule", structType)
	}
	return p.Registry.NewValue(structType, fields)
}

// Limits of the CEL environment. A condition is at most maxWhenLen
// characters anyway; the parser limits stop deeply nested input from
// costing more than its length suggests.
const (
	parserRecursionLimit = 64
	regexProgramLimit    = 10_000
	// costLimit bounds the work of one condition on one request, in CEL's
	// cost units (about one per operation, proportional to the size of
	// strings and lists walked). Conditions whose worst case on a request
	// of the largest accepted size exceeds it are refused at compile time;
	// see estimator.
	costLimit = 1_000_000
)

var env = sync.OnceValues(func() (*cel.Env, error) {
	reg, err := types.NewRegistry()
	if err != nil {
		return nil, err
	}
	e, err := cel.NewEnv(
		cel.CustomTypeProvider(provider{reg}),
		cel.Variable("tool", cel.StringType),
		cel.Variable("server", cel.StringType),
		cel.Variable("error", cel.ObjectType(errorTypeName)),
		cel.Variable("toolAnnotations", cel.ObjectType(annotationsTypeName)),
		ext.Strings(),
		cel.ParserRecursionLimit(parserRecursionLimit),
		cel.ParserExpressionSizeLimit(maxWhenLen+maxRegexLen+maxToolGlobLen+2048),
		cel.RegexProgramSizeLimit(regexProgramLimit),
	)
	if err != nil {
		return nil, err
	}
	// cel-go's checker fills its symbol catalog lazily, the first time a check reports an
	// undeclared name, while a check that enters a comprehension's scope copies that field
	// without the lock: two rules compiled at once (two tenants saving rules, parallel tests)
	// race on it. Reporting one undeclared name here fills it before the environment is shared.
	_, _ = e.Compile("undeclared_name_fills_the_catalog")
	return e, nil
})

// activation binds the CEL variables to one request. It is built once per
// classification and shared by every rule evaluated for it.
type activation struct {
	tool, server any // types.String, boxed once
	err          *classify.RawError
	ann          *classify.Annotations
	// seen marks the rules of set whose needles the message holds,
	// filled on first use for that set (needles.go).
	seenSet   *Set
	seen      []uint64 // branches
	seenRules []uint64 // rules
	// cands is scratch for Set.first: one bit per rule of seenSet.
	cands   []uint64
	seenBuf [12]uint64
	// upper is the message upper-cased when it is ASCII, for anchored
	// branches (branch.match); upperDone reports that it was computed.
	upper     string
	upperDone bool
	// meter is the request's rule budget while the tenant's rules are
	// evaluated (budget.go); nil for the baseline packs, which run free.
	meter    *meter
	meterBuf meter
}

// eval evaluates a condition on this request, within the budget when there
// is one.
func (a *activation) eval(p cel.Program) (ref.Val, error) {
	if a.meter != nil {
		return a.meter.eval(p)
	}
	v, _, err := p.Eval(a)
	return v, err
}

// scanned makes sure seen holds set s's needle hits for this message.
func (a *activation) scanned(s *Set) {
	if a.seenSet == s {
		return
	}
	nb, nr := (s.needles.branches+63)/64, (len(s.rules)+63)/64
	var buf []uint64
	if nb+2*nr <= len(a.seenBuf) {
		a.seenBuf = [len(a.seenBuf)]uint64{}
		buf = a.seenBuf[:nb+2*nr]
	} else {
		buf = make([]uint64, nb+2*nr)
	}
	a.seen, a.seenRules, a.cands = buf[:nb], buf[nb:nb+nr], buf[nb+nr:]
	a.seenSet = s
	if a.meter != nil && !s.needles.m.Empty() && !a.meter.charge(scanCost(len(a.err.Message))) {
		return // no budget for the scan: no needle is seen, and evaluation stops
	}
	s.needles.scan(a.err.Message, a.seen, a.seenRules)
}

// messageMatches evaluates rule i's messageMatches on this request: a
// literal branch whose needle was found matches; another branch runs its
// expression when its needles were found or it has none. Rules without
// messageMatches pass.
func (a *activation) messageMatches(s *Set, i int32) bool {
	c := s.rules[i]
	if c.msg == nil {
		return true
	}
	a.scanned(s)
	if !c.msg.open && a.seenRules[i>>6]&(1<<(i&63)) == 0 {
		return false // no branch's needle is in the message
	}
	return a.matches(c.msg, s.needles.base[i])
}

// guardHolds evaluates rule i's message guard on this request; rules
// without one pass. Its patterns' branches follow the rule's
// messageMatches branches in the needle index.
func (a *activation) guardHolds(s *Set, i int32) bool {
	c := s.rules[i]
	if c.guard == nil {
		return true
	}
	a.scanned(s)
	first := s.needles.base[i]
	if c.msg != nil {
		first += int32(len(c.msg.branches))
	}
	return c.guard.eval(func(leaf int) bool {
		id := first
		for _, m := range c.guardLeaves[:leaf] {
			id += int32(len(m.branches))
		}
		return a.matches(c.guardLeaves[leaf], id)
	})
}

// matches evaluates m on the message, its branches having the ids from
// first on in the scan's marks: a literal branch whose needle was found
// matches; another branch runs its expression when its needles were found
// or it has none.
func (a *activation) matches(m *messageMatcher, first int32) bool {
	for j := range m.branches {
		b := &m.branches[j]
		id := first + int32(j)
		hit := a.seen[id>>6]&(1<<(id&63)) != 0
		switch {
		case b.needles != nil && !hit:
		case b.literal:
			return true
		case a.meter != nil && !a.meter.charge(b.cost(len(a.err.Message))):
			return false // the budget is spent: evaluation stops
		case b.match(a.err.Message, a.asciiUpper()):
			return true
		}
	}
	return false
}

func (a *activation) asciiUpper() string {
	if !a.upperDone {
		a.upper, a.upperDone = asciiUpper(a.err.Message), true
	}
	return a.upper
}

func newActivation(in *classify.Input) *activation {
	return &activation{
		tool:   types.String(in.Tool),
		server: types.String(in.Server),
		err:    &in.Error,
		ann:    &in.Annotations,
	}
}

func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case "tool":
		return a.tool, true
	case "server":
		return a.server, true
	case "error":
		return a.err, true
	case "toolAnnotations":
		return a.ann, true
	}
	return nil, false
}

func (a *activation) Parent() interpreter.Activation { return nil }
