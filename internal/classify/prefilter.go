package classify

import "strings"

// Prefilters: cheap checks that run before a regular expression and skip it
// when the text cannot match. Go's regexp backtracks over every position of
// the text even when the pattern's words are nowhere in it, and a message
// passes through a dozen patterns, so on the short messages of the hot path
// most of Baseline's time went into patterns that could not match. A
// prefilter may say "maybe" for text that does not match, never "no" for
// text that does; prefilter_internal_test.go checks each against its
// pattern.

// foldSet finds any of a few lower-case ASCII needles in a text, ignoring
// case as a (?i) pattern does, in one pass that looks each byte up in a
// table of the needles' first bytes.
//
// Under (?i) Go's regexp also matches the Kelvin sign (U+212A) to k and the
// long s (U+017F) to s. A text with either of them is reported as a
// possible match when some needle has that letter, so the pattern decides.
type foldSet struct {
	needles []string
	// first has bit i set for the bytes that needles[i] may start with,
	// and foldBit for the lead bytes of the Kelvin sign and the long s
	// when some needle has a k or an s.
	first [256]uint16
	// wordStart requires a match to start a word: the byte before it, if
	// any, is not an ASCII letter, digit or underscore, as after a \b.
	wordStart bool
}

const foldBit = 1 << 15

func newFoldSet(wordStart bool, needles ...string) *foldSet {
	if len(needles) > 15 {
		panic("classify: too many needles for a foldSet")
	}
	f := &foldSet{needles: needles, wordStart: wordStart}
	for i, n := range needles {
		if n == "" || n != strings.ToLower(n) {
			panic("classify: foldSet needle " + n + " is empty or not lower case")
		}
		f.first[n[0]] |= 1 << i
		if c := n[0]; c >= 'a' && c <= 'z' {
			f.first[c-'a'+'A'] |= 1 << i
		}
		if strings.ContainsAny(n, "ks") {
			f.first["\u017f"[0]] |= foldBit
			f.first["\u212a"[0]] |= foldBit
		}
	}
	return f
}

// in reports whether s may contain one of the needles.
func (f *foldSet) in(s string) bool {
	for i := 0; i < len(s); i++ {
		m := f.first[s[i]]
		if m == 0 {
			continue
		}
		if m&foldBit != 0 && (strings.HasPrefix(s[i:], "\u017f") || strings.HasPrefix(s[i:], "\u212a")) {
			return true
		}
		if f.wordStart && i > 0 && isWordByte(s[i-1]) {
			continue
		}
		for j, n := range f.needles {
			if m&(1<<j) != 0 && len(s)-i >= len(n) && equalFoldASCII(s[i+1:i+len(n)], n[1:]) {
				return true
			}
		}
	}
	return false
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
