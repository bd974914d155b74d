package telemetry_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"connectrpc.com/connect/v2"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/telemetry"
)

// TestPrometheusSeriesCarryNoScopeLabels scrapes /metrics after a real RPC
// through the interceptor: the series carry the metric's own labels and none
// of the exporter's otel_scope_* labels, whose version value would change
// every series' identity on each release.
func TestPrometheusSeriesCarryNoScopeLabels(t *testing.T) {
	t.Parallel()
	prom, err := telemetry.NewPrometheus()
	if err != nil {
		t.Fatal(err)
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(prom.Reader))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	inst, err := telemetry.New(telemetry.Config{
		TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: mp,
		Propagator: propagation.TraceContext{},
	})
	if err != nil {
		t.Fatal(err)
	}
	client := serve(t, inst, explainer{err: connect.NewError(connect.CodeUnavailable, "store down")})
	if _, err := client.Explain(t.Context(), &v1.ExplainRequest{}); connect.CodeOf(err) != connect.CodeUnavailable {
		t.Fatalf("Explain: %v", err)
	}

	srv := httptest.NewServer(prom.Handler)
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatalf("scrape /metrics: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read /metrics: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics answered %s: %s", resp.Status, body)
	}
	var series []string
	for line := range strings.Lines(string(body)) {
		if strings.HasPrefix(line, "rpc_server_duration_milliseconds_count{") {
			series = append(series, line)
		}
		if strings.Contains(line, "otel_scope_") {
			t.Errorf("a series carries an otel_scope_ label: %s", strings.TrimSpace(line))
		}
	}
	// The RPC's own series must be there, or the check above saw nothing.
	if len(series) != 1 || !strings.Contains(series[0], `rpc_method="Explain"`) {
		t.Fatalf("rpc_server_duration_milliseconds_count series = %q, want one for Explain; scrape:\n%s", series, body)
	}
}
