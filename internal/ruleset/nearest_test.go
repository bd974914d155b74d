package ruleset_test

import (
	"testing"

	"github.com/omcp/toolfailure/internal/ruleset"
)

// A message that holds a pack rule's own words in a wording its pattern
// does not foresee is near that rule; one that the pattern matches, or
// that shares only a common word, is near none.
func TestNearestPackRules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		msg, rule, shared string
	}{
		{"Cannot query field on this schema right now", "invalid.graphql-document", "cannot query field"},
		{"order 55 stuck: string to replace was ambiguous", "invalid.edit-no-match", "string to replace"},
		{"the storage cap exceeded threshold warning", "", ""}, // the rule matches: it decides, it is not near
		{"vhost missing for tenant", "", ""},                   // "missing" alone says nothing
		{"", "", ""},
	}
	for _, c := range cases {
		near := ruleset.NearestPackRules(c.msg, 3)
		switch {
		case c.rule == "" && len(near) > 0 && near[0].Shared != "":
			for _, n := range near {
				if n.Rule.Name == "datastores.storage-quota" || len(n.Shared) < 10 {
					t.Errorf("%q: near %s (shares %q), want neither a matching rule nor a single word", c.msg, n.Rule.Name, n.Shared)
				}
			}
		case c.rule != "" && (len(near) == 0 || near[0].Rule.Name != c.rule || near[0].Shared != c.shared):
			t.Errorf("%q: nearest %+v, want %s sharing %q", c.msg, near, c.rule, c.shared)
		}
	}
	if got := ruleset.NearestPackRules("Cannot query field on this schema", 0); got != nil {
		t.Errorf("n = 0: %v", got)
	}
}
