package telemetry_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/hex"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connecthttp"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/omcp/toolfailure/correlation"
	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/gen/toolfailure/v1/toolfailurev1connect"
	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/internal/telemetry"
)

// otlpReceiver is a minimal OTLP/HTTP collector: it decodes the protobuf
// export requests that the real exporters send and keeps them for the test
// to inspect. It is deliberately not an SDK test double: what it sees is
// what a real collector would receive on the wire.
type otlpReceiver struct {
	mu      sync.Mutex
	spans   []*tracepb.ResourceSpans
	metrics []*metricpb.ResourceMetrics
	errs    []string
}

func (r *otlpReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := readBody(req)
	if err != nil {
		r.fail("read body: " + err.Error())
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if ct := req.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		r.fail("content type " + ct)
	}
	var res proto.Message
	switch req.URL.Path {
	case "/v1/traces":
		var in coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &in); err != nil {
			r.fail("decode traces: " + err.Error())
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		r.spans = append(r.spans, in.GetResourceSpans()...)
		r.mu.Unlock()
		res = &coltracepb.ExportTraceServiceResponse{}
	case "/v1/metrics":
		var in colmetricpb.ExportMetricsServiceRequest
		if err := proto.Unmarshal(body, &in); err != nil {
			r.fail("decode metrics: " + err.Error())
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		r.metrics = append(r.metrics, in.GetResourceMetrics()...)
		r.mu.Unlock()
		res = &colmetricpb.ExportMetricsServiceResponse{}
	default:
		r.fail("unexpected path " + req.URL.Path)
		http.NotFound(w, req)
		return
	}
	out, _ := proto.Marshal(res)
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func readBody(req *http.Request) ([]byte, error) {
	var rd io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(req.Body)
		if err != nil {
			return nil, err
		}
		rd = gz
	}
	return io.ReadAll(rd)
}

func (r *otlpReceiver) fail(msg string) {
	r.mu.Lock()
	r.errs = append(r.errs, msg)
	r.mu.Unlock()
}

// receivedSpan is one span with the resource it came with.
type receivedSpan struct {
	*tracepb.Span
	resource map[string]string
}

func (r *otlpReceiver) allSpans() []receivedSpan {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []receivedSpan
	for _, rs := range r.spans {
		res := attrMap(rs.GetResource().GetAttributes())
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				out = append(out, receivedSpan{Span: s, resource: res})
			}
		}
	}
	return out
}

func (r *otlpReceiver) metric(name string) []*metricpb.Metric {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*metricpb.Metric
	for _, rm := range r.metrics {
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				if m.GetName() == name {
					out = append(out, m)
				}
			}
		}
	}
	return out
}

// attrMap renders OTLP attributes as strings, which is all the test
// compares.
func attrMap(kvs []*commonpb.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[kv.GetKey()] = anyString(kv.GetValue())
	}
	return m
}

func anyString(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_BoolValue:
		if x.BoolValue {
			return "true"
		}
		return "false"
	case *commonpb.AnyValue_IntValue:
		return itoa(x.IntValue)
	}
	return v.String()
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// classifier is a Classify handler shaped like the service's: it classifies
// with the baseline rules, mints a correlation ID and calls the helpers the
// way server/classifier.go does. The store is left out; it has its own
// tests, and the pgx tracer has its own test against PostgreSQL.
type classifier struct {
	toolfailurev1connect.UnimplementedClassifierServiceHandler
	inst *telemetry.Instruments
}

func (c *classifier) Classify(ctx context.Context, req *v1.ClassifyRequest) (*v1.ClassifyResponse, error) {
	ctx, span := c.inst.StartClassify(ctx, req.GetTool(), req.GetTraceparent())
	if req.GetError().GetMessage() == "" {
		err := connect.NewError(connect.CodeInvalidArgument, "invalid request: error.message is required here")
		span.Failed(ctx, err)
		return nil, err
	}
	now := time.Now()
	// The generic rules alone: this test is about telemetry, and its two
	// one-word errors are what the text model is not meant to read.
	out := classify.NewEngine(nil, 0).Classify(&classify.Input{Tool: req.GetTool(), Error: classify.RawError{Message: req.GetError().GetMessage(), HTTPStatus: req.GetError().HttpStatus}}, now)
	if req.GetTool() == "custom_tool" {
		out.Code = "mailbox_quota_exceeded" // a tenant's own code
	}
	id, err := correlation.New(now)
	if err != nil {
		return nil, err
	}
	span.Recorded(ctx, telemetry.Classification{
		TenantID: 7, TenantName: "acme", CorrelationID: id.String(), Tool: req.GetTool(), Server: req.GetServer(),
		Class: string(out.Class), Code: out.Code, Retryable: out.Retryable, RuleID: out.RuleID,
	})
	return &v1.ClassifyResponse{
		ToolFailure: &v1.ToolFailure{CorrelationId: id.String(), Code: out.Code},
		RuleId:      out.RuleID,
	}, nil
}

func TestOTLPExport(t *testing.T) {
	// Setup reads the process environment, as the service does; t.Setenv
	// rules out t.Parallel for this one test.
	recv := &otlpReceiver{}
	collector := httptest.NewServer(recv)
	t.Cleanup(collector.Close)
	t.Setenv("OTEL_TRACES_EXPORTER", "otlp")
	t.Setenv("OTEL_METRICS_EXPORTER", "otlp")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	t.Setenv("OTEL_SERVICE_NAME", "toolfailure-otlp-test")
	t.Setenv("OTEL_TRACES_SAMPLER", "parentbased_always_on")
	t.Setenv("OTEL_METRIC_EXPORT_INTERVAL", "600000") // only the flush at shutdown
	t.Setenv("OTEL_SEMCONV_STABILITY_OPT_IN", "")

	ctx := t.Context()
	sdk, err := telemetry.Setup(ctx)
	if err != nil {
		t.Fatalf("Setup: %v", err)
	}
	if want := "traces: otlp (http/protobuf, " + collector.URL + "); metrics: otlp (http/protobuf, " + collector.URL + ")"; sdk.Description != want {
		t.Errorf("Description = %q, want %q", sdk.Description, want)
	}
	inst, err := telemetry.New(sdk.Config())
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	reg, err := inst.ObserveRuleCache(maps.All(map[int64]int64{7: 42}))
	if err != nil {
		t.Fatalf("ObserveRuleCache: %v", err)
	}
	defer func() { _ = reg.Unregister() }()

	rpc := connect.NewServer(inst.Interceptor())
	toolfailurev1connect.RegisterClassifierServiceHandler(rpc, &classifier{inst: inst})
	mux := http.NewServeMux()
	connecthttp.Mount(mux, rpc)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	headerTP := ""
	setHeader := func(next connect.ClientFunc) connect.ClientFunc {
		return func(ctx context.Context, spec connect.Spec) (connect.ClientStream, error) {
			ctx, info := connect.NewClientContext(ctx)
			if headerTP != "" {
				info.RequestHeader().Set("traceparent", headerTP)
			}
			return next(ctx, spec)
		}
	}
	client := toolfailurev1connect.NewClassifierServiceClient(
		connect.NewClient(connecthttp.NewTransport(srv.Client(), srv.URL, connecthttp.WithProtoJSON()), setHeader))

	const (
		bodyTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
		bodySpan   = "00f067aa0ba902b7"
		headTrace  = "0af7651916cd43dd8448eb211c80319c"
		headSpan   = "b7ad6b7169203331"
		otherTrace = "11111111111111111111111111111111"
		otherSpan  = "2222222222222222"
	)
	status := int32(503)

	// 1. The trace context in the body (MCP's params._meta.traceparent)
	// parents the Classify span, while the headers parent the RPC span.
	headerTP = "00-" + otherTrace + "-" + otherSpan + "-01"
	byBody, err := client.Classify(ctx, &v1.ClassifyRequest{
		Tool: "send_email", Server: "mail-mcp",
		Error:       &v1.RawError{Message: "upstream unavailable", HttpStatus: &status},
		Traceparent: "00-" + bodyTrace + "-" + bodySpan + "-01",
	})
	if err != nil {
		t.Fatalf("Classify (body traceparent): %v", err)
	}
	// 2. Only a header: the Classify span is the RPC span's child.
	headerTP = "00-" + headTrace + "-" + headSpan + "-01"
	byHeader, err := client.Classify(ctx, &v1.ClassifyRequest{
		Tool: "custom_tool", Error: &v1.RawError{Message: "quota", HttpStatus: &status},
	})
	if err != nil {
		t.Fatalf("Classify (header traceparent): %v", err)
	}
	// 3. A refused call.
	headerTP = ""
	if _, err := client.Classify(ctx, &v1.ClassifyRequest{Tool: "send_email", Error: &v1.RawError{}}); connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Fatalf("Classify (invalid): err = %v, want invalid_argument", err)
	}

	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := sdk.Shutdown(shutdownCtx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if len(recv.errs) > 0 {
		t.Fatalf("receiver: %v", recv.errs)
	}

	spans := recv.allSpans()
	find := func(traceID, name string) receivedSpan {
		t.Helper()
		for _, s := range spans {
			if hex.EncodeToString(s.GetTraceId()) == traceID && s.GetName() == name {
				return s
			}
		}
		var got []string
		for _, s := range spans {
			got = append(got, hex.EncodeToString(s.GetTraceId())+" "+s.GetName())
		}
		t.Fatalf("no span %q in trace %s; received %v", name, traceID, got)
		return receivedSpan{}
	}

	t.Run("body traceparent", func(t *testing.T) {
		cs := find(bodyTrace, "classify send_email")
		if got := hex.EncodeToString(cs.GetParentSpanId()); got != bodySpan {
			t.Errorf("Classify span parent = %s, want the body's span %s", got, bodySpan)
		}
		if cs.GetKind() != tracepb.Span_SPAN_KIND_INTERNAL {
			t.Errorf("kind = %v, want INTERNAL", cs.GetKind())
		}
		attrs := attrMap(cs.GetAttributes())
		want := map[string]string{
			"toolfailure.correlation_id": byBody.GetToolFailure().GetCorrelationId(),
			"toolfailure.class":          "reliability",
			"toolfailure.code":           "retryable_transient_error",
			"toolfailure.rule.id":        byBody.GetRuleId(),
			"toolfailure.tenant.name":    "acme",
			"toolfailure.tenant.id":      "7",
			"toolfailure.server":         "mail-mcp",
			"gen_ai.tool.name":           "send_email",
			"error.type":                 "tool_error",
		}
		for k, v := range want {
			if attrs[k] != v {
				t.Errorf("attribute %s = %q, want %q", k, attrs[k], v)
			}
		}
		if _, ok := attrs["toolfailure.retryable"]; !ok {
			t.Error("no toolfailure.retryable attribute")
		}
		if cs.GetStatus().GetCode() != tracepb.Status_STATUS_CODE_ERROR || cs.GetStatus().GetMessage() != "reliability/retryable_transient_error" {
			t.Errorf("status = %v, want ERROR reliability/retryable_transient_error", cs.GetStatus())
		}
		if cs.resource["service.name"] != "toolfailure-otlp-test" {
			t.Errorf("service.name = %q, want the OTEL_SERVICE_NAME value", cs.resource["service.name"])
		}

		// The RPC span is in the headers' trace, and the Classify span
		// links to it.
		rpcSpan := find(otherTrace, "toolfailure.v1.ClassifierService/Classify")
		if got := hex.EncodeToString(rpcSpan.GetParentSpanId()); got != otherSpan {
			t.Errorf("RPC span parent = %s, want the header's span %s", got, otherSpan)
		}
		linked := false
		for _, l := range cs.GetLinks() {
			if bytes.Equal(l.GetSpanId(), rpcSpan.GetSpanId()) && bytes.Equal(l.GetTraceId(), rpcSpan.GetTraceId()) {
				linked = true
			}
		}
		if !linked {
			t.Errorf("Classify span has no link to the RPC server span; links: %v", cs.GetLinks())
		}
	})

	t.Run("header traceparent", func(t *testing.T) {
		rpcSpan := find(headTrace, "toolfailure.v1.ClassifierService/Classify")
		if got := hex.EncodeToString(rpcSpan.GetParentSpanId()); got != headSpan {
			t.Errorf("RPC span parent = %s, want %s", got, headSpan)
		}
		if rpcSpan.GetKind() != tracepb.Span_SPAN_KIND_SERVER {
			t.Errorf("RPC span kind = %v, want SERVER", rpcSpan.GetKind())
		}
		attrs := attrMap(rpcSpan.GetAttributes())
		for k, v := range map[string]string{
			"rpc.system":  "connect_rpc",
			"rpc.service": "toolfailure.v1.ClassifierService",
			"rpc.method":  "Classify",
		} {
			if attrs[k] != v {
				t.Errorf("RPC span attribute %s = %q, want %q", k, attrs[k], v)
			}
		}
		if _, ok := attrs["error.type"]; ok {
			t.Errorf("successful RPC span has error.type %q", attrs["error.type"])
		}
		cs := find(headTrace, "classify custom_tool")
		if !bytes.Equal(cs.GetParentSpanId(), rpcSpan.GetSpanId()) {
			t.Errorf("Classify span parent = %x, want the RPC span %x", cs.GetParentSpanId(), rpcSpan.GetSpanId())
		}
		if got := attrMap(cs.GetAttributes())["toolfailure.correlation_id"]; got != byHeader.GetToolFailure().GetCorrelationId() {
			t.Errorf("correlation ID = %q, want %q", got, byHeader.GetToolFailure().GetCorrelationId())
		}
	})

	t.Run("refused call", func(t *testing.T) {
		var rpcSpan *receivedSpan
		for _, s := range spans {
			if s.GetName() == "toolfailure.v1.ClassifierService/Classify" && attrMap(s.GetAttributes())["error.type"] != "" {
				rpcSpan = &s
			}
		}
		if rpcSpan == nil {
			t.Fatal("no RPC span with error.type")
		}
		attrs := attrMap(rpcSpan.GetAttributes())
		if attrs["error.type"] != "invalid_argument" || attrs["rpc.connect_rpc.error_code"] != "invalid_argument" {
			t.Errorf("error attributes = %v, want invalid_argument", attrs)
		}
		// A caller's mistake is not a server fault: status stays unset.
		if rpcSpan.GetStatus().GetCode() != tracepb.Status_STATUS_CODE_UNSET {
			t.Errorf("status = %v, want UNSET for invalid_argument", rpcSpan.GetStatus())
		}
	})

	t.Run("metrics", func(t *testing.T) {
		counts := map[string]int64{}
		for _, m := range recv.metric("toolfailure.classifications") {
			if !m.GetSum().GetIsMonotonic() {
				t.Errorf("classifications is not a monotonic sum")
			}
			for _, dp := range m.GetSum().GetDataPoints() {
				a := attrMap(dp.GetAttributes())
				counts[a["toolfailure.tenant.name"]+"/"+a["toolfailure.class"]+"/"+a["toolfailure.code"]] += dp.GetAsInt()
			}
		}
		want := map[string]int64{
			"acme/reliability/retryable_transient_error": 1,
			"acme/reliability/other":                     1, // mailbox_quota_exceeded, folded
		}
		if !maps.Equal(counts, want) {
			t.Errorf("classifications = %v, want %v", counts, want)
		}

		var calls uint64
		for _, m := range recv.metric("rpc.server.duration") {
			if m.GetUnit() != "ms" {
				t.Errorf("rpc.server.duration unit = %q, want ms", m.GetUnit())
			}
			for _, dp := range m.GetHistogram().GetDataPoints() {
				if attrMap(dp.GetAttributes())["rpc.method"] == "Classify" {
					calls += dp.GetCount()
				}
			}
		}
		if calls != 3 {
			t.Errorf("rpc.server.duration count = %d, want 3", calls)
		}
		if len(recv.metric("toolfailure.classify.duration")) == 0 {
			t.Error("no toolfailure.classify.duration")
		}

		var versions []string
		for _, m := range recv.metric("toolfailure.rules.cache.version") {
			for _, dp := range m.GetGauge().GetDataPoints() {
				versions = append(versions, attrMap(dp.GetAttributes())["toolfailure.tenant.id"]+"="+itoa(dp.GetAsInt()))
			}
		}
		if !slices.Equal(versions, []string{"7=42"}) {
			t.Errorf("rules cache version = %v, want [7=42]", versions)
		}
	})
}
