// Package librarybench compares package literal's automaton with the Go Aho-Corasick libraries on
// the needles the service really searches for: those of the baseline packs. It is a module of its
// own so that the libraries stay out of the service's module; it has benchmarks only:
//
//	cd internal/literal/librarybench && go test -run '^$' -bench . -benchmem
//
// Each benchmark reports the heap its automaton holds (heap-bytes) next to the time to scan one
// message for every needle it contains.
package librarybench

import (
	"regexp/syntax"
	"runtime"
	"testing"

	bobu "github.com/BobuSumisu/aho-corasick"
	coregx "github.com/coregx/ahocorasick"
	petar "github.com/petar-dambovaliev/aho-corasick"

	"github.com/omcp/toolfailure/internal/literal"
	"github.com/omcp/toolfailure/internal/ruleset"
)

// packNeedles are the needles of every pack rule's messageMatches, found branch by branch as the
// rule index finds them.
func packNeedles(tb testing.TB) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range ruleset.BaselinePackRules() {
		if r.MessageMatches == "" {
			continue
		}
		re, err := syntax.Parse(r.MessageMatches, syntax.Perl)
		if err != nil {
			tb.Fatal(err)
		}
		top := re
		for top.Op == syntax.OpCapture {
			top = top.Sub[0]
		}
		subs := []*syntax.Regexp{re}
		if top.Op == syntax.OpAlternate {
			subs = top.Sub
		}
		for _, sub := range subs {
			set := literal.ExactSet(sub.String())
			if set == nil {
				set = literal.Necessary(sub.String())
			}
			for _, n := range set {
				if !seen[n] {
					seen[n] = true
					out = append(out, n)
				}
			}
		}
	}
	if len(out) == 0 {
		tb.Fatal("no pack needles")
	}
	return out
}

// message is a typical failure, folded as the packs' needles are.
var message = literal.Fold(`Error: request to https://api.example.com/v1/messages failed with status 429 Too Many Requests: ` +
	`rate limit exceeded for organization org-123, please retry after 20 seconds (request id req_abc123)`)

func heap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// bench builds an automaton with build, reports the heap it holds, and times scan.
func bench[T any](b *testing.B, build func([]string) T, scan func(T, string) int) {
	needles := packNeedles(b)
	before := heap()
	a := build(needles)
	held := heap() - before
	if scan(a, message) == 0 {
		b.Fatal("found no needle in the message")
	}
	b.ResetTimer()
	for b.Loop() {
		scan(a, message)
	}
	b.ReportMetric(float64(held), "heap-bytes")
	b.ReportMetric(float64(len(needles)), "needles")
	runtime.KeepAlive(a)
}

func BenchmarkLiteral(b *testing.B) {
	bench(b, func(ns []string) *literal.Matcher {
		var bl literal.Builder
		for i, n := range ns {
			bl.Add(n, int32(i))
		}
		return bl.Build(literal.Exact)
	}, func(m *literal.Matcher, s string) int {
		n := 0
		m.Scan(s, func(int32, int) bool { n++; return true })
		return n
	})
}

func BenchmarkPetarNFA(b *testing.B) { benchPetar(b, false) }
func BenchmarkPetarDFA(b *testing.B) { benchPetar(b, true) }

func benchPetar(b *testing.B, dfa bool) {
	bench(b, func(ns []string) petar.AhoCorasick {
		builder := petar.NewAhoCorasickBuilder(petar.Opts{MatchKind: petar.StandardMatch, DFA: dfa})
		return builder.Build(ns)
	}, func(ac petar.AhoCorasick, s string) int {
		n := 0
		it := ac.IterOverlapping(s)
		for m := it.Next(); m != nil; m = it.Next() {
			n++
		}
		return n
	})
}

func BenchmarkCoregx(b *testing.B) {
	bench(b, func(ns []string) *coregx.Automaton {
		a, err := coregx.NewBuilder().AddStrings(ns).Build()
		if err != nil {
			b.Fatal(err)
		}
		return a
	}, func(a *coregx.Automaton, s string) int { return len(a.FindAllOverlapping([]byte(s))) })
}

func BenchmarkBobuSumisu(b *testing.B) {
	bench(b, func(ns []string) *bobu.Trie { return bobu.NewTrieBuilder().AddStrings(ns).Build() },
		func(t *bobu.Trie, s string) int {
			n := 0
			t.Walk([]byte(s), func(int64, int64, int64) bool { n++; return true })
			return n
		})
}
