package ruleset

import (
	"cmp"
	"slices"
	"strings"
	"sync"

	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/internal/literal"
)

// NearRule is a pack rule that shares literal text with a message its
// pattern does not match, for suggesting a class and code for errors that
// no rule knows.
type NearRule struct {
	Rule Rule
	// Shared is the longest of the rule's literals that the message
	// holds (lower case).
	Shared string
}

// minShared is the shortest shared literal that counts, and it must hold
// two words: single words ("missing", "exceeded") are in too many
// messages to say anything.
const minShared = 10

// packLiterals are the literals worth sharing (trimmed, folded) of every
// pack rule's messageMatches, by rule position, computed once.
var packLiterals = sync.OnceValue(func() [][]string {
	st := packs()
	out := make([][]string, len(st.set.rules))
	for i, r := range st.set.rules {
		if r.MessageMatches == "" {
			continue
		}
		for _, nd := range literal.Necessary(r.MessageMatches) {
			if nd = strings.TrimSpace(nd); len(nd) >= minShared && strings.Contains(nd, " ") {
				out[i] = append(out[i], nd)
			}
		}
	}
	return out
})

// NearestPackRules returns up to n pack rules whose messageMatches
// literals occur in msg although the pattern does not match it, nearest
// first (the longest shared literal; then evaluation order). A literal
// that every match of a rule must contain is the rule's own vocabulary:
// sharing a long one says the message is of the rule's family, worded
// in a way the pattern does not foresee.
func NearestPackRules(msg string, n int) []NearRule {
	if n <= 0 || msg == "" {
		return nil
	}
	folded := literal.Fold(msg)
	st := packs()
	// The rules' own matchers (needle index and branches) say whether
	// the pattern matches, as when the packs classify.
	a := newActivation(&classify.Input{Error: classify.RawError{Message: msg}})
	var near []NearRule
	for i, literals := range packLiterals() {
		best := ""
		for _, nd := range literals {
			if len(nd) > len(best) && strings.Contains(folded, nd) {
				best = nd
			}
		}
		if best != "" && !a.messageMatches(st.set, int32(i)) {
			near = append(near, NearRule{Rule: st.set.rules[i].Rule, Shared: strings.ToLower(best)})
		}
	}
	slices.SortStableFunc(near, func(a, b NearRule) int { return cmp.Compare(len(b.Shared), len(a.Shared)) })
	return near[:min(n, len(near))]
}
