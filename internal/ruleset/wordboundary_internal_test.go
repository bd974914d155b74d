package ruleset

import (
	"regexp/syntax"
	"testing"
	"unicode"
)

// Go's \b is a boundary between ASCII word characters and anything else,
// so a \b beside a letter outside ASCII ("\b(är|öffnet)", "(à|aux)\b")
// never sees the space before or after that letter: the alternative is
// dead wherever the word stands on its own. Such a pattern must bound the
// word with (^|[^\pL]) or ([^\pL]|$) instead.
func TestPackPatternsBoundNonASCIIWords(t *testing.T) {
	t.Parallel()
	for _, r := range packs().set.rules {
		if r.MessageMatches == "" {
			continue
		}
		re, err := syntax.Parse(r.MessageMatches, syntax.Perl)
		if err != nil {
			t.Fatalf("%s: %v", r.Name, err)
		}
		if l, ok := deadBoundary(re); ok {
			t.Errorf("%s: \\b beside %q, which is not an ASCII word character", r.Name, l)
		}
	}
}

func TestDeadBoundaryFindsNonASCIIWords(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]bool{
		`(?i)\b(beginnt|öffnet) um`:       true,
		`(?i)pas (en|à)\b`:                true,
		`(?i)(^|[^\pL])(beginnt|öffnet)`:  false,
		`(?i)\bplazo vencido\b`:           false,
		`(?i)\b(ist|est|è) (geschlossen)`: true,
		`(?i)\bfristen\b[^.]{0,9}är`:      false,
	} {
		re, err := syntax.Parse(p, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if _, got := deadBoundary(re); got != want {
			t.Errorf("deadBoundary(%q) = %v, want %v", p, got, want)
		}
	}
}

// deadBoundary finds a \b whose neighbour in a concatenation can begin
// (after it) or end (before it) with a letter outside ASCII.
func deadBoundary(re *syntax.Regexp) (rune, bool) {
	if re.Op == syntax.OpConcat {
		for i, s := range re.Sub {
			if s.Op != syntax.OpWordBoundary {
				continue
			}
			if i+1 < len(re.Sub) {
				if l, ok := edgeLetter(re.Sub[i+1], true); ok {
					return l, true
				}
			}
			if i > 0 {
				if l, ok := edgeLetter(re.Sub[i-1], false); ok {
					return l, true
				}
			}
		}
	}
	for _, s := range re.Sub {
		if l, ok := deadBoundary(s); ok {
			return l, true
		}
	}
	return 0, false
}

// edgeLetter reports a letter outside ASCII with which re can begin
// (first) or end (!first). Character classes are left out: a class that
// holds such letters usually holds ASCII ones too.
func edgeLetter(re *syntax.Regexp, first bool) (rune, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return 0, false
		}
		l := re.Rune[len(re.Rune)-1]
		if first {
			l = re.Rune[0]
		}
		return l, l > unicode.MaxASCII && unicode.IsLetter(l)
	case syntax.OpCapture, syntax.OpQuest, syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		return edgeLetter(re.Sub[0], first)
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if l, ok := edgeLetter(s, first); ok {
				return l, true
			}
		}
	case syntax.OpConcat:
		if len(re.Sub) == 0 {
			return 0, false
		}
		if first {
			return edgeLetter(re.Sub[0], true)
		}
		return edgeLetter(re.Sub[len(re.Sub)-1], false)
	}
	return 0, false
}
