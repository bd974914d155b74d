package classify

import (
	"strings"

	"github.com/omcp/toolfailure/internal/literal"
)

// Prefilters: cheap checks that run before a regular expression and skip it
// when the text cannot match. Go's regexp backtracks over every position of
// the text even when the pattern's words are nowhere in it, and a message
// passes through a dozen patterns, so on the short messages of the hot path
// most of Baseline's time went into patterns that could not match. A
// prefilter may say "maybe" for text that does not match, never "no" for
// text that does; prefilter_internal_test.go checks each against its
// pattern.

// foldSet finds any of a few lower-case ASCII needles in a text, ignoring
// case as a (?i) pattern does, in one pass (package literal).
//
// Under (?i) Go's regexp also matches the Kelvin sign (U+212A) to k and the
// long s (U+017F) to s. A text with either of them is reported as a
// possible match when some needle has that letter, so the pattern decides.
type foldSet struct {
	m       *literal.Matcher // needle → its index in needles
	needles []string
	// ks is whether some needle has a k or an s.
	ks bool
	// wordStart requires a match to start a word: the byte before it, if
	// any, is not an ASCII letter, digit or underscore, as after a \b.
	wordStart bool
}

func newFoldSet(wordStart bool, needles ...string) *foldSet {
	f := &foldSet{needles: needles, wordStart: wordStart}
	var b literal.Builder
	for i, n := range needles {
		if n == "" || n != strings.ToLower(n) {
			panic("classify: foldSet needle " + n + " is empty or not lower case")
		}
		b.Add(n, int32(i))
		f.ks = f.ks || strings.ContainsAny(n, "ks")
	}
	f.m = b.Build(literal.FoldASCII)
	return f
}

// in reports whether s may contain one of the needles.
func (f *foldSet) in(s string) bool {
	if f.ks && hasNonASCIIFold(s) {
		return true
	}
	found := false
	f.m.Scan(s, func(id int32, end int) bool {
		if start := end - len(f.needles[id]); f.wordStart && start > 0 && isWordByte(s[start-1]) {
			return true
		}
		found = true
		return false
	})
	return found
}

// equalFoldASCII reports whether s equals the lower-case ASCII t, ignoring
// the case of ASCII letters in s.
func equalFoldASCII(s, t string) bool {
	if len(s) != len(t) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if lowerASCII(s[i]) != t[i] {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hasNonASCIIFold reports whether s holds the long s (U+017F) or the Kelvin
// sign (U+212A), the only characters outside ASCII that (?i) matches to
// ASCII letters.
func hasNonASCIIFold(s string) bool {
	return strings.Contains(s, "\u017f") || strings.Contains(s, "\u212a")
}
