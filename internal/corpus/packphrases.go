package corpus

import (
	"regexp/syntax"
	"slices"
	"strings"

	"github.com/omcp/toolfailure/internal/ruleset"
)

// Phrases of the baseline packs as training text. The packs are what the
// service knows about how systems word failures (internal/ruleset/packs), written
// as patterns; the phrases their patterns spell out, each labelled with
// its rule's class and code, teach the text model the same vocabulary —
// words, stems and character n-grams in many languages — so that it reads
// a new phrasing that shares words with a known one, which a pattern
// cannot. They are not corpus cases and belong to no system, so every
// leave-system-out fold trains on them.

// Bounds on what one pattern contributes: enough phrases to cover its
// vocabulary, not so many that one long alternation outweighs the corpus.
const (
	maxPhrasesPerRule = 48
	maxExpansion      = 256 // strings one sub-pattern may expand to
	minPhraseLetters  = 4
)

type packPhrase struct {
	text  string
	label string // class/code
}

// packPhrases returns the phrases of every pack rule that has a message
// pattern, in pack order, at most maxPhrasesPerRule a rule, picked evenly
// from the rule's expansion.
func packPhrases() []packPhrase {
	var out []packPhrase
	for _, r := range ruleset.BaselinePackRules() {
		if r.MessageMatches == "" || r.Then.Code == "" {
			continue
		}
		re, err := syntax.Parse(r.MessageMatches, syntax.Perl)
		if err != nil {
			continue
		}
		// Simplified, a bounded gap ("[^.]{0,40}") spells out once for
		// each length it allows, so the longest patterns pass
		// maxExpansion and give no phrases. That is kept on purpose:
		// their phrases, let in, lowered grouped cross-validation
		// (docs/classification.md, "The text model").
		all, ok := expand(re.Simplify())
		if !ok {
			continue
		}
		var ps []string
		for _, p := range all {
			p = strings.Join(strings.Fields(p), " ")
			if letters(p) >= minPhraseLetters && !slices.Contains(ps, p) {
				ps = append(ps, p)
			}
		}
		step := max(1, (len(ps)+maxPhrasesPerRule-1)/maxPhrasesPerRule)
		label := string(r.Then.Class) + "/" + r.Then.Code
		for i := 0; i < len(ps); i += step {
			out = append(out, packPhrase{text: ps[i], label: label})
		}
	}
	return out
}

func letters(s string) int {
	n := 0
	for _, r := range s {
		if r > ' ' && !strings.ContainsRune("0123456789.,;:!?()[]{}'\"-_/\\", r) {
			n++
		}
	}
	return n
}

// expand spells out the strings a pattern matches, with every gap (a
// repetition, an arbitrary character, a large class) left out and every
// optional part both taken and left. It reports false when the
// expansion would pass maxExpansion.
func expand(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}, true
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return []string{""}, true
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL, syntax.OpStar:
		return []string{" "}, true
	case syntax.OpCharClass:
		// A small class of letters ("[sz]", "[eé]") is a spelling
		// variant: take its first member. Anything wider is a gap.
		if len(re.Rune) == 2 && re.Rune[0] == re.Rune[1] || len(re.Rune) <= 4 && re.Rune[0] > '9' {
			return []string{strings.ToLower(string(re.Rune[0]))}, true
		}
		return []string{" "}, true
	case syntax.OpCapture:
		return expand(re.Sub[0])
	case syntax.OpQuest:
		sub, ok := expand(re.Sub[0])
		if !ok {
			return nil, false
		}
		return append([]string{""}, sub...), len(sub)+1 <= maxExpansion
	case syntax.OpPlus:
		return expand(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min == 0 {
			return []string{" "}, true
		}
		return expand(re.Sub[0])
	case syntax.OpAlternate:
		var out []string
		for _, s := range re.Sub {
			sub, ok := expand(s)
			if !ok || len(out)+len(sub) > maxExpansion {
				return nil, false
			}
			out = append(out, sub...)
		}
		return out, true
	case syntax.OpConcat:
		out := []string{""}
		for _, s := range re.Sub {
			sub, ok := expand(s)
			if !ok || len(out)*len(sub) > maxExpansion {
				return nil, false
			}
			next := make([]string, 0, len(out)*len(sub))
			for _, a := range out {
				for _, b := range sub {
					next = append(next, a+b)
				}
			}
			out = next
		}
		return out, true
	}
	return nil, false
}
