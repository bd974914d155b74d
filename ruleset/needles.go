package ruleset

import (
	"regexp/syntax"
	"strings"
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
	maxNeedles   = 24 // more alternatives than that: not worth prefiltering
	minNeedleLen = 3  // shorter literals filter too little
)

// needlesOf returns the necessary literals of an RE2 pattern, or nil.
func needlesOf(pattern string) []string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	set, ok := necessary(re.Simplify())
	if !ok {
		return nil
	}
	return set
}

// necessary returns a set of literals such that every string matching re
// contains at least one of them.
func necessary(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		s := strings.ToLower(string(re.Rune))
		if len(s) < minNeedleLen {
			return nil, false
		}
		return []string{s}, true
	case syntax.OpCapture:
		return necessary(re.Sub[0])
	case syntax.OpPlus:
		return necessary(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return necessary(re.Sub[0])
		}
		return nil, false
	case syntax.OpConcat:
		// Any one child's set will do; the one with the longest shortest
		// needle filters best.
		var best []string
		bestLen := 0
		for _, sub := range re.Sub {
			if set, ok := necessary(sub); ok {
				if l := shortest(set); l > bestLen {
					best, bestLen = set, l
				}
			}
		}
		return best, best != nil
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			set, ok := necessary(sub)
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

func shortest(set []string) int {
	n := -1
	for _, s := range set {
		if n < 0 || len(s) < n {
			n = len(s)
		}
	}
	return n
}

// foldMessage lower-cases a message for the needle search. Under (?i)
// Go's regexp matches the Kelvin sign to k (which ToLower already maps)
// and the long s to s (which it does not): the long s is mapped by hand,
// so that no match is missed.
func foldMessage(m string) string {
	m = strings.ToLower(m)
	if strings.ContainsRune(m, 'ſ') {
		m = strings.ReplaceAll(m, "ſ", "s")
	}
	return m
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
