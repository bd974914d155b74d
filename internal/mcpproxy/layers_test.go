package mcpproxy_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The proxy asks the service to classify; it names a class (internal/class) but does not link the
// classifier or the rule engine.
func TestProxyDoesNotLinkTheClassifier(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		switch dep {
		case "github.com/omcp/toolfailure/internal/classify", "github.com/omcp/toolfailure/internal/ruleset":
			t.Errorf("the proxy links %s", dep)
		}
	}
}
