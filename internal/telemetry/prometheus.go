package telemetry

import (
	"fmt"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// Prometheus is a pull endpoint for the service's metrics: the OpenTelemetry
// Prometheus exporter, on a registry of its own (not the client library's
// global one, which any imported package may fill), plus the Go runtime and
// process collectors that every Prometheus dashboard expects.
type Prometheus struct {
	// Reader goes to Setup (WithMetricReader).
	Reader sdkmetric.Reader
	// Handler serves the text exposition format; mount it at /metrics.
	Handler http.Handler
}

// NewPrometheus creates the exporter and its handler. OpenTelemetry names
// become Prometheus names as the specification says: dots become
// underscores, the unit is appended and counters end in _total, so
// toolfailure.classifications is toolfailure_classifications_total and
// toolfailure.classify.duration is toolfailure_classify_duration_seconds.
//
// The exporter's otel_scope_name, otel_scope_version and otel_scope_schema_url
// labels are left off: every instrument here comes from one meter
// (ScopeName), so the labels would repeat one value on every series and
// change every series' identity on each release (the version is the
// service's), which breaks dashboards and recording rules across upgrades.
func NewPrometheus() (*Prometheus, error) {
	reg := prometheus.NewRegistry()
	if err := reg.Register(collectors.NewGoCollector()); err != nil {
		return nil, fmt.Errorf("telemetry: prometheus: %w", err)
	}
	if err := reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})); err != nil {
		return nil, fmt.Errorf("telemetry: prometheus: %w", err)
	}
	exp, err := otelprom.New(otelprom.WithRegisterer(reg), otelprom.WithoutScopeInfo())
	if err != nil {
		return nil, fmt.Errorf("telemetry: prometheus exporter: %w", err)
	}
	return &Prometheus{
		Reader:  exp,
		Handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}),
	}, nil
}
