package mcpfailure_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	toolfailurev1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/mcpfailure"
)

// TestMiddlewareSemanticConventions: the middleware records each tools/call
// as the OpenTelemetry MCP conventions describe: a server span "tools/call
// {tool}" in the caller's trace (from params._meta.traceparent) with the
// conventions' attributes, error.type tool_error and the toolfailure
// attributes on a failure, and mcp.server.operation.duration in seconds;
// the failure's record is in the caller's trace too.
func TestMiddlewareSemanticConventions(t *testing.T) {
	t.Parallel()
	svc := startService(t, nil)
	spans := tracetest.NewSpanRecorder()
	metrics := sdkmetric.NewManualReader()
	tel, err := mcpfailure.NewTelemetry(mcpfailure.TelemetryConfig{
		TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans)),
		MeterProvider:  sdkmetric.NewMeterProvider(sdkmetric.WithReader(metrics)),
	})
	if err != nil {
		t.Fatal(err)
	}
	a, err := mcpfailure.NewAnnotator(mcpfailure.AnnotatorConfig{
		Classifier: svc.classifier(), Server: "mail-mcp", Budget: 10e9, Telemetry: tel,
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "mail-mcp", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "send_email", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "503 Service Unavailable: mail relay overloaded"}}}, nil
	})
	s.AddTool(&mcp.Tool{Name: "ok", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "fine"}}}, nil
	})
	s.AddReceivingMiddleware(a.Middleware)
	cs := connect(t, s, "http")

	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	meta := mcp.Meta{"traceparent": "00-" + traceID + "-" + parentID + "-01"}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "send_email", Meta: meta})
	if err != nil {
		t.Fatal(err)
	}
	tf := failureOf(t, res)
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "ok", Meta: meta}); err != nil {
		t.Fatal(err)
	}

	byName := map[string]sdktrace.ReadOnlySpan{}
	for _, sp := range spans.Ended() {
		byName[sp.Name()] = sp
	}
	failed, ok := byName["tools/call send_email"]
	if !ok {
		t.Fatalf("no span tools/call send_email among %v", keys(byName))
	}
	if failed.SpanKind() != trace.SpanKindServer || failed.SpanContext().TraceID().String() != traceID || failed.Parent().SpanID().String() != parentID {
		t.Errorf("span kind %v trace %s parent %s: want a server span under the caller's %s/%s",
			failed.SpanKind(), failed.SpanContext().TraceID(), failed.Parent().SpanID(), traceID, parentID)
	}
	want := map[string]string{
		"mcp.method.name":            "tools/call",
		"gen_ai.tool.name":           "send_email",
		"gen_ai.operation.name":      "execute_tool",
		"error.type":                 "tool_error",
		"toolfailure.class":          tf["class"].(string),
		"toolfailure.code":           tf["code"].(string),
		"toolfailure.correlation_id": tf["correlationId"].(string),
	}
	checkAttrs(t, "tools/call send_email", failed.Attributes(), want)
	if v := attr(failed.Attributes(), "mcp.protocol.version"); v == "" {
		t.Error("tools/call send_email: no mcp.protocol.version")
	}
	if v := attr(failed.Attributes(), "mcp.session.id"); v == "" {
		t.Error("tools/call send_email: no mcp.session.id")
	}
	if okSpan, found := byName["tools/call ok"]; !found {
		t.Error("no span tools/call ok")
	} else if v := attr(okSpan.Attributes(), "error.type"); v != "" {
		t.Errorf("tools/call ok: error.type %q on a success", v)
	}

	// The record is in the caller's trace, under the middleware's span.
	got, err := svc.failures().GetFailure(t.Context(), &toolfailurev1.GetFailureRequest{CorrelationId: tf["correlationId"].(string)})
	if err != nil {
		t.Fatal(err)
	}
	if got.GetFailure().GetTraceId() != traceID || got.GetFailure().GetSpanId() != failed.SpanContext().SpanID().String() {
		t.Errorf("record trace %s span %s: want %s and the middleware's span %s",
			got.GetFailure().GetTraceId(), got.GetFailure().GetSpanId(), traceID, failed.SpanContext().SpanID())
	}

	var rm metricdata.ResourceMetrics
	if err := metrics.Collect(t.Context(), &rm); err != nil {
		t.Fatal(err)
	}
	points := 0
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "mcp.server.operation.duration" {
				continue
			}
			if m.Unit != "s" {
				t.Errorf("unit %q, want s", m.Unit)
			}
			h, ok := m.Data.(metricdata.Histogram[float64])
			if !ok {
				t.Fatalf("mcp.server.operation.duration is %T, want a histogram", m.Data)
			}
			for _, dp := range h.DataPoints {
				if v, _ := dp.Attributes.Value("gen_ai.tool.name"); v.AsString() == "send_email" {
					if et, _ := dp.Attributes.Value("error.type"); et.AsString() != "tool_error" || dp.Count != 1 {
						t.Errorf("send_email point: error.type %q count %d", et.AsString(), dp.Count)
					}
					points++
				}
			}
		}
	}
	if points != 1 {
		t.Errorf("%d mcp.server.operation.duration points for send_email, want 1", points)
	}
}

func attr(kvs []attribute.KeyValue, key string) string {
	for _, kv := range kvs {
		if string(kv.Key) == key {
			return kv.Value.Emit()
		}
	}
	return ""
}

func checkAttrs(t *testing.T, span string, kvs []attribute.KeyValue, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got := attr(kvs, k); got != v {
			t.Errorf("%s: %s = %q, want %q", span, k, got, v)
		}
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestMiddlewareRequestsWithoutParams: a request whose params are absent
// (notifications/initialized, ping) passes the middleware; its telemetry
// must not read a nil params' _meta.
func TestMiddlewareRequestsWithoutParams(t *testing.T) {
	t.Parallel()
	a, err := mcpfailure.NewAnnotator(mcpfailure.AnnotatorConfig{Classifier: refusing{}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return nil, nil }
	h := a.Middleware(next)
	for method, req := range map[string]mcp.Request{
		"notifications/initialized": &mcp.InitializedRequest{},
		"ping":                      &mcp.ServerRequest[*mcp.PingParams]{},
		"tools/call":                &mcp.CallToolRequest{},
	} {
		if _, err := h(t.Context(), method, req); err != nil {
			t.Errorf("%s: %v", method, err)
		}
	}
}
