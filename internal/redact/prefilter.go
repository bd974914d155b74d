package redact

import (
	"math/bits"
	"strings"
)

// The prefilter finds, in one pass over the text, which patterns have one of
// their literal prefilters present. Calling strings.Contains once per
// prefilter costs a few microseconds on a 200-byte message, because short
// needles starting with common letters ("s", "p", "k") make it restart
// constantly; indexing the needles by two of their bytes makes the cost one
// table lookup per two bytes of text.
//
// Every needle is at least three bytes long, so wherever one occurs, either
// its first two bytes or its second and third bytes sit at an even offset
// of the text. The scan therefore reads the text two bytes at a time, at
// even offsets only, and the index holds every needle under both of those
// byte pairs, each with the offset of the pair in the needle.
//
// The pairs are taken as they are, not case-folded: a needle that ignores
// case is entered under every case variant of its pairs. That keeps the loop
// to a few instructions per pair, and keeps case-sensitive needles such as
// "AKIA" from being tried at every "ak" of ordinary words.

type needle struct {
	text    string // lower case when fold is set
	fold    bool
	pattern int
	// after, when set, must hold for the text after the needle.
	after func(rest string) bool
}

// entry is a needle filed under one of its byte pairs.
type entry struct {
	needle
	offset int // of the pair in the needle: 0 or 1
}

type needleIndex struct {
	// present has one bit per byte pair filed. At 8 KiB it stays in the L1
	// cache, unlike table, which is consulted only on a hit.
	present [1 << 10]uint64
	table   [1 << 16]uint8 // byte pair → group number, 0 for none
	groups  [][]entry
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
	for pi, p := range ps {
		for _, f := range p.Prefilters {
			if len(f) < 3 {
				panic("redact: prefilter " + f + " shorter than 3 bytes")
			}
			n := needle{text: f, fold: p.FoldCase, pattern: pi, after: p.after}
			for off := 0; off < 2; off++ {
				for _, a := range caseVariants(f[off], n.fold) {
					for _, b := range caseVariants(f[off+1], n.fold) {
						idx.add(uint16(a)<<8|uint16(b), entry{n, off})
					}
				}
			}
		}
	}
	return idx
}

func (idx *needleIndex) add(key uint16, e entry) {
	g := idx.table[key]
	if g == 0 {
		idx.groups = append(idx.groups, nil)
		if len(idx.groups) > 255 {
			panic("redact: too many prefilter groups")
		}
		g = uint8(len(idx.groups))
		idx.table[key] = g
		idx.present[key>>6] |= 1 << (key & 63)
	}
	idx.groups[g-1] = append(idx.groups[g-1], e)
}

// caseVariants returns the bytes that match c: c itself, and its upper
// case too when fold is set and c is a lower-case letter.
func caseVariants(c byte, fold bool) []byte {
	if fold && c >= 'a' && c <= 'z' {
		return []byte{c, c - 'a' + 'A'}
	}
	return []byte{c}
}

// candidates returns the set of patterns, as bits, whose prefilters occur in s.
func (idx *needleIndex) candidates(s string) uint64 {
	var set uint64
	for i := 0; i+1 < len(s); i += 2 {
		key := uint16(s[i])<<8 | uint16(s[i+1])
		if idx.present[key>>6]&(1<<(key&63)) == 0 {
			continue
		}
		for _, e := range idx.groups[idx.table[key]-1] {
			start := i - e.offset
			if start < 0 || set&(1<<e.pattern) != 0 || !hasNeedleAt(s[start:], e.needle) {
				continue
			}
			if e.after == nil || e.after(s[start+len(e.text):]) {
				set |= 1 << e.pattern
			}
		}
	}
	return set
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
// ASCII case, in one pass: each byte is looked up in a table of the words'
// first bytes, and only the words starting with it are compared. Searching
// for each word in turn restarts the search a dozen times.
type foldSet struct {
	words []string
	first [256]uint32 // bit i: words[i] may start with the byte
}

func newFoldSet(words ...string) *foldSet {
	if len(words) > 32 {
		panic("redact: more than 32 words in a foldSet")
	}
	f := &foldSet{words: words}
	for i, w := range words {
		if w == "" || strings.ToLower(w) != w {
			panic("redact: foldSet word " + w + " is empty or not lower case")
		}
		f.first[w[0]] |= 1 << i
		if c := w[0]; c >= 'a' && c <= 'z' {
			f.first[c-'a'+'A'] |= 1 << i
		}
	}
	return f
}

// in reports whether s contains one of the words, ignoring ASCII case.
func (f *foldSet) in(s string) bool {
	for i := 0; i < len(s); i++ {
		m := f.first[s[i]]
		for m != 0 {
			j := bits.TrailingZeros32(m)
			m &^= 1 << j
			if w := f.words[j]; len(s)-i >= len(w) && hasNeedleAt(s[i:], needle{text: w, fold: true}) {
				return true
			}
		}
	}
	return false
}

// hasNonASCIIFold reports whether s holds the long s (U+017F) or the Kelvin
// sign (U+212A), the only characters outside ASCII that (?i) matches to
// ASCII letters.
func hasNonASCIIFold(s string) bool {
	return strings.Contains(s, "\u017f") || strings.Contains(s, "\u212a")
}
