package literal_test

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/omcp/toolfailure/internal/literal"
)

func ExampleBuilder() {
	var b literal.Builder
	b.Add("rate limit", 1)
	b.Add("quota", 2)
	m := b.Build(literal.FoldASCII)
	m.Scan("Rate Limit exceeded; QUOTA left: 0", func(id int32, end int) bool {
		fmt.Println(id, end)
		return true
	})
	// Output:
	// 1 10
	// 2 26
}

type hit struct {
	id  int32
	end int
}

// naive finds what Scan must find: every occurrence of every needle, with each of its ids, in
// the order the occurrences end (ids of one end position in any order).
func naive(needles map[string][]int32, text string, fold bool) []hit {
	if fold {
		var b strings.Builder
		for i := 0; i < len(text); i++ {
			c := text[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b.WriteByte(c)
		}
		text = b.String()
	}
	var out []hit
	for end := 1; end <= len(text); end++ {
		for n, ids := range needles {
			if len(n) <= end && text[end-len(n):end] == n {
				for _, id := range ids {
					out = append(out, hit{id, end})
				}
			}
		}
	}
	return out
}

func sorted(h []hit) []hit {
	slices.SortFunc(h, func(a, b hit) int {
		if a.end != b.end {
			return a.end - b.end
		}
		return int(a.id - b.id)
	})
	return h
}

// Scan finds exactly the occurrences a naive search finds, on random needles over a small
// alphabet (so that needles overlap, nest and share prefixes and suffixes) and random texts.
func TestScanFindsEveryOccurrence(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 5))
	for _, c := range []literal.Case{literal.Exact, literal.FoldASCII} {
		alphabet := "abcab \xc5\xbf"
		textAlphabet := alphabet + "ABC"
		for round := range 300 {
			needles := map[string][]int32{}
			var b literal.Builder
			for range 1 + rng.IntN(12) {
				n := randomString(rng, alphabet, 1+rng.IntN(5))
				id := int32(rng.IntN(8))
				if !slices.Contains(needles[n], id) {
					needles[n] = append(needles[n], id)
				}
				b.Add(n, id)
			}
			m := b.Build(c)
			for range 20 {
				text := randomString(rng, textAlphabet, rng.IntN(40))
				var got []hit
				m.Scan(text, func(id int32, end int) bool {
					got = append(got, hit{id, end})
					return true
				})
				want := naive(needles, text, c == literal.FoldASCII)
				if !slices.Equal(sorted(got), sorted(want)) {
					t.Fatalf("round %d, case %v, needles %q, text %q:\n got %v\nwant %v", round, c, needles, text, got, want)
				}
				if m.Contains(text) != (len(want) > 0) {
					t.Fatalf("Contains(%q) = %v with needles %q", text, !(len(want) > 0), needles)
				}
			}
		}
	}
}

func randomString(rng *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

// Hits reports each needle's length, so that a caller feeding bytes itself knows where the
// needle began; a false from the callback stops Scan at once.
func TestHitsAndStop(t *testing.T) {
	t.Parallel()
	var b literal.Builder
	b.Add("abc", 1)
	b.Add("bc", 2)
	b.Add("c", 3)
	m := b.Build(literal.Exact)
	s := m.Start()
	for _, c := range []byte("xabc") {
		s = m.Next(s, c)
	}
	sizes := map[int32]int{}
	m.Hits(s, func(id int32, size int) bool {
		sizes[id] = size
		return true
	})
	if want := map[int32]int{1: 3, 2: 2, 3: 1}; fmt.Sprint(sizes) != fmt.Sprint(want) {
		t.Errorf("Hits after xabc: %v, want %v", sizes, want)
	}
	calls := 0
	m.Scan("abcabc", func(int32, int) bool {
		calls++
		return false
	})
	if calls != 1 {
		t.Errorf("Scan went on after the callback returned false: %d calls", calls)
	}
}

func TestEmptyAndCase(t *testing.T) {
	t.Parallel()
	var none literal.Builder
	none.Add("", 1) // ignored: an empty needle would match everywhere
	if m := none.Build(literal.Exact); !m.Empty() || m.Contains("anything") {
		t.Error("a matcher without needles finds something")
	}
	var b literal.Builder
	b.Add("akia", 1)
	if !b.Build(literal.FoldASCII).Contains("key AKIA123") {
		t.Error("FoldASCII does not ignore the text's case")
	}
	if b.Build(literal.Exact).Contains("key AKIA123") {
		t.Error("Exact ignores the text's case")
	}
	defer func() {
		if recover() == nil {
			t.Error("FoldASCII accepted an upper-case needle, which could never match")
		}
	}()
	var upper literal.Builder
	upper.Add("AKIA", 1)
	upper.Build(literal.FoldASCII)
}

// Every string a pattern matches holds one of its necessary literals, folded.
func TestNecessaryIsSound(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 13))
	for _, p := range []string{
		`(?i)(not available (on|in) your plan|upgrade (your )?plan)`,
		`(?i)api[ _-]?key (is )?(missing|invalid)`,
		`certificate[ _-]?verify[ _-]?failed`,
		`(?i)STRASSE|ſtrasse`,
		`quota (exceeded|exhausted)[0-9]*`,
	} {
		re := regexp.MustCompile(p)
		needles := literal.Necessary(p)
		if len(needles) == 0 {
			t.Fatalf("%q: no needles", p)
		}
		for _, n := range needles {
			if len(n) < literal.MinNeedleLen || n != literal.Fold(n) {
				t.Errorf("%q: needle %q is short or not folded", p, n)
			}
			m := mutateCase(rng, "xx "+n+" yy")
			if re.MatchString(m) && !literal.ContainsAny(literal.Fold(m), needles) {
				t.Errorf("%q matches %q, but no needle is in it", p, m)
			}
		}
	}
	if n := literal.Necessary(`[0-9]+`); n != nil {
		t.Errorf("a pattern without literals got needles %q", n)
	}
}

func mutateCase(rng *rand.Rand, s string) string {
	b := []byte(s)
	for i, c := range b {
		if rng.IntN(2) == 0 {
			if 'a' <= c && c <= 'z' {
				b[i] = c - 'a' + 'A'
			} else if 'A' <= c && c <= 'Z' {
				b[i] = c + 'a' - 'A'
			}
		}
	}
	return string(b)
}
