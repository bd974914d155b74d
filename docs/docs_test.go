// The docs directory holds the project's reference pages; its test keeps the
// tables that mirror data in the code in step with that data.
package docs_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/internal/redact"
)

func TestReferenceListsEveryPatternAndRule(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("reference.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, p := range redact.Patterns() {
		if !strings.Contains(doc, "| `"+p.Kind+"` |") {
			t.Errorf("docs/reference.md does not list the redaction kind %q", p.Kind)
		}
	}
	for _, r := range classify.BaselineRules() {
		if !strings.Contains(doc, "| `"+r.ID+"` |") {
			t.Errorf("docs/reference.md does not list the baseline rule %q", r.ID)
		}
	}
	if d := classify.Default(time.Time{}); !strings.Contains(doc, d.AgentGuidance) || d.RuleID != classify.DefaultRuleID {
		t.Errorf("docs/reference.md does not show the default outcome's guidance %q", d.AgentGuidance)
	}
}
