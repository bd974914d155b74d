package server_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connecthttp"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/gen/toolfailure/v1/toolfailurev1connect"
	"github.com/omcp/toolfailure/internal/apikey"
	"github.com/omcp/toolfailure/internal/telemetry"
	"github.com/omcp/toolfailure/server"
	"github.com/omcp/toolfailure/store/postgres"
)

// TestTelemetry checks the wiring of the telemetry package into the real
// handlers: the Classify span joins the trace of the body's traceparent,
// carries the outcome, has the store's INSERT under it, the record keeps the
// trace, and GetFailure links to it. The export over OTLP is tested in the
// telemetry package.
func TestTelemetry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	inst, err := telemetry.New(telemetry.Config{TracerProvider: tp, MeterProvider: mp, Propagator: propagation.TraceContext{}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := postgres.Open(ctx, migrated(t), postgres.WithTracer(inst.PgxTracer()), postgres.WithBatchContext(telemetry.WithStoreBatch))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	key := mkKey(t, s, "acme", apikey.ScopeReport, apikey.ScopeLookup)
	tmpl, err := telemetry.ParseTraceURLTemplate("https://jaeger.example.test/trace/{trace_id}")
	if err != nil {
		t.Fatal(err)
	}
	h, err := server.New(server.Config{Store: s, Telemetry: inst, TraceURL: tmpl})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	client := connect.NewClient(connecthttp.NewTransport(srv.Client(), srv.URL), bearer(key))

	const trace, parent = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	status := int32(503)
	res, err := toolfailurev1connect.NewClassifierServiceClient(client).Classify(ctx, &v1.ClassifyRequest{
		Tool: "send_email", Error: &v1.RawError{Message: "upstream unavailable", HttpStatus: &status},
		Traceparent: "00-" + trace + "-" + parent + "-01",
	})
	if err != nil {
		t.Fatalf("Classify: %v", err)
	}
	id := res.GetToolFailure().GetCorrelationId()
	got, err := toolfailurev1connect.NewFailureServiceClient(client).GetFailure(ctx, &v1.GetFailureRequest{CorrelationId: id})
	if err != nil {
		t.Fatalf("GetFailure: %v", err)
	}
	if f := got.GetFailure(); f.GetTraceId() != trace || f.GetTraceUrl() != "https://jaeger.example.test/trace/"+trace {
		t.Errorf("record trace %q, link %q", f.GetTraceId(), f.GetTraceUrl())
	}

	var classifySpan sdktrace.ReadOnlySpan
	for _, sp := range spans.Ended() {
		if sp.Name() == "classify send_email" {
			classifySpan = sp
		}
	}
	if classifySpan == nil {
		t.Fatal("no Classify span")
	}
	if classifySpan.SpanContext().TraceID().String() != trace || classifySpan.Parent().SpanID().String() != parent {
		t.Errorf("Classify span in trace %s under %s, want %s under %s",
			classifySpan.SpanContext().TraceID(), classifySpan.Parent().SpanID(), trace, parent)
	}
	want := map[string]string{
		"toolfailure.correlation_id": id,
		"toolfailure.class":          "reliability",
		"toolfailure.code":           res.GetToolFailure().GetCode(),
		"toolfailure.tenant.name":    "acme",
		"gen_ai.tool.name":           "send_email",
		"error.type":                 "tool_error",
	}
	attrs := map[string]string{}
	for _, kv := range classifySpan.Attributes() {
		attrs[string(kv.Key)] = kv.Value.Emit()
	}
	for k, v := range want {
		if attrs[k] != v {
			t.Errorf("%s = %q, want %q", k, attrs[k], v)
		}
	}
	// The store writes in group commits on its own goroutine: the INSERT
	// that stored this record links to the Classify span.
	inserted := false
	for _, sp := range spans.Ended() {
		for _, l := range sp.Links() {
			if sp.Name() == "INSERT" && l.SpanContext.SpanID() == classifySpan.SpanContext().SpanID() {
				inserted = true
			}
		}
	}
	if !inserted {
		t.Error("no INSERT span links to the Classify span")
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if sum, ok := m.Data.(metricdata.Sum[int64]); ok && m.Name == "toolfailure.classifications" {
				for _, dp := range sum.DataPoints {
					if v, _ := dp.Attributes.Value("toolfailure.tenant.name"); v.AsString() == "acme" && dp.Value == 1 {
						found = true
					}
				}
			}
		}
	}
	if !found {
		t.Error("toolfailure.classifications has no point for tenant acme")
	}
}
