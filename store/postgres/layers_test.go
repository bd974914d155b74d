package postgres_test

import (
	"os/exec"
	"strings"
	"testing"
)

// A storage driver stores: it links neither the classifier nor the service's telemetry, which
// reach it only through options (WithTracer, WithBatchContext).
func TestDriverLinksNeitherClassifierNorTelemetry(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		switch dep {
		case "github.com/omcp/toolfailure/internal/classify", "github.com/omcp/toolfailure/internal/telemetry",
			"github.com/omcp/toolfailure/internal/ruleset":
			t.Errorf("store/postgres links %s", dep)
		}
	}
}
