package mcpproxy_test

import (
	"testing"

	"github.com/omcp/toolfailure/internal/deptest"
)

// The proxy asks the service to classify; it names a class (internal/class) but does not link the
// classifier or the rule engine.
func TestProxyDoesNotLinkTheClassifier(t *testing.T) {
	t.Parallel()
	deptest.Forbid(t, "github.com/omcp/toolfailure/internal/classify", "github.com/omcp/toolfailure/internal/ruleset")
}
