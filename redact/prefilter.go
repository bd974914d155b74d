package redact

// The prefilter finds, in one pass over the text, which patterns have one of
// their literal prefilters present. Calling strings.Contains once per
// prefilter costs a few microseconds on a 200-byte message, because short
// needles starting with common letters ("s", "p", "k") make it restart
// constantly; indexing the needles by their first two bytes (case-folded)
// makes the cost one table lookup per byte of text.

type needle struct {
	text    string // lower case when fold is set
	fold    bool
	pattern int
}

type needleIndex struct {
	// present has one bit per folded two-byte prefix of some needle. At
	// 8 KiB it stays in the L1 cache, unlike table, which is consulted
	// only on a hit.
	present [1 << 10]uint64
	table   [1 << 16]uint8 // folded first two bytes → group number, 0 for none
	groups  [][]needle
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
			if len(f) < 2 {
				panic("redact: prefilter " + f + " shorter than 2 bytes")
			}
			key := uint16(lowerTable[f[0]])<<8 | uint16(lowerTable[f[1]])
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
			idx.groups[g-1] = append(idx.groups[g-1], needle{text: f, fold: p.FoldCase, pattern: pi})
		}
	}
	return idx
}

// candidates returns the set of patterns, as bits, whose prefilters occur in s.
func (idx *needleIndex) candidates(s string) uint64 {
	var set uint64
	if len(s) < 2 {
		return 0
	}
	prev := uint16(lowerTable[s[0]])
	for i := 1; i < len(s); i++ {
		cur := uint16(lowerTable[s[i]])
		key := prev<<8 | cur
		prev = cur
		if idx.present[key>>6]&(1<<(key&63)) == 0 {
			continue
		}
		for _, n := range idx.groups[idx.table[key]-1] {
			if set&(1<<n.pattern) == 0 && hasNeedleAt(s[i-1:], n) {
				set |= 1 << n.pattern
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
