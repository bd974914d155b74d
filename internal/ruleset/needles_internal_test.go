package ruleset

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/internal/literal"
	"github.com/omcp/toolfailure/internal/racetest"
)

// The needle prefilter may only skip a rule that cannot match: for every
// pack pattern and for hand-written ones, any message the pattern matches
// holds one of its needles, and the index finds it.
func TestNeedlesAreSound(t *testing.T) {
	t.Parallel()
	patterns := []string{
		`(?i)(not available (on|in) your plan|upgrade (your )?plan)`,
		`(?i)log ?in (attempt )?failed`,
		`(?i)api[ _-]?key (is )?(missing|invalid)|api[ _-]?key[^.]{0,30} (is|was) invalid`,
		`(?i)STRASSE|ſtrasse`,
		`^(a+)+$`,
		`certificate[ _-]?verify[ _-]?failed`,
	}
	handWritten := len(patterns) // checked whole under the race detector too
	for _, r := range packs().set.rules {
		if r.MessageMatches != "" {
			patterns = append(patterns, r.MessageMatches)
		}
	}
	rng := rand.New(rand.NewPCG(7, 9))
	for k, p := range patterns {
		if k >= handWritten && !racetest.Sample(k) {
			continue
		}
		re := regexp.MustCompile(p)
		needles := literal.Necessary(p)
		if needles == nil {
			continue
		}
		for _, n := range needles {
			if len(n) < literal.MinNeedleLen || n != literal.Fold(n) {
				t.Errorf("%q: needle %q is short or not folded", p, n)
			}
		}
		// Messages the pattern matches: its needles' own contexts, case
		// changed at random, padded with noise.
		for _, n := range needles {
			for range 3 {
				m := mutateCase(rng, "xx "+n+" yy")
				if !re.MatchString(m) {
					continue // a needle alone need not match the whole pattern
				}
				if !literal.ContainsAny(literal.Fold(m), needles) {
					t.Errorf("%q matches %q, but no needle is found", p, m)
				}
			}
		}
	}
	// The native evaluation (branches, needle index) agrees with the
	// whole pattern on messages that hold each rule's needles, and on
	// others.
	set := packs().set
	common := []string{"Login failed for user 'app'", "SSL certificate problem: unable to get local issuer certificate",
		"upstream returned 503 Service Unavailable", "Your plan does not include API access", strings.Repeat("é", 100), ""}
	for i, r := range set.rules {
		if r.msg == nil || !racetest.Sample(i) {
			continue
		}
		// The common messages, and this rule's own needles in context (a
		// rule is tested against messages that reach its branches).
		msgs := append([]string(nil), common...)
		for _, b := range r.msg.branches {
			for _, n := range b.needles[:min(2, len(b.needles))] {
				msgs = append(msgs, mutateCase(rng, "error: "+strings.ToLower(n)+" (code 7)"))
			}
		}
		re := regexp.MustCompile(r.MessageMatches)
		for _, m := range msgs {
			a := newActivation(&classify.Input{Error: classify.RawError{Message: m}})
			if got, want := a.messageMatches(set, int32(i)), re.MatchString(m); got != want {
				t.Errorf("%s on %q: native %v, pattern %v", r.Name, m, got, want)
			}
			if got, want := r.msg.matchString(m), re.MatchString(m); got != want {
				t.Errorf("%s on %q: matchString %v, pattern %v", r.Name, m, got, want)
			}
		}
	}
}

func mutateCase(rng *rand.Rand, s string) string {
	b := []rune(s)
	for i, r := range b {
		if rng.IntN(2) == 0 {
			b[i] = []rune(strings.ToUpper(string(r)))[0]
		}
	}
	return string(b)
}

// For a pattern that is a set of phrases, the needle search decides alone:
// it must agree with the regular expression both ways.
func TestLiteralSetsDecideExactly(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 5))
	patterns := []string{`(?i)(not available (on|in) your plan|upgrade (your )?plan)`, `(?i)STRASSE|ſtrasse|Kelvin`}
	handWritten := len(patterns) // checked whole under the race detector too
	for _, r := range packs().set.rules {
		if r.MessageMatches != "" {
			patterns = append(patterns, r.MessageMatches)
		}
	}
	decided := 0
	for k, p := range patterns {
		if k >= handWritten && !racetest.Sample(k) {
			continue
		}
		set := literal.ExactSet(p)
		if set == nil {
			continue
		}
		decided++
		re := regexp.MustCompile(p)
		msgs := []string{"nothing to see here", "", strings.Repeat("x", 50)}
		for _, n := range set {
			msgs = append(msgs, "a "+n+" b", n[:len(n)-1], mutateCase(rng, n))
		}
		for _, m := range msgs {
			if got, want := literal.ContainsAny(literal.Fold(m), set), re.MatchString(m); got != want {
				t.Errorf("%q on %q: the phrases say %v, the pattern %v", p, m, got, want)
			}
		}
	}
	if decided == 0 {
		t.Fatal("no pattern is a set of phrases")
	}
}

// The automaton marks exactly the branches one of whose needles the folded
// message contains: checked against a plain substring search on messages
// made of needles' pieces, overlapping needles, mixed case, non-ASCII text
// and invalid UTF-8.
func TestNeedleIndexFindsExactlyTheNeedles(t *testing.T) {
	t.Parallel()
	set := packs().set
	type ref struct {
		rule    int32
		needles []string
	}
	var branches []ref
	var all []string
	for i, r := range set.rules {
		// Its messageMatches branches, then its guard's, which mark no rule.
		matchers := r.guardLeaves
		if r.msg != nil {
			matchers = append([]*messageMatcher{r.msg}, matchers...)
		}
		for k, m := range matchers {
			rule := int32(i)
			if k > 0 || r.msg == nil {
				rule = -1
			}
			for _, b := range m.branches {
				branches = append(branches, ref{rule, b.needles})
				all = append(all, b.needles...)
			}
		}
	}
	if len(branches) != set.needles.branches {
		t.Fatalf("%d branches, the index has %d", len(branches), set.needles.branches)
	}
	rng := rand.New(rand.NewPCG(11, 13))
	noise := []string{" ", "é", "ſ", "K", "\xff", "日本", "x", "-", "0", "Straße"}
	for range racetest.Rounds(3000) {
		var b strings.Builder
		for range 1 + rng.IntN(4) {
			n := all[rng.IntN(len(all))]
			switch rng.IntN(3) {
			case 0: // a piece of it
				n = n[:rng.IntN(len(n)+1)]
			case 1: // its end, where another needle may start
				n = n[rng.IntN(len(n)):]
			}
			b.WriteString(mutateCase(rng, strings.ToLower(n)))
			b.WriteString(noise[rng.IntN(len(noise))])
		}
		m := b.String()
		seen := make([]uint64, (len(branches)+63)/64)
		rules := make([]uint64, (len(set.rules)+63)/64)
		set.needles.scan(m, seen, rules)
		folded := literal.Fold(m)
		wantRules := make([]uint64, len(rules))
		for id, br := range branches {
			want := br.needles != nil && literal.ContainsAny(folded, br.needles)
			if got := seen[id>>6]&(1<<(id&63)) != 0; got != want {
				t.Fatalf("%q: branch %d: marked %v, its needles are there: %v", m, id, got, want)
			}
			if want && br.rule >= 0 {
				wantRules[br.rule>>6] |= 1 << (br.rule & 63)
			}
		}
		if !slices.Equal(rules, wantRules) {
			t.Fatalf("%q: rules marked %x, want %x", m, rules, wantRules)
		}
	}
}

// Every pack pattern has needles: a pattern without them runs on every
// message that reaches the packs, which the index exists to avoid.
func TestEveryPackPatternHasNeedles(t *testing.T) {
	t.Parallel()
	for _, r := range packs().set.rules {
		if r.MessageMatches != "" && literal.Necessary(r.MessageMatches) == nil {
			t.Errorf("pack rule %s: its messageMatches has no literal that every match contains", r.Name)
		}
	}
}
