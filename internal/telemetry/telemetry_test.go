package telemetry_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connecthttp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/gen/toolfailure/v1/toolfailurev1connect"
	"github.com/omcp/toolfailure/internal/pgtest"
	"github.com/omcp/toolfailure/internal/telemetry"
)

// bundle is an SDK that keeps what it records in memory, for the tests that
// look at one feature at a time; TestOTLPExport covers the real export path.
type bundle struct {
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	inst   *telemetry.Instruments
}

func setup(t *testing.T, optIn string) *bundle {
	t.Helper()
	b := &bundle{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(b.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(b.reader))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) })
	inst, err := telemetry.New(telemetry.Config{
		TracerProvider: tp, MeterProvider: mp,
		Propagator:   propagation.TraceContext{},
		SemconvOptIn: optIn,
	})
	if err != nil {
		t.Fatal(err)
	}
	b.inst = inst
	return b
}

func (b *bundle) metrics(t *testing.T) map[string]metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := b.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

func attrs(kvs []attribute.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.Emit()
	}
	return m
}

type explainer struct {
	toolfailurev1connect.UnimplementedClassifierServiceHandler
	err error
}

func (e explainer) Explain(context.Context, *v1.ExplainRequest) (*v1.ExplainResponse, error) {
	return &v1.ExplainResponse{}, e.err
}

func serve(t *testing.T, inst *telemetry.Instruments, h toolfailurev1connect.ClassifierServiceHandler) toolfailurev1connect.ClassifierServiceClient {
	t.Helper()
	rpc := connect.NewServer(inst.Interceptor())
	toolfailurev1connect.RegisterClassifierServiceHandler(rpc, h)
	mux := http.NewServeMux()
	connecthttp.Mount(mux, rpc)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return toolfailurev1connect.NewClassifierServiceClient(connect.NewClient(connecthttp.NewTransport(srv.Client(), srv.URL)))
}

func TestInterceptorConventions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		optIn      string
		want       map[string]string
		absent     []string
		histograms []string
	}{
		{
			optIn:      "",
			want:       map[string]string{"rpc.system": "connect_rpc", "rpc.service": "toolfailure.v1.ClassifierService", "rpc.method": "Explain", "rpc.connect_rpc.error_code": "unavailable", "error.type": "unavailable"},
			absent:     []string{"rpc.system.name", "rpc.response.status_code"},
			histograms: []string{"rpc.server.duration"},
		},
		{
			optIn:      "http,rpc",
			want:       map[string]string{"rpc.system.name": "connectrpc", "rpc.method": "toolfailure.v1.ClassifierService/Explain", "rpc.response.status_code": "unavailable", "error.type": "unavailable"},
			absent:     []string{"rpc.system", "rpc.service", "rpc.connect_rpc.error_code"},
			histograms: []string{"rpc.server.call.duration"},
		},
		{
			optIn:      "rpc/dup",
			want:       map[string]string{"rpc.system": "connect_rpc", "rpc.system.name": "connectrpc", "rpc.service": "toolfailure.v1.ClassifierService", "rpc.method": "toolfailure.v1.ClassifierService/Explain", "error.type": "unavailable"},
			histograms: []string{"rpc.server.duration", "rpc.server.call.duration"},
		},
	} {
		t.Run("optIn="+tc.optIn, func(t *testing.T) {
			t.Parallel()
			b := setup(t, tc.optIn)
			client := serve(t, b.inst, explainer{err: connect.NewError(connect.CodeUnavailable, "store down").WithCause(errors.New("secret dsn"))})
			if _, err := client.Explain(t.Context(), &v1.ExplainRequest{}); connect.CodeOf(err) != connect.CodeUnavailable {
				t.Fatalf("Explain: %v", err)
			}
			spans := b.spans.Ended()
			if len(spans) != 1 {
				t.Fatalf("%d spans, want 1", len(spans))
			}
			s := spans[0]
			if s.Name() != "toolfailure.v1.ClassifierService/Explain" || s.SpanKind() != trace.SpanKindServer {
				t.Errorf("span %q kind %v", s.Name(), s.SpanKind())
			}
			got := attrs(s.Attributes())
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
			for _, k := range tc.absent {
				if _, ok := got[k]; ok {
					t.Errorf("%s is set (%q) in this mode", k, got[k])
				}
			}
			// unavailable is a server fault: Error, with the public message
			// and never the private cause.
			if s.Status().Code.String() != "Error" || s.Status().Description != "store down" {
				t.Errorf("status = %+v, want Error \"store down\"", s.Status())
			}
			ms := b.metrics(t)
			for _, name := range tc.histograms {
				h, ok := ms[name].Data.(metricdata.Histogram[float64])
				if !ok || len(h.DataPoints) != 1 || h.DataPoints[0].Count != 1 {
					t.Errorf("%s = %+v, want one data point with one call", name, ms[name].Data)
					continue
				}
				if a := attrs(h.DataPoints[0].Attributes.ToSlice()); a["error.type"] != "unavailable" || a["network.peer.address"] != "" {
					t.Errorf("%s attributes = %v", name, a)
				}
			}
		})
	}
}

func TestNilInstrumentsRecordNothing(t *testing.T) {
	t.Parallel()
	var inst *telemetry.Instruments
	ctx, span := inst.StartClassify(t.Context(), "tool", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	span.Recorded(ctx, telemetry.Classification{Class: "reliability"})
	span.Failed(ctx, errors.New("x"))
	if tid, sid := span.TraceIDs(); tid != "" || sid != "" {
		t.Errorf("TraceIDs = %q %q", tid, sid)
	}
	if _, err := inst.ObserveRuleCache(nil); err != nil {
		t.Error(err)
	}
	client := serve(t, inst, explainer{})
	if _, err := client.Explain(t.Context(), &v1.ExplainRequest{}); err != nil {
		t.Errorf("Explain through a nil interceptor: %v", err)
	}
	var tracer *telemetry.PgxTracer = inst.PgxTracer()
	tracer.TraceQueryEnd(tracer.TraceQueryStart(ctx, nil, pgx.TraceQueryStartData{SQL: "SELECT 1"}), nil, pgx.TraceQueryEndData{})
}

func TestClassifyTraceIDs(t *testing.T) {
	t.Parallel()
	b := setup(t, "")
	// No trace context anywhere: the service's own span is the record's
	// trace, so that the trace link works.
	_, span := b.inst.StartClassify(t.Context(), "t", "")
	tid, sid := span.TraceIDs()
	if len(tid) != 32 || len(sid) != 16 {
		t.Errorf("TraceIDs = %q %q, want the new span's IDs", tid, sid)
	}
	span.Recorded(t.Context(), telemetry.Classification{Class: "capability", Code: "invalid_input"})
	// A deferred Failed after Recorded changes nothing.
	span.Failed(t.Context(), errors.New("late"))
	if a := attrs(b.spans.Ended()[0].Attributes()); a["error.type"] != "tool_error" || len(b.spans.Ended()) != 1 {
		t.Errorf("Failed after Recorded: %d spans, error.type %q", len(b.spans.Ended()), a["error.type"])
	}

	// A malformed body traceparent is ignored, not fatal.
	ctx, span := b.inst.StartClassify(t.Context(), "t", "00-zz-yy-01")
	span.Failed(ctx, connect.NewError(connect.CodeInvalidArgument, "bad"))
	ended := b.spans.Ended()
	if len(ended) != 2 || ended[1].Parent().IsValid() {
		t.Fatalf("malformed traceparent: spans %d, parent %v", len(ended), ended[len(ended)-1].Parent())
	}
	if a := attrs(ended[1].Attributes()); a["error.type"] != "invalid_argument" {
		t.Errorf("failed Classify error.type = %q", a["error.type"])
	}
}

func TestMetricCode(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"retryable_transient_error": "retryable_transient_error",
		"user_action_required":      "user_action_required",
		"mailbox_quota_exceeded":    "other",
		"":                          "other",
	} {
		if got := telemetry.MetricCode(in); got != want {
			t.Errorf("MetricCode(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTraceURLTemplate(t *testing.T) {
	t.Parallel()
	tmpl, err := telemetry.ParseTraceURLTemplate("https://jaeger.example.com/trace/{trace_id}?uiFind={span_id}")
	if err != nil {
		t.Fatal(err)
	}
	if got := tmpl.Expand("4BF92F3577B34DA6A3CE929D0E0E4736", "00f067aa0ba902b7"); got != "https://jaeger.example.com/trace/4bf92f3577b34da6a3ce929d0e0e4736?uiFind=00f067aa0ba902b7" {
		t.Errorf("Expand = %q", got)
	}
	for _, bad := range []string{"", "4bf9", "4bf92f3577b34da6a3ce929d0e0e473g", "00000000000000000000000000000000", "4bf92f3577b34da6a3ce929d0e0e4736/../x"} {
		if got := tmpl.Expand(bad, ""); got != "" {
			t.Errorf("Expand(%q) = %q, want no link", bad, got)
		}
	}
	if got := tmpl.Expand("4bf92f3577b34da6a3ce929d0e0e4736", "<script>"); got != "https://jaeger.example.com/trace/4bf92f3577b34da6a3ce929d0e0e4736?uiFind=" {
		t.Errorf("Expand with a bad span ID = %q", got)
	}
	var none *telemetry.TraceURLTemplate
	if none.Expand("4bf92f3577b34da6a3ce929d0e0e4736", "") != "" {
		t.Error("nil template made a link")
	}
	if tmpl, err := telemetry.ParseTraceURLTemplate("  "); tmpl != nil || err != nil {
		t.Errorf("empty template = %v, %v; want nil, nil", tmpl, err)
	}
	for _, bad := range []string{"https://x/trace", "javascript:alert('{trace_id}')", "/trace/{trace_id}", "ftp://x/{trace_id}"} {
		if _, err := telemetry.ParseTraceURLTemplate(bad); err == nil {
			t.Errorf("ParseTraceURLTemplate(%q) accepted", bad)
		}
	}
}

func TestSetupOffByDefault(t *testing.T) {
	// Setup reads the environment: not parallel.
	for _, env := range []string{"OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_SDK_DISABLED"} {
		t.Setenv(env, "")
	}
	sdk, err := telemetry.Setup(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sdk.Shutdown(context.Background()) }()
	if sdk.Description != "off (set OTEL_TRACES_EXPORTER and OTEL_METRICS_EXPORTER to otlp or console)" {
		t.Errorf("Description = %q", sdk.Description)
	}
	_, span := sdk.TracerProvider.Tracer("x").Start(t.Context(), "x")
	if span.IsRecording() {
		t.Error("a span records with telemetry off")
	}

	t.Setenv("OTEL_TRACES_EXPORTER", "console")
	t.Setenv("OTEL_METRICS_EXPORTER", "none")
	sdk, err = telemetry.Setup(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sdk.Shutdown(context.Background()) }()
	if sdk.Description != "traces: console; metrics: off" {
		t.Errorf("Description = %q", sdk.Description)
	}

	t.Setenv("OTEL_TRACES_EXPORTER", "carrier-pigeon")
	if _, err := telemetry.Setup(t.Context()); err == nil {
		t.Error("an unknown exporter was accepted")
	}
}

func TestPgxTracer(t *testing.T) {
	t.Parallel()
	b := setup(t, "")
	cfg, err := pgxpool.ParseConfig(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.Tracer = b.inst.PgxTracer()
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)

	ctx, parent := b.inst.StartClassify(t.Context(), "send_email", "")
	var n int
	if err := pool.QueryRow(ctx, "SELECT $1::int + 1", 41).Scan(&n); err != nil || n != 42 {
		t.Fatalf("query: %d, %v", n, err)
	}
	_, err = pool.Exec(ctx, "INSERT INTO no_such_table VALUES ($1)", "secret-argument")
	if err == nil {
		t.Fatal("insert into a missing table succeeded")
	}
	batch := &pgx.Batch{}
	batch.Queue("SELECT 1")
	batch.Queue("SELECT 2")
	batch.Queue("SELECT 3")
	if err := pool.SendBatch(ctx, batch).Close(); err != nil {
		t.Fatalf("batch: %v", err)
	}
	// A group commit: one statement on the writer's own context, serving
	// two callers.
	other, otherSpan := b.inst.StartClassify(t.Context(), "other_tool", "")
	writer := telemetry.WithStoreBatch(context.Background(), []context.Context{other, ctx})
	if _, err := pool.Exec(writer, "UPDATE pg_catalog.pg_class SET relname = relname WHERE false"); err != nil {
		t.Fatalf("batched statement: %v", err)
	}
	otherSpan.Recorded(other, telemetry.Classification{})
	parent.Recorded(ctx, telemetry.Classification{Class: "reliability", Code: "retryable_transient_error"})

	byName := map[string][]sdktrace.ReadOnlySpan{}
	for _, s := range b.spans.Ended() {
		byName[s.Name()] = append(byName[s.Name()], s)
	}
	classifySpan := byName["classify send_email"][0]
	var sel sdktrace.ReadOnlySpan
	for _, s := range byName["SELECT"] {
		if attrs(s.Attributes())["db.query.text"] == "SELECT $1::int + 1" {
			sel = s
		}
	}
	if sel == nil {
		t.Fatalf("no SELECT span; spans: %v", keys(byName))
	}
	if sel.Parent().SpanID() != classifySpan.SpanContext().SpanID() || sel.SpanKind() != trace.SpanKindClient {
		t.Errorf("SELECT span parent %v kind %v, want a CLIENT child of the Classify span", sel.Parent().SpanID(), sel.SpanKind())
	}
	a := attrs(sel.Attributes())
	if a["db.system.name"] != "postgresql" || a["db.operation.name"] != "SELECT" || a["db.namespace"] == "" {
		t.Errorf("SELECT attributes = %v", a)
	}

	ins := byName["INSERT"]
	if len(ins) != 1 {
		t.Fatalf("INSERT spans: %d", len(ins))
	}
	ia := attrs(ins[0].Attributes())
	if ia["db.response.status_code"] != "42P01" || ia["error.type"] != "42P01" || ins[0].Status().Code.String() != "Error" {
		t.Errorf("failed INSERT: attributes %v, status %v", ia, ins[0].Status())
	}
	for _, s := range b.spans.Ended() {
		for _, kv := range s.Attributes() {
			if kv.Value.Emit() == "secret-argument" {
				t.Errorf("span %s records a query argument as %s", s.Name(), kv.Key)
			}
		}
	}

	batchSpans := byName["BATCH"]
	if len(batchSpans) != 1 || attrs(batchSpans[0].Attributes())["db.operation.batch.size"] != "3" || len(batchSpans[0].Events()) != 3 {
		t.Errorf("BATCH spans = %d, want one with batch size 3 and three query events", len(batchSpans))
	}

	upd := byName["UPDATE"]
	if len(upd) != 1 || len(upd[0].Links()) != 2 || upd[0].Parent().IsValid() ||
		upd[0].Links()[1].SpanContext.SpanID() != classifySpan.SpanContext().SpanID() {
		t.Errorf("group-commit statement: %d spans; want one root span linked to both callers", len(upd))
	}

	ms := b.metrics(t)
	sizes, _ := ms["toolfailure.store.batch.size"].Data.(metricdata.Histogram[int64])
	if len(sizes.DataPoints) != 1 || sizes.DataPoints[0].Sum != 5 || sizes.DataPoints[0].Count != 2 {
		t.Errorf("batch size histogram = %+v", ms["toolfailure.store.batch.size"].Data)
	}
	dur, _ := ms["db.client.operation.duration"].Data.(metricdata.Histogram[float64])
	var failed uint64
	for _, dp := range dur.DataPoints {
		if v, ok := dp.Attributes.Value("error.type"); ok && v.AsString() == "42P01" {
			failed += dp.Count
		}
	}
	if failed != 1 {
		t.Errorf("db.client.operation.duration with error.type 42P01: %d, want 1", failed)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
