package literal

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Literal extraction, as Prometheus' FastRegexMatcher and TruffleHog's
// keyword prefilter do it: Go's regexp scans the whole text even when the
// pattern's words are nowhere in it, so a pattern is given the literal
// strings one of which every match must contain (its needles), and runs
// only on a text that holds one. No needle found means no match, which is
// sound by construction. A pattern with no such literals (".*", "[0-9]+")
// has no needles and always runs.
//
// Needles and texts are compared folded (Fold): the equivalence (?i)
// matches by.

const (
	maxNeedles = 64 // more alternatives than that: not worth prefiltering
	// MinNeedleLen is the shortest needle: shorter literals filter too little.
	MinNeedleLen = 3
)

// Necessary returns the necessary literals of an RE2 pattern, or nil.
func Necessary(pattern string) []string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	return NecessaryOf(re)
}

// NecessaryOf is Necessary for a pattern already parsed (with syntax.Perl),
// such as one branch of a parsed alternation.
func NecessaryOf(re *syntax.Regexp) []string {
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
	if all, isExact := AllMatches(re); isExact {
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
		// Runs of children whose every match is known (AllMatches gives them) are
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
			if set, ok := AllMatches(sub); ok {
				sets[i] = set
			} else {
				consider(necessary(sub, compact))
			}
		}
		for i := range sets {
			run := []string{""}
			for j := i; j < len(sets) && sets[j] != nil && run != nil; j++ {
				run = Cross(run, sets[j])
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

// maxExact bounds the sets AllMatches builds.
const maxExact = 1024

// ExactSet returns, for a pattern that matches exactly when the message
// contains one of a set of strings regardless of case (an unanchored,
// case-insensitive alternation of phrases with optional parts and small
// character classes, as most pack patterns are), that set, folded; else
// nil. For such a pattern the needle search is the match, and the regular
// expression need not run.
func ExactSet(pattern string) []string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	return ExactSetOf(re)
}

// ExactSetOf is ExactSet for a pattern already parsed (with syntax.Perl).
func ExactSetOf(re *syntax.Regexp) []string {
	re = re.Simplify()
	if !caseless(re) {
		return nil
	}
	set, ok := AllMatches(re)
	if !ok || len(set) == 0 {
		return nil
	}
	for _, s := range set {
		if len(s) < MinNeedleLen {
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

// AllMatches returns every string re can match, folded, when there are few
// of them: literals, small character classes, and alternations,
// concatenations and optional parts of those.
func AllMatches(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{Fold(string(re.Rune))}, true
	case syntax.OpEmptyMatch:
		return []string{""}, true
	case syntax.OpCharClass:
		var set []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if len(set) >= 8 {
					return nil, false
				}
				set = append(set, string(FoldRune(r)))
			}
		}
		return dedupe(set), true
	case syntax.OpCapture:
		return AllMatches(re.Sub[0])
	case syntax.OpQuest:
		set, ok := AllMatches(re.Sub[0])
		if !ok {
			return nil, false
		}
		return dedupe(append(set, "")), true
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			set, ok := AllMatches(sub)
			if !ok || len(all)+len(set) > maxExact {
				return nil, false
			}
			all = append(all, set...)
		}
		return dedupe(all), true
	case syntax.OpConcat:
		run := []string{""}
		for _, sub := range re.Sub {
			set, ok := AllMatches(sub)
			if !ok {
				return nil, false
			}
			if run = Cross(run, set); run == nil {
				return nil, false
			}
		}
		return run, true
	}
	return nil, false
}

// Cross is every a+b, or nil when that is more than maxExact strings (a
// prefix set grown one part of a concatenation at a time).
func Cross(as, bs []string) []string {
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
		if len(s) < MinNeedleLen {
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

// FoldRune maps a rune to the smallest rune of its case-folding orbit,
// the equivalence (?i) matches by: 'a' and 'A' fold to 'A', and 'k', 'K'
// and the Kelvin sign to 'K'. Needles and messages are compared folded.
func FoldRune(r rune) rune {
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

// Fold folds every rune of a message for the needle search. Most
// messages are ASCII, for which folding is upper-casing.
func Fold(m string) string {
	for i := 0; i < len(m); i++ {
		if m[i] >= utf8.RuneSelf {
			return strings.Map(FoldRune, m)
		}
	}
	return strings.ToUpper(m)
}

// ContainsAny reports whether the folded message contains one of the needles.
func ContainsAny(folded string, needles []string) bool {
	for _, n := range needles {
		if strings.Contains(folded, n) {
			return true
		}
	}
	return false
}
