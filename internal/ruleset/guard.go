package ruleset

import (
	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/types"
)

// Message guards. Pack rules narrow a messageMatches with a `when` such as
// `!error.message.matches(r"(?i)(log ?in|sign ?in|…)")`: a second pattern,
// which CEL would run as one regular expression over the message of every
// request that reaches the rule. A `when` made only of error.message.matches
// calls with constant patterns, joined by !, && and ||, is evaluated
// natively instead: each pattern is a messageMatcher whose needles join the
// set's needle index, so a phrase list is decided by the scan the message
// gets anyway, and a pattern's regular expression runs only when its
// needles are in the message. The value is the same as CEL's: matches is
// RE2 in both, error.message is always a string, and none of these
// operators can meet an error.

// guard is a `when` of message patterns, as a tree.
type guard struct {
	op   guardOp
	leaf int      // guardMatch: index into the rule's guard matchers
	args []*guard // guardNot: one; guardAnd, guardOr: two
}

type guardOp uint8

const (
	guardMatch guardOp = iota
	guardNot
	guardAnd
	guardOr
)

// guardOf returns the guard that expression e is, with the patterns of its
// leaves in order, or nil when e is anything else or a pattern does not
// compile natively.
func guardOf(e ast.Expr) (*guard, []*messageMatcher) {
	var leaves []*messageMatcher
	var walk func(ast.Expr) *guard
	walk = func(e ast.Expr) *guard {
		if e.Kind() != ast.CallKind {
			return nil
		}
		call := e.AsCall()
		args := call.Args()
		switch fn := call.FunctionName(); {
		case fn == "!_" && len(args) == 1:
			if g := walk(args[0]); g != nil {
				return &guard{op: guardNot, args: []*guard{g}}
			}
		case (fn == "_&&_" || fn == "_||_") && len(args) == 2:
			l, r := walk(args[0]), walk(args[1])
			if l == nil || r == nil {
				return nil
			}
			op := guardAnd
			if fn == "_||_" {
				op = guardOr
			}
			return &guard{op: op, args: []*guard{l, r}}
		case fn == "matches":
			subject, pattern := ast.Expr(nil), ast.Expr(nil)
			switch {
			case call.IsMemberFunction() && len(args) == 1:
				subject, pattern = call.Target(), args[0]
			case !call.IsMemberFunction() && len(args) == 2:
				subject, pattern = args[0], args[1]
			default:
				return nil
			}
			if !isErrorMessage(subject) || pattern.Kind() != ast.LiteralKind {
				return nil
			}
			s, ok := pattern.AsLiteral().(types.String)
			if !ok {
				return nil
			}
			m, err := newMessageMatcher(string(s))
			if err != nil {
				return nil
			}
			leaves = append(leaves, m)
			return &guard{op: guardMatch, leaf: len(leaves) - 1}
		}
		return nil
	}
	g := walk(e)
	if g == nil {
		return nil, nil
	}
	return g, leaves
}

func isErrorMessage(e ast.Expr) bool {
	if e.Kind() != ast.SelectKind {
		return false
	}
	sel := e.AsSelect()
	return !sel.IsTestOnly() && sel.FieldName() == "message" &&
		sel.Operand().Kind() == ast.IdentKind && sel.Operand().AsIdent() == "error"
}

// eval computes the guard, leaf(i) being whether pattern i matches.
func (g *guard) eval(leaf func(int) bool) bool {
	switch g.op {
	case guardMatch:
		return leaf(g.leaf)
	case guardNot:
		return !g.args[0].eval(leaf)
	case guardAnd:
		return g.args[0].eval(leaf) && g.args[1].eval(leaf)
	default:
		return g.args[0].eval(leaf) || g.args[1].eval(leaf)
	}
}

// detailKeyOf returns K when one of the top-level conjuncts of e is
// has(error.details.K), or "". Such a rule cannot match a request whose
// details lack the key: the conjunct is then false, or an error on details
// that are not an object, and either makes the whole condition not true.
// The packs' GraphQL rules test error.details.errors this way, and most
// requests carry no details at all.
func detailKeyOf(e ast.Expr) string {
	if e.Kind() != ast.CallKind {
		if e.Kind() != ast.SelectKind {
			return ""
		}
		sel := e.AsSelect()
		if !sel.IsTestOnly() || sel.Operand().Kind() != ast.SelectKind {
			return ""
		}
		d := sel.Operand().AsSelect()
		if d.IsTestOnly() || d.FieldName() != "details" || d.Operand().Kind() != ast.IdentKind || d.Operand().AsIdent() != "error" {
			return ""
		}
		return sel.FieldName()
	}
	call := e.AsCall()
	if call.FunctionName() != "_&&_" {
		return ""
	}
	for _, a := range call.Args() {
		if k := detailKeyOf(a); k != "" {
			return k
		}
	}
	return ""
}

// lacksDetail reports whether the request's details are certainly without
// key k: absent, or a decoded JSON object without it. Details of any other
// form are left to CEL.
func lacksDetail(details any, k string) bool {
	switch d := details.(type) {
	case nil:
		return true
	case map[string]any:
		_, ok := d[k]
		return !ok
	}
	return false
}
