package ruleset

import (
	"maps"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Needles: a prefilter for messageMatches. Go's regexp scans the whole
// message even when the pattern's words are nowhere in it, and the
// baseline packs hold many message rules, so each rule with a pattern
// carries the literal strings one of which every match must contain
// (lower case). A request's message, lower-cased once, is searched for
// them before the pattern runs; no needle found means the rule cannot
// match and is skipped, which is sound by construction. A pattern with no
// such literals (".*", "[0-9]+") has no needles and always runs.

const (
	maxNeedles   = 64 // more alternatives than that: not worth prefiltering
	minNeedleLen = 3  // shorter literals filter too little
)

// needlesOf returns the necessary literals of an RE2 pattern, or nil.
func needlesOf(pattern string) []string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	set, ok := necessary(re, false)
	if !ok {
		// Too many needles: settle for fewer, shorter ones.
		set, ok = necessary(re, true)
	}
	if !ok {
		return nil
	}
	return set
}

// necessary returns a set of literals such that every string matching re
// contains at least one of them.
func necessary(re *syntax.Regexp, compact bool) ([]string, bool) {
	set, ok := structural(re, compact)
	if all, isExact := exact(re); isExact {
		if all, usableSet := usable(all); usableSet && (!ok || better(all, set, compact)) {
			return all, true
		}
	}
	return set, ok
}

// structural is necessary by the shape of re: a concatenation's best part,
// an alternation's union.
func structural(re *syntax.Regexp, compact bool) ([]string, bool) {
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return necessary(re.Sub[0], compact)
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return necessary(re.Sub[0], compact)
		}
		return nil, false
	case syntax.OpConcat:
		// Runs of children whose every match is known (exact sets) are
		// joined into longer literals: Go's parser factors the common
		// prefixes out of alternations, so "not available (?:on|in) your
		// plan" must be put back together to filter well. Any run's set,
		// or any other child's, will do (see better).
		var best []string
		consider := func(set []string, ok bool) {
			if !ok {
				return
			}
			if set, ok := usable(set); ok && (best == nil || better(set, best, compact)) {
				best = set
			}
		}
		sets := make([][]string, len(re.Sub))
		for i, sub := range re.Sub {
			if set, ok := exact(sub); ok {
				sets[i] = set
			} else {
				consider(necessary(sub, compact))
			}
		}
		for i := range sets {
			run := []string{""}
			for j := i; j < len(sets) && sets[j] != nil && run != nil; j++ {
				run = cross(run, sets[j])
				consider(run, run != nil)
			}
		}
		return best, best != nil
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			set, ok := necessary(sub, compact)
			if !ok {
				return nil, false
			}
			all = append(all, set...)
			if len(all) > maxNeedles {
				return nil, false
			}
		}
		return all, true
	}
	return nil, false
}

// maxExact bounds the sets exact builds.
const maxExact = 1024

// literalSet returns, for a pattern that matches exactly when the message
// contains one of a set of strings regardless of case (an unanchored,
// case-insensitive alternation of phrases with optional parts and small
// character classes, as most pack patterns are), that set, folded; else
// nil. For such a pattern the needle search is the match, and the regular
// expression need not run.
func literalSet(pattern string) []string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	if !caseless(re) {
		return nil
	}
	set, ok := exact(re)
	if !ok || len(set) == 0 {
		return nil
	}
	for _, s := range set {
		if len(s) < minNeedleLen {
			return nil
		}
	}
	return set
}

// caseless reports whether every literal and character class of re
// matches regardless of case, so that comparing folded strings is exact.
func caseless(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return true
		}
		for _, r := range re.Rune {
			if unicode.SimpleFold(r) != r {
				return false // a letter matched in one case only
			}
		}
		return true
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1] && r-re.Rune[i] < 64; r++ {
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					if !inClass(re.Rune, f) {
						return false
					}
				}
			}
		}
		return true
	}
	for _, sub := range re.Sub {
		if !caseless(sub) {
			return false
		}
	}
	return true
}

func inClass(ranges []rune, r rune) bool {
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i] <= r && r <= ranges[i+1] {
			return true
		}
	}
	return false
}

// exact returns every string re can match, lower-cased, when there are few
// of them: literals, small character classes, and alternations,
// concatenations and optional parts of those.
func exact(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{foldMessage(string(re.Rune))}, true
	case syntax.OpEmptyMatch:
		return []string{""}, true
	case syntax.OpCharClass:
		var set []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if len(set) >= 8 {
					return nil, false
				}
				set = append(set, string(foldRune(r)))
			}
		}
		return dedupe(set), true
	case syntax.OpCapture:
		return exact(re.Sub[0])
	case syntax.OpQuest:
		set, ok := exact(re.Sub[0])
		if !ok {
			return nil, false
		}
		return dedupe(append(set, "")), true
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			set, ok := exact(sub)
			if !ok || len(all)+len(set) > maxExact {
				return nil, false
			}
			all = append(all, set...)
		}
		return dedupe(all), true
	case syntax.OpConcat:
		run := []string{""}
		for _, sub := range re.Sub {
			set, ok := exact(sub)
			if !ok {
				return nil, false
			}
			if run = cross(run, set); run == nil {
				return nil, false
			}
		}
		return run, true
	}
	return nil, false
}

// cross is every a+b, or nil when that is more than maxExact strings.
func cross(as, bs []string) []string {
	if len(as)*len(bs) > maxExact {
		return nil
	}
	out := make([]string, 0, len(as)*len(bs))
	for _, a := range as {
		for _, b := range bs {
			out = append(out, a+b)
		}
	}
	return dedupe(out)
}

func dedupe(set []string) []string {
	slices.Sort(set)
	return slices.Compact(set)
}

// usable keeps a set as needles when none is too short to filter and
// there are not too many.
func usable(set []string) ([]string, bool) {
	if len(set) == 0 || len(set) > maxNeedles {
		return nil, false
	}
	for _, s := range set {
		if len(s) < minNeedleLen {
			return nil, false
		}
	}
	return set, true
}

// better reports whether needle set a filters better than b: needles of
// eight bytes or more are all long enough, and then fewer needles are
// better. compact puts fewer needles first: an alternation of many
// phrases must stay under maxNeedles.
func better(a, b []string, compact bool) bool {
	if compact && len(a) != len(b) {
		return len(a) < len(b)
	}
	la, lb := min(shortest(a), 8), min(shortest(b), 8)
	if la != lb {
		return la > lb
	}
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return shortest(a) > shortest(b)
}

func shortest(set []string) int {
	n := -1
	for _, s := range set {
		if n < 0 || len(s) < n {
			n = len(s)
		}
	}
	return n
}

// foldRune maps a rune to the smallest rune of its case-folding orbit,
// the equivalence (?i) matches by: 'a' and 'A' fold to 'A', and 'k', 'K'
// and the Kelvin sign to 'K'. Needles and messages are compared folded.
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}
	lo := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		lo = min(lo, f)
	}
	return lo
}

// foldMessage folds every rune of a message for the needle search. Most
// messages are ASCII, for which folding is upper-casing.
func foldMessage(m string) string {
	for i := 0; i < len(m); i++ {
		if m[i] >= utf8.RuneSelf {
			return strings.Map(foldRune, m)
		}
	}
	return strings.ToUpper(m)
}

// hasAny reports whether the folded message contains one of the needles.
func hasAny(folded string, needles []string) bool {
	for _, n := range needles {
		if strings.Contains(folded, n) {
			return true
		}
	}
	return false
}

// messageMatcher is a messageMatches pattern split into its top-level
// alternatives (branches), each with its needles: literals one of which
// every match of the branch contains. A branch that is a set of phrases
// (literalSet) is decided by its needles alone; any other runs its own
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
	needles []string       // folded; nil: no prefilter, the branch always runs
	literal bool           // the needles are all the branch matches
	re      *regexp.Regexp // the branch alone, when not literal
	// starts, when not nil, are the strings (folded) that every match of
	// the branch begins with, and anchored is the branch from there on,
	// anchored: on an ASCII message the branch is tried only where one of
	// starts occurs, instead of at every position (prefixAnchor).
	starts   []string
	anchored *regexp.Regexp
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
func prefixAnchor(re *syntax.Regexp) (starts []string, anchored *regexp.Regexp, wordStart bool) {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
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
		set, ok := exact(sub)
		if !ok {
			break
		}
		next := cross(run, set)
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
	rest := &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: subs}
	a, err := regexp.Compile(`^(?:` + rest.String() + `)`)
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
		src := sub.String()
		if set := literalSet(src); set != nil {
			m.branches = append(m.branches, branch{needles: set, literal: true})
			continue
		}
		re, err := regexp.Compile(src)
		if err != nil {
			return nil, err
		}
		n := needlesOf(src)
		m.open = m.open || n == nil
		b := branch{needles: n, re: re}
		b.starts, b.anchored, b.wordStart = prefixAnchor(sub)
		m.branches = append(m.branches, b)
	}
	return m, nil
}

// matchString is the matcher on its own, without a needle index: for
// Explain, which evaluates every rule.
func (m *messageMatcher) matchString(msg string) bool {
	folded, upper := foldMessage(msg), asciiUpper(msg)
	for i := range m.branches {
		b := &m.branches[i]
		switch {
		case b.needles != nil && !hasAny(folded, b.needles):
		case b.literal:
			return true
		case b.match(msg, upper):
			return true
		}
	}
	return false
}

// needleIndex finds, in one pass over a folded message, which branches'
// needles occur in it: an Aho-Corasick automaton over the needles' bytes.
// A pack holds thousands of needles, many of them sharing long prefixes
// (an alternation's every combination of phrases), so the automaton's cost
// per message byte does not grow with their number, where comparing the
// needles that start like the text at each position did
// (BenchmarkBaselineStages).
//
// Hand-written because the libraries at hand compile all fail transitions
// into one flat DFA: over the packs' needles that is far more memory than
// the processor keeps in cache between two requests, and it scans slower
// once the caches are cold, which they are in the service.
//
// States are numbered breadth first: text that is not the start of a
// needle keeps the automaton in its few shallow states, which then share
// cache lines, and a state's children are consecutive.
type needleIndex struct {
	// root is the root's transitions, one per byte; 0 is the root itself.
	root   [256]int32
	states []needleState
	// label is the byte that leads to each state from its parent.
	label []byte
	// outIDs[outStart[o]:outStart[o+1]] are the branches of the needle
	// that ends at state o.
	outStart []int32
	outIDs   []int32
	base     []int32 // rule position → id of its first branch
	ruleOf   []int32 // branch id → rule position, -1 for a guard's
	branches int
}

type needleState struct {
	// The children are states child … child+children-1.
	child, children int32
	// fail is the state of the longest proper suffix of this state's text
	// that is a prefix of some needle.
	fail int32
	// out is the nearest state on the fail chain (this one included) at
	// which a needle ends, or 0.
	out int32
}

func buildNeedleIndex(rules []*compiled) *needleIndex {
	ix := &needleIndex{base: make([]int32, len(rules))}
	byNeedle := map[string][]int32{}
	add := func(m *messageMatcher, rule int32) {
		for _, b := range m.branches {
			id := int32(ix.branches)
			ix.ruleOf = append(ix.ruleOf, rule)
			for _, n := range b.needles {
				if l := byNeedle[n]; len(l) == 0 || l[len(l)-1] != id {
					byNeedle[n] = append(l, id)
				}
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
	needles := slices.Sorted(maps.Keys(byNeedle))

	// The trie. Needles are inserted in sorted order, so each node's
	// children are created in ascending byte order and the child a needle
	// continues with is its node's last one, or a new one.
	type edge struct {
		c    byte
		node int32
	}
	children := [][]edge{nil}
	ends := []string{""} // the needle that ends at a node, or ""
	for _, n := range needles {
		v := int32(0)
		for k := 0; k < len(n); k++ {
			ch := children[v]
			if len(ch) > 0 && ch[len(ch)-1].c == n[k] {
				v = ch[len(ch)-1].node
				continue
			}
			next := int32(len(children))
			children[v] = append(ch, edge{n[k], next})
			children = append(children, nil)
			ends = append(ends, "")
			v = next
		}
		ends[v] = n
	}

	// States in breadth-first order of the nodes, with fail links and
	// outputs: a state's fail state is shallower, so it is complete before
	// the state is reached.
	n := len(children)
	ix.states = make([]needleState, n)
	ix.label = make([]byte, n)
	ix.outStart = make([]int32, n+1)
	order := make([]int32, 1, n) // state → node
	for s := 0; s < n; s++ {
		v := order[s]
		st := &ix.states[s]
		st.child, st.children = int32(len(order)), int32(len(children[v]))
		for _, e := range children[v] {
			ix.label[len(order)] = e.c
			order = append(order, e.node)
		}
		ix.outStart[s+1] = ix.outStart[s]
		if needle := ends[v]; needle != "" {
			ix.outIDs = append(ix.outIDs, byNeedle[needle]...)
			ix.outStart[s+1] += int32(len(byNeedle[needle]))
		}
	}
	for k := range ix.states[0].children {
		c := ix.states[0].child + k
		ix.root[ix.label[c]] = c
	}
	for s := int32(1); s < int32(n); s++ {
		st := &ix.states[s]
		if ix.outStart[s+1] > ix.outStart[s] {
			st.out = s
		} else {
			st.out = ix.states[st.fail].out
		}
		for c := st.child; c < st.child+st.children; c++ {
			ix.states[c].fail = ix.step(st.fail, ix.label[c])
		}
	}
	return ix
}

// step is the automaton's transition from state s on byte c.
func (ix *needleIndex) step(s int32, c byte) int32 {
	for s != 0 {
		st := &ix.states[s]
		for k := st.child; k < st.child+st.children; k++ {
			if b := ix.label[k]; b >= c {
				if b == c {
					return k
				}
				break
			}
		}
		s = st.fail
	}
	return ix.root[c]
}

// scan marks in seen (one bit per branch) the branches with a needle in
// message m, and in rules (one bit per rule) their rules. It folds m as it
// goes (foldMessage), which spares a folded copy.
func (ix *needleIndex) scan(m string, seen, rules []uint64) {
	if len(ix.outIDs) == 0 {
		return
	}
	s := int32(0)
	feed := func(c byte) {
		s = ix.step(s, c)
		for o := ix.states[s].out; o != 0; o = ix.states[ix.states[o].fail].out {
			for _, id := range ix.outIDs[ix.outStart[o]:ix.outStart[o+1]] {
				seen[id>>6] |= 1 << (id & 63)
				if r := ix.ruleOf[id]; r >= 0 {
					rules[r>>6] |= 1 << (r & 63)
				}
			}
		}
	}
	for i := 0; i < len(m); {
		if c := m[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			feed(c)
			i++
			continue
		}
		// As strings.Map does, an invalid byte reads as U+FFFD.
		r, n := utf8.DecodeRuneInString(m[i:])
		i += n
		var enc [utf8.UTFMax]byte
		for _, c := range utf8.AppendRune(enc[:0], foldRune(r)) {
			feed(c)
		}
	}
}
