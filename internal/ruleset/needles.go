package ruleset

import (
	"regexp/syntax"
	"strings"
	"unicode/utf8"

	"github.com/omcp/toolfailure/internal/literal"
)

// Needles: a prefilter for messageMatches. Go's regexp scans the whole
// message even when the pattern's words are nowhere in it, and the
// baseline packs hold many message rules, so each rule with a pattern
// carries the literal strings one of which every match must contain
// (lower case). A request's message, lower-cased once, is searched for
// them before the pattern runs; no needle found means the rule cannot
// match and is skipped, which is sound by construction. A pattern with no
// such literals (".*", "[0-9]+") has no needles and always runs.

// messageMatcher is a messageMatches pattern split into its top-level
// alternatives (branches), each with its needles: literals one of which
// every match of the branch contains. A branch that is a set of phrases
// (literal.ExactSet) is decided by its needles alone; any other runs its own
// small expression, and only when its needles are found. Splitting matters
// because Go's regexp runs a large alternation as one slow automaton,
// while each branch alone is small and fast.
type messageMatcher struct {
	branches []branch
	// open reports whether some branch has no needles and so runs on
	// every message.
	open bool
}

type branch struct {
	needles []string    // folded; nil: no prefilter, the branch always runs
	literal bool        // the needles are all the branch matches
	re      *lazyRegexp // the branch alone, when not literal
	// starts, when not nil, are the strings (folded) that every match of
	// the branch begins with, and anchored is the branch from there on,
	// anchored: on an ASCII message the branch is tried only where one of
	// starts occurs, instead of at every position (prefixAnchor).
	starts   []string
	anchored *lazyRegexp
	// wordStart reports that the branch begins with \b, which anchored
	// leaves out because it needs the byte before the slice it is run on.
	wordStart bool
}

// maxStarts bounds the strings a branch may be anchored at: each is looked
// for in the message, so beyond a few dozen the unanchored search is as
// quick.
const maxStarts = 32

// prefixAnchor finds, for a branch that is a concatenation beginning with
// parts whose matches are few known strings (after an optional \b), those
// strings and the branch anchored at their start. Go's regexp tries an
// unanchored, case-insensitive expression at every position of the text,
// which for a large alternation costs microseconds even on a short
// message; anchored at the few positions where a match can begin, it
// costs a fraction of that. Branches that test the start of the text or a
// line anywhere are left alone (a slice would move it).
//
// src is re printed (re.String()), which the anchored form reuses when it
// is the whole branch: printing a pattern with large negated character
// classes is costly.
func prefixAnchor(re *syntax.Regexp, src string) (starts []string, anchored *lazyRegexp, wordStart bool) {
	whole := true
	for re.Op == syntax.OpCapture {
		re, whole = re.Sub[0], false
	}
	if re.Op != syntax.OpConcat || testsLineStart(re) {
		return nil, nil, false
	}
	subs := re.Sub
	if subs[0].Op == syntax.OpWordBoundary {
		wordStart, subs = true, subs[1:]
	}
	run := []string{""}
	for _, sub := range subs {
		set, ok := literal.AllMatches(sub)
		if !ok {
			break
		}
		next := literal.Cross(run, set)
		if next == nil || len(next) > maxStarts {
			break
		}
		run = next
	}
	if len(run) == 0 || len(run) > maxStarts {
		return nil, nil, false
	}
	for _, s := range run {
		if s == "" {
			return nil, nil, false // a match may begin anywhere
		}
	}
	if !whole || wordStart {
		rest := &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: subs}
		src = rest.String()
	}
	a, err := newLazyRegexp(`^(?:` + src + `)`)
	if err != nil {
		return nil, nil, false
	}
	return run, a, wordStart
}

// testsLineStart reports whether re tests for the start of the text or of
// a line anywhere.
func testsLineStart(re *syntax.Regexp) bool {
	if re.Op == syntax.OpBeginText || re.Op == syntax.OpBeginLine {
		return true
	}
	for _, sub := range re.Sub {
		if testsLineStart(sub) {
			return true
		}
	}
	return false
}

// match runs a non-literal branch on msg. upper is msg upper-cased when
// msg is ASCII (then byte positions in both agree), else "".
func (b *branch) match(msg, upper string) bool {
	if b.anchored == nil || upper == "" && msg != "" {
		return b.re.MatchString(msg)
	}
	for _, st := range b.starts {
		for off := 0; off <= len(upper)-len(st); {
			k := strings.Index(upper[off:], st)
			if k < 0 {
				break
			}
			q := off + k
			if (!b.wordStart || q == 0 || !isWordByte(msg[q-1])) && b.anchored.MatchString(msg[q:]) {
				return true
			}
			off = q + 1
		}
	}
	return false
}

// isWordByte is \b's idea of a word character (ASCII only, as in RE2).
func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// asciiUpper is msg upper-cased when it is all ASCII, else "".
func asciiUpper(msg string) string {
	for i := 0; i < len(msg); i++ {
		if msg[i] >= utf8.RuneSelf {
			return ""
		}
	}
	return strings.ToUpper(msg)
}

func newMessageMatcher(pattern string) (*messageMatcher, error) {
	full, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, err
	}
	top := full
	for top.Op == syntax.OpCapture {
		top = top.Sub[0]
	}
	subs := []*syntax.Regexp{full}
	if top.Op == syntax.OpAlternate {
		subs = top.Sub
	}
	m := &messageMatcher{}
	for _, sub := range subs {
		// The branch as parsed, not its text parsed again: printing a
		// branch (String) and parsing it back cost more than the rest of
		// compiling a pack; only a branch that runs as a regular
		// expression is printed, for regexp.Compile.
		if set := literal.ExactSetOf(sub); set != nil {
			m.branches = append(m.branches, branch{needles: set, literal: true})
			continue
		}
		src := sub.String()
		re, err := newLazyRegexp(src)
		if err != nil {
			return nil, err
		}
		n := literal.NecessaryOf(sub)
		m.open = m.open || n == nil
		b := branch{needles: n, re: re}
		b.starts, b.anchored, b.wordStart = prefixAnchor(sub, src)
		m.branches = append(m.branches, b)
	}
	return m, nil
}

// matchString is the matcher on its own, without a needle index: for
// Explain, which evaluates every rule.
func (m *messageMatcher) matchString(msg string) bool {
	folded, upper := literal.Fold(msg), asciiUpper(msg)
	for i := range m.branches {
		b := &m.branches[i]
		switch {
		case b.needles != nil && !literal.ContainsAny(folded, b.needles):
		case b.literal:
			return true
		case b.match(msg, upper):
			return true
		}
	}
	return false
}

// needleIndex finds, in one pass over a folded message, which branches'
// needles occur in it (package literal's automaton, fed the folded bytes).
type needleIndex struct {
	m        *literal.Matcher // needle → the ids of the branches it belongs to
	base     []int32          // rule position → id of its first branch
	ruleOf   []int32          // branch id → rule position, -1 for a guard's
	branches int
}

func buildNeedleIndex(rules []*compiled) *needleIndex {
	ix := &needleIndex{base: make([]int32, len(rules))}
	var b literal.Builder
	add := func(m *messageMatcher, rule int32) {
		for _, br := range m.branches {
			id := int32(ix.branches)
			ix.ruleOf = append(ix.ruleOf, rule)
			for _, n := range br.needles {
				b.Add(n, id)
			}
			ix.branches++
		}
	}
	for i, r := range rules {
		ix.base[i] = int32(ix.branches)
		// The rule's messageMatches branches, then its guard's, which do
		// not make the rule a candidate (ruleOf -1).
		if r.msg != nil {
			add(r.msg, int32(i))
		}
		for _, m := range r.guardLeaves {
			add(m, -1)
		}
	}
	// The needles are folded (upper case, literal.FoldRune) and scan folds the
	// message the same way as it feeds it, so the automaton compares bytes.
	ix.m = b.Build(literal.Exact)
	return ix
}

// scan marks in seen (one bit per branch) the branches with a needle in
// message m, and in rules (one bit per rule) their rules. It folds m as it
// goes (literal.Fold), which spares a folded copy.
func (ix *needleIndex) scan(m string, seen, rules []uint64) {
	if ix.m.Empty() {
		return
	}
	mark := func(id int32, _ int) bool {
		seen[id>>6] |= 1 << (id & 63)
		if r := ix.ruleOf[id]; r >= 0 {
			rules[r>>6] |= 1 << (r & 63)
		}
		return true
	}
	s := ix.m.Start()
	for i := 0; i < len(m); {
		if c := m[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			s = ix.m.Next(s, c)
			ix.m.Hits(s, mark)
			i++
			continue
		}
		// As strings.Map does, an invalid byte reads as U+FFFD.
		r, n := utf8.DecodeRuneInString(m[i:])
		i += n
		var enc [utf8.UTFMax]byte
		for _, c := range utf8.AppendRune(enc[:0], literal.FoldRune(r)) {
			s = ix.m.Next(s, c)
			ix.m.Hits(s, mark)
		}
	}
}
