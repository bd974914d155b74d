// Package literal finds which of a fixed set of literal strings occur in a text, all of them in
// one pass: the packs' needles, the classifier's phrases and prefilters and redaction's
// prefilters all go through it.
//
// Build a Matcher once, from (needle, id) pairs, then scan each text with it:
//
//	var b literal.Builder
//	b.Add("rate limit", 1)
//	b.Add("quota", 2)
//	m := b.Build(literal.FoldASCII)
//	m.Scan("Rate Limit exceeded", func(id int32, end int) bool {
//		fmt.Println(id, end) // 1 10
//		return true
//	})
//
// A caller that transforms the text as it reads it (the packs fold whole runes) feeds the bytes
// itself with Start, Next and Hits.
package literal

import (
	"maps"
	"slices"
	"strings"
)

// Case says how the text's bytes are compared with the needles'.
type Case bool

const (
	// Exact compares bytes as they are.
	Exact Case = false
	// FoldASCII compares the text's ASCII letters in lower case; the needles must be in lower case.
	FoldASCII Case = true
)

// Builder collects needles. The zero value is ready to use.
type Builder struct {
	ids map[string][]int32
	max int
}

// Add files needle under id. A needle may carry several ids and an id several needles; an id is
// reported once per occurrence of each of its needles. Empty needles are ignored.
func (b *Builder) Add(needle string, id int32) {
	if needle == "" {
		return
	}
	if b.ids == nil {
		b.ids = map[string][]int32{}
	}
	if l := b.ids[needle]; !slices.Contains(l, id) {
		b.ids[needle] = append(l, id)
	}
	b.max = max(b.max, len(needle))
}

// Matcher is an Aho-Corasick automaton over the needles' bytes. It is safe for concurrent use.
//
// Hand-written rather than taken from a library because the packs hold about twenty thousand
// needles, many sharing long prefixes (an alternation's every combination of phrases): the Go
// libraries either compile every fail transition into a flat table per state, which on those
// needles is tens of times this automaton's memory, or keep a sparse automaton several times its
// size that scans a message several times slower; either would take the service past its memory
// floor. The comparison is the benchmarks of internal/literal/librarybench (a module of its own,
// so that the libraries stay out of the service's).
//
// States are numbered breadth first: text that does not start a needle keeps the automaton in
// its few shallow states, which then share cache lines, and a state's children are consecutive.
type Matcher struct {
	fold Case
	// root is the root's transition on each byte; 0 is the root itself.
	root [256]int32
	// starts has the bytes of the text (as Scan reads them, folded with FoldASCII) on which the
	// root moves: at the root, Scan skips every other byte with one table lookup, which is what
	// keeps a scan for a few needles as cheap as a search for their first bytes.
	starts [256]bool
	states []state
	// label is the byte that leads to each state from its parent.
	label []byte
	// outIDs[outStart[o]:outStart[o+1]] are the ids of the needle that ends at state o.
	outStart []int32
	outIDs   []int32
	// size[o] is the length of the needle that ends at state o.
	size []int32
}

type state struct {
	// The children are states child … child+children-1.
	child, children int32
	// fail is the state of the longest proper suffix of this state's text that is a prefix of
	// some needle.
	fail int32
	// out is the nearest state on the fail chain (this one included) at which a needle ends, or 0.
	out int32
}

// Build returns the matcher of the needles added so far. With FoldASCII every needle must be in
// lower case (it panics otherwise: a needle that can never match is a programming error).
func (b *Builder) Build(c Case) *Matcher {
	m := &Matcher{fold: c}
	needles := slices.Sorted(maps.Keys(b.ids))
	if c == FoldASCII {
		for _, n := range needles {
			if hasUpperASCII(n) {
				panic("literal: needle " + n + " has upper-case ASCII letters; FoldASCII needs lower case")
			}
		}
	}

	// The trie. Needles are inserted in sorted order, so each node's children are created in
	// ascending byte order and the child a needle continues with is its node's last one, or new.
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

	// States in breadth-first order of the nodes, with fail links and outputs: a state's fail
	// state is shallower, so it is complete before the state is reached.
	n := len(children)
	m.states = make([]state, n)
	m.label = make([]byte, n)
	m.outStart = make([]int32, n+1)
	m.size = make([]int32, n)
	order := make([]int32, 1, n) // state → node
	for s := 0; s < n; s++ {
		v := order[s]
		st := &m.states[s]
		st.child, st.children = int32(len(order)), int32(len(children[v]))
		for _, e := range children[v] {
			m.label[len(order)] = e.c
			order = append(order, e.node)
		}
		m.outStart[s+1] = m.outStart[s]
		if needle := ends[v]; needle != "" {
			m.outIDs = append(m.outIDs, b.ids[needle]...)
			m.outStart[s+1] += int32(len(b.ids[needle]))
			m.size[s] = int32(len(needle))
		}
	}
	for k := range m.states[0].children {
		c := m.states[0].child + k
		m.root[m.label[c]] = c
	}
	for b := range 256 {
		c := byte(b)
		if c >= 'A' && c <= 'Z' && m.fold == FoldASCII {
			c += 'a' - 'A'
		}
		m.starts[b] = m.root[c] != 0
	}
	for s := int32(1); s < int32(n); s++ {
		st := &m.states[s]
		if m.outStart[s+1] > m.outStart[s] {
			st.out = s
		} else {
			st.out = m.states[st.fail].out
		}
		for c := st.child; c < st.child+st.children; c++ {
			m.states[c].fail = m.Next(st.fail, m.label[c])
		}
	}
	return m
}

// Empty reports whether the matcher has no needle: scanning with it finds nothing.
func (m *Matcher) Empty() bool { return len(m.outIDs) == 0 }

// States is the number of the automaton's states, for tests and benchmarks.
func (m *Matcher) States() int { return len(m.states) }

// Start is the state before the first byte.
func (m *Matcher) Start() int32 { return 0 }

// Next is the automaton's transition from state s on byte c, taken as it is (Scan folds; a
// caller feeding bytes folds them itself).
func (m *Matcher) Next(s int32, c byte) int32 {
	for s != 0 {
		st := &m.states[s]
		for k := st.child; k < st.child+st.children; k++ {
			if b := m.label[k]; b >= c {
				if b == c {
					return k
				}
				break
			}
		}
		s = st.fail
	}
	return m.root[c]
}

// Ends reports whether a needle ends at state s: whether Hits would call
// its function at all.
func (m *Matcher) Ends(s int32) bool { return m.states[s].out != 0 }

// Hits calls hit with the id and the length of every needle that ends at state s, until hit
// returns false; it reports whether every call returned true.
func (m *Matcher) Hits(s int32, hit func(id int32, size int) bool) bool {
	for o := m.states[s].out; o != 0; o = m.states[m.states[o].fail].out {
		for _, id := range m.outIDs[m.outStart[o]:m.outStart[o+1]] {
			if !hit(id, int(m.size[o])) {
				return false
			}
		}
	}
	return true
}

// Scan calls hit for every occurrence of every needle in text, in the order the occurrences end,
// with the needle's id and the offset just past its end, until hit returns false.
func (m *Matcher) Scan(text string, hit func(id int32, end int) bool) {
	if m.Empty() {
		return
	}
	s := int32(0)
	for i := 0; i < len(text); i++ {
		if s == 0 {
			for i < len(text) && !m.starts[text[i]] {
				i++
			}
			if i == len(text) {
				return
			}
		}
		c := text[i]
		if m.fold && 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		s = m.Next(s, c)
		if m.states[s].out == 0 {
			continue
		}
		end := i + 1
		if !m.Hits(s, func(id int32, _ int) bool { return hit(id, end) }) {
			return
		}
	}
}

// Contains reports whether any needle occurs in text.
func (m *Matcher) Contains(text string) bool {
	found := false
	m.Scan(text, func(int32, int) bool {
		found = true
		return false
	})
	return found
}

func hasUpperASCII(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return 'A' <= r && r <= 'Z' }) >= 0
}
