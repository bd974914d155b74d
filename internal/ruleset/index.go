package ruleset

import (
	"regexp"
	"slices"
	"strings"

	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/types"
)

// The matcher index. Most rules test one thing that the request either has
// or has not: a tool name, an HTTP status, a gRPC or JSON-RPC code, an error
// type. Each rule is filed under the one such test that it requires (a
// conjunct of its condition that compares a request field with constants),
// and a classification looks up only the lists for the values the request
// actually carries. Rules that require nothing indexable are evaluated for
// every request. Skipping a rule is always sound: a rule whose required
// conjunct is false (or an error, for an absent field) can never evaluate to
// true, because CEL's && is false or an error as soon as one side is false.

// dim is an indexed request field. When two of a rule's keys are shared by
// equally many rules, the higher dim is preferred: it usually splits rules
// more finely.
type dim uint8

const (
	dimNone dim = iota
	dimToolPrefix
	dimServer
	dimHTTP
	dimGRPC
	dimJSONRPC
	dimType
	dimTool
)

var dimNames = [...]string{
	dimNone:       "",
	dimToolPrefix: "tool prefix",
	dimServer:     "server",
	dimHTTP:       "error.httpStatus",
	dimGRPC:       "error.grpcCode",
	dimJSONRPC:    "error.jsonrpcCode",
	dimType:       "error.type",
	dimTool:       "tool",
}

// indexKey is the values of one field that a rule requires.
type indexKey struct {
	dim  dim
	strs []string // dimTool, dimType, dimServer, dimToolPrefix (one prefix)
	ints []int64  // dimHTTP, dimGRPC, dimJSONRPC
}

// keyCandidate is one key a rule offers, from one of its parts.
type keyCandidate struct {
	key      indexKey
	part     int
	decisive bool // the key alone decides the part
}

// keysOf lists the keys among the top-level conjuncts of a condition.
func keysOf(e ast.Expr) []indexKey {
	var keys []indexKey
	var walk func(ast.Expr)
	walk = func(e ast.Expr) {
		if e.Kind() != ast.CallKind {
			return
		}
		call := e.AsCall()
		if call.FunctionName() == "_&&_" {
			for _, a := range call.Args() {
				walk(a)
			}
			return
		}
		if k, ok := conjunctKey(call); ok {
			keys = append(keys, k)
		}
	}
	walk(e)
	return keys
}

func conjunctKey(call ast.CallExpr) (indexKey, bool) {
	args := call.Args()
	switch call.FunctionName() {
	case "_==_":
		if len(args) != 2 {
			return indexKey{}, false
		}
		for _, pair := range [][2]ast.Expr{{args[0], args[1]}, {args[1], args[0]}} {
			if d := fieldDim(pair[0]); d != dimNone {
				if k, ok := literalKey(d, []ast.Expr{pair[1]}); ok {
					return k, true
				}
			}
		}
	case "@in":
		if len(args) != 2 || args[1].Kind() != ast.ListKind {
			return indexKey{}, false
		}
		list := args[1].AsList()
		if d := fieldDim(args[0]); d != dimNone && list.Size() > 0 && len(list.OptionalIndices()) == 0 {
			return literalKey(d, list.Elements())
		}
	case "matches", "startsWith":
		if !call.IsMemberFunction() || len(args) != 1 || fieldDim(call.Target()) != dimTool ||
			args[0].Kind() != ast.LiteralKind {
			return indexKey{}, false
		}
		s, ok := args[0].AsLiteral().(types.String)
		if !ok {
			return indexKey{}, false
		}
		prefix := string(s)
		if call.FunctionName() == "matches" {
			prefix = regexPrefix(prefix)
		}
		if prefix != "" {
			return indexKey{dim: dimToolPrefix, strs: []string{prefix}}, true
		}
	}
	return indexKey{}, false
}

// regexPrefix is the literal text that every match of an RE2 pattern must
// start the subject with, or "" when there is none. Only a pattern that
// begins with ^ (start of text, no flags before it) pins its match to the
// start of the tool name.
func regexPrefix(pattern string) string {
	if !strings.HasPrefix(pattern, "^") {
		return ""
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return ""
	}
	prefix, _ := re.LiteralPrefix()
	return prefix
}

func fieldDim(e ast.Expr) dim {
	switch e.Kind() {
	case ast.IdentKind:
		switch e.AsIdent() {
		case "tool":
			return dimTool
		case "server":
			return dimServer
		}
	case ast.SelectKind:
		sel := e.AsSelect()
		if sel.IsTestOnly() || sel.Operand().Kind() != ast.IdentKind || sel.Operand().AsIdent() != "error" {
			return dimNone
		}
		switch sel.FieldName() {
		case "type":
			return dimType
		case "httpStatus":
			return dimHTTP
		case "grpcCode":
			return dimGRPC
		case "jsonrpcCode":
			return dimJSONRPC
		}
	}
	return dimNone
}

func literalKey(d dim, elems []ast.Expr) (indexKey, bool) {
	k := indexKey{dim: d}
	for _, el := range elems {
		if el.Kind() != ast.LiteralKind {
			return indexKey{}, false
		}
		switch v := el.AsLiteral().(type) {
		case types.String:
			if d != dimTool && d != dimType && d != dimServer {
				return indexKey{}, false
			}
			k.strs = append(k.strs, string(v))
		case types.Int:
			if d != dimHTTP && d != dimGRPC && d != dimJSONRPC {
				return indexKey{}, false
			}
			k.ints = append(k.ints, int64(v))
		default:
			return indexKey{}, false
		}
	}
	k.strs = compactStrings(k.strs)
	k.ints = compactInts(k.ints)
	return k, true
}

func compactStrings(s []string) []string { slices.Sort(s); return slices.Compact(s) }
func compactInts(s []int64) []int64      { slices.Sort(s); return slices.Compact(s) }

// index holds posting lists of rule positions (in evaluation order, so every
// list is sorted).
type index struct {
	always     []int32
	alwaysBits []uint64 // always, one bit per rule
	tool       map[string][]int32
	typ        map[string][]int32
	server     map[string][]int32
	http       map[int64][]int32
	grpc       map[int64][]int32
	jsonrpc    map[int64][]int32
	toolPrefix map[string][]int32
	prefixLens []int // distinct prefix lengths, ascending
}

// buildIndex files every rule under the key that its fellow rules share
// least. Which field splits a tenant's rules best depends on the rules (one
// tenant keys everything on tools, another on status codes), so the choice
// is made per set: each rule takes the key whose values the fewest rules
// offer, counted over all keys of all rules.
func buildIndex(rules []*compiled) index {
	type slot struct {
		d dim
		s string
		i int64
	}
	slots := func(k indexKey) []slot {
		out := make([]slot, 0, len(k.strs)+len(k.ints))
		for _, v := range k.strs {
			out = append(out, slot{d: k.dim, s: v})
		}
		for _, v := range k.ints {
			out = append(out, slot{d: k.dim, i: v})
		}
		return out
	}
	offered := map[slot]int{}
	for _, c := range rules {
		for _, kc := range c.keys {
			for _, sl := range slots(kc.key) {
				offered[sl]++
			}
		}
	}
	for _, c := range rules {
		c.key, c.keyPart = indexKey{}, -1
		best := -1
		for _, kc := range c.keys {
			n := 0
			for _, sl := range slots(kc.key) {
				n += offered[sl]
			}
			if best < 0 || n < best || (n == best && kc.key.dim > c.key.dim) {
				best = n
				c.key = kc.key
				c.keyPart = -1
				if kc.decisive {
					c.keyPart = kc.part
				}
			}
		}
	}
	// c.keys stay: Set.CostWith files the rules of a set anew, with one more
	// rule, to price it.

	idx := index{}
	addS := func(m *map[string][]int32, keys []string, i int32) {
		if *m == nil {
			*m = map[string][]int32{}
		}
		for _, k := range keys {
			(*m)[k] = append((*m)[k], i)
		}
	}
	addI := func(m *map[int64][]int32, keys []int64, i int32) {
		if *m == nil {
			*m = map[int64][]int32{}
		}
		for _, k := range keys {
			(*m)[k] = append((*m)[k], i)
		}
	}
	for n, c := range rules {
		i := int32(n)
		switch c.key.dim {
		case dimTool:
			addS(&idx.tool, c.key.strs, i)
		case dimType:
			addS(&idx.typ, c.key.strs, i)
		case dimServer:
			addS(&idx.server, c.key.strs, i)
		case dimHTTP:
			addI(&idx.http, c.key.ints, i)
		case dimGRPC:
			addI(&idx.grpc, c.key.ints, i)
		case dimJSONRPC:
			addI(&idx.jsonrpc, c.key.ints, i)
		case dimToolPrefix:
			addS(&idx.toolPrefix, c.key.strs, i)
			if l := len(c.key.strs[0]); !slices.Contains(idx.prefixLens, l) {
				idx.prefixLens = append(idx.prefixLens, l)
			}
		default:
			idx.always = append(idx.always, i)
		}
	}
	idx.alwaysBits = make([]uint64, (len(rules)+63)/64)
	for _, i := range idx.always {
		idx.alwaysBits[i>>6] |= 1 << (i & 63)
	}
	slices.Sort(idx.prefixLens)
	return idx
}

// maxFixedLists is the number of posting lists a request selects besides
// tool prefixes: always, tool, type, server and the three codes.
const maxFixedLists = 7

// candidates gathers the posting lists that apply to the request. The lists
// are merged lazily by next, in evaluation order.
type candidates struct {
	lists [][]int32
	buf   [maxFixedLists + 8][]int32
}

func (idx *index) candidates(a *activation, c *candidates) {
	c.lists = c.buf[:0]
	add := func(l []int32) {
		if len(l) > 0 {
			c.lists = append(c.lists, l)
		}
	}
	add(idx.always)
	idx.keyed(a, add)
}

// candidateBits sets in dst (one bit per rule, zeroed by the caller) the
// rules that candidates would list.
func (idx *index) candidateBits(a *activation, dst []uint64) {
	copy(dst, idx.alwaysBits)
	idx.keyed(a, func(l []int32) {
		for _, i := range l {
			dst[i>>6] |= 1 << (i & 63)
		}
	})
}

// keyed calls add with each posting list that the request's values select,
// always aside.
func (idx *index) keyed(a *activation, add func([]int32)) {
	in := a.err
	tool := string(a.tool.(types.String))
	if idx.tool != nil {
		add(idx.tool[tool])
	}
	if idx.typ != nil {
		add(idx.typ[in.Type])
	}
	if idx.server != nil {
		add(idx.server[string(a.server.(types.String))])
	}
	if idx.http != nil && in.HTTPStatus != nil {
		add(idx.http[int64(*in.HTTPStatus)])
	}
	if idx.grpc != nil && in.GRPCCode != nil {
		add(idx.grpc[int64(*in.GRPCCode)])
	}
	if idx.jsonrpc != nil && in.JSONRPCCode != nil {
		add(idx.jsonrpc[int64(*in.JSONRPCCode)])
	}
	for _, l := range idx.prefixLens {
		if l > len(tool) {
			break
		}
		add(idx.toolPrefix[tool[:l]])
	}
}

// next returns the smallest rule position left in any list, or -1. A rule
// is filed under one key only, and a request has one value per field, so no
// position appears in two selected lists.
func (c *candidates) next() int32 {
	best := -1
	for i, l := range c.lists {
		if len(l) > 0 && (best < 0 || l[0] < c.lists[best][0]) {
			best = i
		}
	}
	if best < 0 {
		return -1
	}
	v := c.lists[best][0]
	c.lists[best] = c.lists[best][1:]
	return v
}
