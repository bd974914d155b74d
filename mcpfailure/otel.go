package mcpfailure

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// The OpenTelemetry semantic conventions for MCP (status: development) name
// these attributes; the toolfailure ones add what the proposal knows.
const (
	attrMethod          = attribute.Key("mcp.method.name")
	attrProtocolVersion = attribute.Key("mcp.protocol.version")
	attrSessionID       = attribute.Key("mcp.session.id")
	attrToolName        = attribute.Key("gen_ai.tool.name")
	attrOperationName   = attribute.Key("gen_ai.operation.name")
	attrRequestID       = attribute.Key("jsonrpc.request.id")
	attrRPCStatusCode   = attribute.Key("rpc.response.status_code")
	attrErrorType       = attribute.Key("error.type")
	attrClass           = attribute.Key("toolfailure.class")
	attrCode            = attribute.Key("toolfailure.code")
	attrCorrelationID   = attribute.Key("toolfailure.correlation_id")
)

const instrumentation = "github.com/omcp/toolfailure/mcpfailure"

// durationBuckets are the conventions' advice for mcp.server.operation.duration.
var durationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// TelemetryConfig says where MCP server spans and metrics go. Nil providers
// mean the global ones (otel.GetTracerProvider, otel.GetMeterProvider),
// which do nothing until a program installs an SDK.
type TelemetryConfig struct {
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
}

// Telemetry records MCP server operations the way the OpenTelemetry MCP
// semantic conventions describe them: a server span "{method} {tool}" and
// the histogram mcp.server.operation.duration. The Annotator's middleware
// uses it, and so does the proxy, so that a call looks the same in a trace
// whichever of them served it. It is safe for concurrent use.
type Telemetry struct {
	tracer   trace.Tracer
	duration metric.Float64Histogram

	// spanNames holds "tools/call NAME" per tool, so that a call does not
	// build its span's name anew; bounded by maxSpanNames, since the
	// names come from clients.
	spanNames  sync.Map
	namesCount atomic.Int32
}

// serverSpan are the options of every span Start starts, made once: built
// per call, the option and the variadic slice are two allocations.
var serverSpan = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer)}

// maxSpanNames bounds Telemetry.spanNames: a server has a few dozen tools,
// and a client that sends endless unknown names only costs the concatenation.
const maxSpanNames = 1024

// NewTelemetry returns a Telemetry on cfg's providers.
func NewTelemetry(cfg TelemetryConfig) (*Telemetry, error) {
	tp, mp := cfg.TracerProvider, cfg.MeterProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	h, err := mp.Meter(instrumentation).Float64Histogram("mcp.server.operation.duration",
		metric.WithUnit("s"),
		metric.WithDescription("Duration of MCP requests as the server sees them"),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	if err != nil {
		return nil, fmt.Errorf("mcp.server.operation.duration: %w", err)
	}
	return &Telemetry{tracer: tp.Tracer(instrumentation), duration: h}, nil
}

// OperationInfo describes one MCP request as it arrives.
type OperationInfo struct {
	Method string // mcp.method.name, such as "tools/call"
	Tool   string // tools/call: params.name
	// RequestMeta is params._meta; its traceparent and tracestate, which
	// MCP carries there, make the caller's span the parent.
	RequestMeta     map[string]any
	RequestID       any // the JSON-RPC ID, when known
	ProtocolVersion string
	SessionID       string
}

// Operation is one MCP request in flight. End it exactly once.
type Operation struct {
	t     *Telemetry
	span  trace.Span
	start time.Time
	info  OperationInfo
}

// Start starts the server span of an operation and returns a context that
// carries it: pass that context on, so that the Classify call of a failure
// names this span as its parent.
//
// Attributes are built only for a span that records and a histogram that
// is enabled: with no OpenTelemetry SDK installed, the middleware's cost on
// a successful call stays a few allocations (BenchmarkMiddlewareSuccess).
func (t *Telemetry) Start(ctx context.Context, info OperationInfo) (context.Context, *Operation) {
	ctx, op := t.start(ctx, info)
	return ctx, &op
}

// start is Start returning the Operation by value, for the middleware, whose
// operation lives only as long as the call: one allocation less per call.
func (t *Telemetry) start(ctx context.Context, info OperationInfo) (context.Context, Operation) {
	name := info.Method
	if info.Method == "tools/call" {
		name = t.spanName(info.Tool)
	}
	if carrier := metaCarrier(info.RequestMeta); carrier.Get("traceparent") != "" {
		ctx = propagation.TraceContext{}.Extract(ctx, carrier)
	}
	ctx, span := t.tracer.Start(ctx, name, serverSpan...)
	if span.IsRecording() {
		attrs := info.attributes()
		if info.SessionID != "" {
			attrs = append(attrs, attrSessionID.String(info.SessionID))
		}
		switch id := info.RequestID.(type) {
		case string:
			attrs = append(attrs, attrRequestID.String(id))
		case int64:
			attrs = append(attrs, attrRequestID.String(strconv.FormatInt(id, 10)))
		}
		span.SetAttributes(attrs...)
	}
	return ctx, Operation{t: t, span: span, start: time.Now(), info: info}
}

// spanName is the span name of a tools/call of tool.
func (t *Telemetry) spanName(tool string) string {
	if v, ok := t.spanNames.Load(tool); ok {
		return v.(string)
	}
	name := "tools/call " + tool
	if t.namesCount.Load() < maxSpanNames {
		if _, loaded := t.spanNames.LoadOrStore(tool, name); !loaded {
			t.namesCount.Add(1)
		}
	}
	return name
}

// attributes are those the span and the metric share.
func (info OperationInfo) attributes() []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 8)
	attrs = append(attrs, attrMethod.String(info.Method))
	if info.Method == "tools/call" {
		attrs = append(attrs, attrToolName.String(info.Tool), attrOperationName.String("execute_tool"))
	}
	if info.ProtocolVersion != "" {
		attrs = append(attrs, attrProtocolVersion.String(info.ProtocolVersion))
	}
	return attrs
}

// metaCarrier reads the W3C trace context from a request's _meta in
// place: copying it into a propagation.MapCarrier was the largest
// allocation of a successful call (BenchmarkMiddlewareSuccess).
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string { s, _ := m[key].(string); return s }

// Set is never called: Extract only reads.
func (m metaCarrier) Set(string, string) {}

func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, 2)
	for _, k := range []string{"traceparent", "tracestate"} {
		if m.Get(k) != "" {
			keys = append(keys, k)
		}
	}
	return keys
}

// Outcome is how an operation ended.
type Outcome struct {
	// ToolError: a tools/call result with isError set.
	ToolError bool
	// JSONRPCCode is set for a JSON-RPC error answer (and 0 otherwise).
	JSONRPCCode int64
	// Err is an error that is neither (a transport failure, say).
	Err error
	// Failure is the toolFailure object the result went out with, if any.
	Failure *ToolFailure
}

// End ends the span and records the duration.
func (o *Operation) End(ctx context.Context, out Outcome) {
	if o == nil {
		return
	}
	recording, measuring := o.span.IsRecording(), o.t.duration.Enabled(ctx)
	if !recording && !measuring {
		o.span.End()
		return
	}
	errType := ""
	switch {
	case out.JSONRPCCode != 0:
		errType = strconv.FormatInt(out.JSONRPCCode, 10)
	case out.ToolError:
		errType = "tool_error"
	case out.Err != nil:
		errType = fmt.Sprintf("%T", out.Err)
	}
	if recording {
		if out.JSONRPCCode != 0 {
			o.span.SetAttributes(attrRPCStatusCode.String(errType))
		}
		if errType != "" {
			o.span.SetAttributes(attrErrorType.String(errType))
			o.span.SetStatus(codes.Error, errType)
		}
		if f := out.Failure; f != nil {
			o.span.SetAttributes(attrClass.String(string(f.Class)), attrCode.String(f.Code), attrCorrelationID.String(f.CorrelationID))
		}
	}
	o.span.End()
	if measuring {
		attrs := o.info.attributes()
		if errType != "" {
			attrs = append(attrs, attrErrorType.String(errType))
		}
		o.t.duration.Record(ctx, time.Since(o.start).Seconds(), metric.WithAttributes(attrs...))
	}
}

// spanTraceparent is the W3C traceparent of the span in ctx, or "".
func spanTraceparent(ctx context.Context) string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ""
	}
	c := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, c)
	return c["traceparent"]
}
