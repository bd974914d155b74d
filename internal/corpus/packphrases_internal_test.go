package corpus

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"testing"
)

// The expansion spells out the alternatives of a pattern, takes and
// leaves optional parts, and leaves gaps out; every phrase it gives is
// matched by the pattern it came from, once gaps are filled.
func TestExpand(t *testing.T) {
	re, err := syntax.Parse(`(?i)(unknown|unsupported) (api )?(method|tool)s?\b`, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := expand(re.Simplify())
	if !ok {
		t.Fatal("not expanded")
	}
	for _, want := range []string{"unknown method", "unsupported api tool", "unknown tools"} {
		if !slices.Contains(got, want) {
			t.Errorf("expansion lacks %q: %q", want, got)
		}
	}
	pat := regexp.MustCompile(`(?i)(unknown|unsupported) (api )?(method|tool)s?\b`)
	for _, p := range got {
		if !pat.MatchString(p) {
			t.Errorf("%q does not match its pattern", p)
		}
	}
}

// The packs give phrases, each with a model label, and no rule more than
// its share.
func TestPackPhrases(t *testing.T) {
	ps := packPhrases()
	if len(ps) < 500 {
		t.Fatalf("%d pack phrases; the packs hold thousands", len(ps))
	}
	for _, p := range ps {
		if _, ok := labelIndex(p.label); !ok {
			t.Errorf("%q: label %s is not a model label", p.text, p.label)
		}
		if letters(p.text) < minPhraseLetters {
			t.Errorf("%q: too short to teach anything", p.text)
		}
	}
}
