package postgres_test

import (
	"testing"

	"github.com/omcp/toolfailure/internal/deptest"
)

// A storage driver stores: it links neither the classifier nor the service's telemetry, which
// reach it only through options (WithTracer, WithBatchContext).
func TestDriverLinksNeitherClassifierNorTelemetry(t *testing.T) {
	t.Parallel()
	deptest.Forbid(t, "github.com/omcp/toolfailure/internal/classify", "github.com/omcp/toolfailure/internal/ruleset",
		"github.com/omcp/toolfailure/internal/telemetry")
}
