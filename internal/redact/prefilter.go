package redact

import (
	"strings"

	"github.com/omcp/toolfailure/internal/literal"
)

// The prefilter finds, in one pass over the text (package literal), which
// patterns have one of their literal prefilters present. Calling
// strings.Contains once per prefilter restarts the search for every needle,
// which costs more than the rest of redacting a short message.
//
// The automaton compares the text's ASCII letters in lower case; a needle
// that keeps its case ("AKIA") is checked against the text's own bytes where
// it was found, so that it is not taken at every "akia" of ordinary words.

type needle struct {
	text    string // lower case when fold is set
	fold    bool
	pattern int
	// after, when set, must hold for the text after the needle.
	after func(rest string) bool
}

type needleIndex struct {
	m       *literal.Matcher // needle, in lower case → its index in needles
	needles []needle
}

var prefilter = buildIndex(patterns)

var lowerTable = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if i >= 'A' && i <= 'Z' {
			t[i] = byte(i) + 'a' - 'A'
		}
	}
	return t
}()

func buildIndex(ps []Pattern) *needleIndex {
	if len(ps) > 64 {
		panic("redact: more than 64 patterns do not fit the candidate bit set")
	}
	idx := &needleIndex{}
	var b literal.Builder
	for pi, p := range ps {
		for _, f := range p.Prefilters {
			if f == "" || p.FoldCase && lowerASCII(f) != f {
				panic("redact: prefilter " + f + " of " + p.Kind + " is empty, or not lower case in a pattern that ignores case")
			}
			id := int32(len(idx.needles))
			idx.needles = append(idx.needles, needle{text: f, fold: p.FoldCase, pattern: pi, after: p.after})
			b.Add(lowerASCII(f), id)
		}
	}
	idx.m = b.Build(literal.FoldASCII)
	return idx
}

// lowerASCII lowers s's ASCII letters only, so that offsets stay those of s.
func lowerASCII(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte(lowerTable[s[i]])
	}
	return b.String()
}

// candidates returns the set of patterns, as bits, whose prefilters occur in s.
func (idx *needleIndex) candidates(s string) uint64 {
	var set uint64
	idx.m.Scan(s, func(id int32, end int) bool {
		n := &idx.needles[id]
		if set&(1<<n.pattern) != 0 {
			return true
		}
		if !n.fold && s[end-len(n.text):end] != n.text {
			return true
		}
		if n.after == nil || n.after(s[end:]) {
			set |= 1 << n.pattern
		}
		return true
	})
	return set
}

// caseVariants returns the bytes that match c: c itself, and its upper
// case too when fold is set and c is a lower-case letter.
func caseVariants(c byte, fold bool) []byte {
	if fold && c >= 'a' && c <= 'z' {
		return []byte{c, c - 'a' + 'A'}
	}
	return []byte{c}
}

func hasNeedleAt(s string, n needle) bool {
	if len(s) < len(n.text) {
		return false
	}
	if !n.fold {
		return s[:len(n.text)] == n.text
	}
	for j := 0; j < len(n.text); j++ {
		if lowerTable[s[j]] != n.text[j] {
			return false
		}
	}
	return true
}

// foldSet finds any of a few lower-case ASCII words in a text, ignoring
// ASCII case, in one pass (package literal).
type foldSet struct{ m *literal.Matcher }

func newFoldSet(words ...string) *foldSet {
	var b literal.Builder
	for i, w := range words {
		if w == "" || strings.ToLower(w) != w {
			panic("redact: foldSet word " + w + " is empty or not lower case")
		}
		b.Add(w, int32(i))
	}
	return &foldSet{b.Build(literal.FoldASCII)}
}

// in reports whether s contains one of the words, ignoring ASCII case.
func (f *foldSet) in(s string) bool { return f.m.Contains(s) }

// hasNonASCIIFold reports whether s holds the long s (U+017F) or the Kelvin
// sign (U+212A), the only characters outside ASCII that (?i) matches to
// ASCII letters.
func hasNonASCIIFold(s string) bool {
	return strings.Contains(s, "\u017f") || strings.Contains(s, "\u212a")
}
