package mcpproxy_test

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	toolfailurev1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/mcpproxy"
	"github.com/omcp/toolfailure/mcpfailure"
)

// TestProxySemanticConventions: the proxy records the tools/call it relays
// as the Go middleware does (a server span "tools/call {tool}" in the
// caller's trace, with the JSON-RPC request ID, error.type and toolfailure
// attributes on a failure, and mcp.server.operation.duration), and the
// failure's record sits under the proxy's span.
func TestProxySemanticConventions(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	spans := tracetest.NewSpanRecorder()
	metrics := sdkmetric.NewManualReader()
	tel, err := mcpfailure.NewTelemetry(mcpfailure.TelemetryConfig{
		TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans)),
		MeterProvider:  sdkmetric.NewMeterProvider(sdkmetric.WithReader(metrics)),
	})
	if err != nil {
		t.Fatal(err)
	}
	p, err := mcpproxy.New(mcpproxy.Config{Classifier: mcpfailure.NewClassifierClient(nil, svc.url, svc.reportKey), Budget: 10e9, Telemetry: tel})
	if err != nil {
		t.Fatal(err)
	}
	cs := setupSession(t, p, newUpstreamServer(t), "stdio/http", nil)

	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "unavailable", Meta: mcp.Meta{"traceparent": "00-" + traceID + "-" + parentID + "-01"}})
	if err != nil {
		t.Fatal(err)
	}
	tf := toolFailure(t, resultJSON(t, res))

	var span sdktrace.ReadOnlySpan
	for _, sp := range spans.Ended() {
		if sp.Name() == "tools/call unavailable" {
			span = sp
		}
	}
	if span == nil {
		t.Fatal("no span tools/call unavailable")
	}
	if span.SpanKind() != trace.SpanKindServer || span.SpanContext().TraceID().String() != traceID || span.Parent().SpanID().String() != parentID {
		t.Errorf("span kind %v trace %s parent %s: want a server span under the caller's", span.SpanKind(), span.SpanContext().TraceID(), span.Parent().SpanID())
	}
	attrs := map[string]string{}
	for _, kv := range span.Attributes() {
		attrs[string(kv.Key)] = kv.Value.Emit()
	}
	for k, v := range map[string]string{
		"mcp.method.name": "tools/call", "gen_ai.tool.name": "unavailable", "gen_ai.operation.name": "execute_tool",
		"error.type": "tool_error", "toolfailure.class": tf["class"].(string), "toolfailure.code": tf["code"].(string),
		"toolfailure.correlation_id": tf["correlationId"].(string),
	} {
		if attrs[k] != v {
			t.Errorf("%s = %q, want %q", k, attrs[k], v)
		}
	}
	if attrs["jsonrpc.request.id"] == "" || attrs["mcp.protocol.version"] == "" {
		t.Errorf("jsonrpc.request.id %q, mcp.protocol.version %q: want both", attrs["jsonrpc.request.id"], attrs["mcp.protocol.version"])
	}

	got, err := svc.failures().GetFailure(t.Context(), &toolfailurev1.GetFailureRequest{CorrelationId: tf["correlationId"].(string)})
	if err != nil {
		t.Fatal(err)
	}
	if got.GetFailure().GetTraceId() != traceID || got.GetFailure().GetSpanId() != span.SpanContext().SpanID().String() {
		t.Errorf("record trace %s span %s: want %s under the proxy's span %s", got.GetFailure().GetTraceId(), got.GetFailure().GetSpanId(), traceID, span.SpanContext().SpanID())
	}

	var rm metricdata.ResourceMetrics
	if err := metrics.Collect(t.Context(), &rm); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if h, ok := m.Data.(metricdata.Histogram[float64]); ok && m.Name == "mcp.server.operation.duration" {
				for _, dp := range h.DataPoints {
					if v, _ := dp.Attributes.Value("gen_ai.tool.name"); v.AsString() == "unavailable" {
						found = true
					}
				}
			}
		}
	}
	if !found {
		t.Error("no mcp.server.operation.duration point for the relayed call")
	}
}
