package fingerprint

import (
	"regexp"
	"testing"
)

// TestPatternMatchesItsGroup checks, over the labelled set, that the pattern of each record's
// template matches every record of its true group and no record of a group with another template
// and the same tool and type (the type is a condition of its own in a suggested rule).
func TestPatternMatchesItsGroup(t *testing.T) {
	set := labelledSet(6)
	byGroup := map[int][]labelled{}
	for _, l := range set {
		byGroup[l.group] = append(byGroup[l.group], l)
	}
	for g, recs := range byGroup {
		p := Pattern(Template(recs[0].in.Message))
		re, err := regexp.Compile(p)
		if err != nil {
			t.Fatalf("group %d: pattern %q does not compile: %v", g, p, err)
		}
		for _, r := range recs {
			if !re.MatchString(r.in.Message) {
				t.Errorf("group %d: %q does not match its own pattern %q", g, r.in.Message, p)
			}
		}
		for h, others := range byGroup {
			o := others[0]
			if h == g || o.in.Tool != recs[0].in.Tool || o.in.Type != recs[0].in.Type || Template(o.in.Message) == Template(recs[0].in.Message) {
				continue
			}
			if re.MatchString(o.in.Message) {
				t.Errorf("group %d's pattern %q matches %q of group %d", g, p, o.in.Message, h)
			}
		}
	}
}

func TestPatternEmpty(t *testing.T) {
	if Pattern("") != "" {
		t.Fatal("the pattern of an empty template is not empty")
	}
}
