package telemetry

import (
	"context"
	"errors"
	"time"

	"connectrpc.com/connect/v2"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/omcp/toolfailure/internal/classify"
)

// ToolErrorType is the error.type of a span that describes a failed tool
// call, as the MCP semantic conventions define it for a CallToolResult with
// isError set. The finer toolFailure class and code go in their own
// attributes, as the error conventions recommend for a domain that has its
// own error identifiers.
const ToolErrorType = "tool_error"

// OtherCode is the value of the code attribute in metrics for every code
// outside the baseline vocabulary. Codes are an open vocabulary that each
// tenant's rules extend, so counting them verbatim would let one tenant
// create unbounded metric series.
const OtherCode = "other"

var baselineCodes = classify.BaselineCodes()

// Values of AttrOutcome on toolfailure.classify.duration: what became of a
// Classify call, so that one histogram answers both "how fast" and "how
// many failed" without a series per error message.
const (
	OutcomeStored   = "stored"   // a new record was stored
	OutcomeReplayed = "replayed" // an idempotency key matched; nothing new stored
	OutcomeError    = "error"    // no answer; error.type says which Connect code
)

// MetricCode folds a failure code into the bounded set used as a metric
// attribute: a baseline code stays itself, anything else becomes OtherCode.
func MetricCode(code string) string {
	if _, ok := baselineCodes[code]; ok {
		return code
	}
	return OtherCode
}

// ClassifySpan is the span of one Classify call. Start it with
// StartClassify and finish it with Recorded or Failed. Only the first of
// them counts, so a handler can defer Failed for every error path and still
// call Recorded on success. It is not safe for concurrent use; one call
// handles it.
type ClassifySpan struct {
	i     *Instruments
	span  trace.Span
	start time.Time
	ended bool
}

// StartClassify starts the span under which a Classify call does its work,
// and returns a context carrying it; pass that context to the store so that
// its queries nest under the span.
//
// The span joins the caller's trace. A valid traceparent from the request
// body (MCP carries it in params._meta.traceparent, and callers without an
// instrumented HTTP client can only send it there) is the parent; the RPC
// server span, which was parented from the request headers before the body
// was read, is then linked, so that neither trace loses the other. Without
// one the RPC server span is the parent.
func (i *Instruments) StartClassify(ctx context.Context, tool, traceparent string) (context.Context, *ClassifySpan) {
	if i == nil {
		return ctx, nil
	}
	opts := []trace.SpanStartOption{
		trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(AttrGenAIToolName.String(tool)),
	}
	parent := ctx
	if traceparent != "" {
		remote := propagation.TraceContext{}.Extract(context.Background(), propagation.MapCarrier{"traceparent": traceparent})
		if sc := trace.SpanContextFromContext(remote); sc.IsValid() {
			rpc := trace.SpanContextFromContext(ctx)
			if rpc.IsValid() && !rpc.Equal(sc) {
				opts = append(opts, trace.WithLinks(trace.Link{
					SpanContext: rpc,
					Attributes:  []attribute.KeyValue{attribute.String("toolfailure.link", "rpc_server_span")},
				}))
			}
			// The body's trace context replaces the headers' for this
			// span and its children, but the RPC server span stays in
			// the link above.
			parent = trace.ContextWithRemoteSpanContext(ctx, sc)
		}
	}
	ctx, span := i.tracer.Start(parent, "classify "+spanTool(tool), opts...)
	return ctx, &ClassifySpan{i: i, span: span, start: time.Now()}
}

// spanTool keeps span names bounded: tool names are chosen by MCP servers,
// and an absurdly long one belongs in the attribute, not the name.
func spanTool(tool string) string {
	if tool == "" {
		return "(no tool)"
	}
	if len(tool) > 64 {
		return tool[:64] + "…"
	}
	return tool
}

// Classification is what a Classify call decided, for its span and metrics.
type Classification struct {
	TenantID      int64
	TenantName    string
	CorrelationID string // "tf_…"
	Tool          string
	Server        string // the reporting MCP server's label, "" = none
	Class         string // capability, reliability or governance
	Code          string
	Retryable     bool
	RuleID        string
	// Replay is true when an idempotency key matched an earlier record and
	// nothing new was stored.
	Replay bool
}

// Recorded ends the span of a successful Classify: it sets the correlation
// ID, class, code and the other outcome attributes, and counts the
// classification.
//
// The span describes a failed tool call, so it follows the error
// conventions for one: error.type is "tool_error" and the status is Error,
// with the class and code as its description. The RPC server span, by
// contrast, stays OK, because the service did its job; dashboards of the
// service's own health read that span and rpc.server.* metrics.
func (s *ClassifySpan) Recorded(ctx context.Context, c Classification) {
	if s == nil || s.ended {
		return
	}
	s.ended = true
	attrs := []attribute.KeyValue{
		AttrCorrelationID.String(c.CorrelationID),
		AttrClass.String(c.Class),
		AttrCode.String(c.Code),
		AttrRetryable.Bool(c.Retryable),
		AttrRuleID.String(c.RuleID),
		AttrTenantID.Int64(c.TenantID),
		AttrTenantName.String(c.TenantName),
		AttrErrorType.String(ToolErrorType),
	}
	if c.Tool != "" {
		attrs = append(attrs, AttrGenAIToolName.String(c.Tool))
	}
	if c.Server != "" {
		attrs = append(attrs, AttrServerLabel.String(c.Server))
	}
	if c.Replay {
		attrs = append(attrs, AttrReplay.Bool(true))
	}
	s.span.SetAttributes(attrs...)
	s.span.SetStatus(codes.Error, c.Class+"/"+c.Code)
	s.span.End()

	s.i.classifications.Add(ctx, 1, metric.WithAttributeSet(attribute.NewSet(
		AttrTenantID.Int64(c.TenantID),
		AttrTenantName.String(c.TenantName),
		AttrClass.String(c.Class),
		AttrCode.String(MetricCode(c.Code)),
		AttrReplay.Bool(c.Replay),
	)))
	outcome := OutcomeStored
	if c.Replay {
		outcome = OutcomeReplayed
	}
	s.i.classifyDuration.Record(ctx, time.Since(s.start).Seconds(), metric.WithAttributeSet(attribute.NewSet(
		AttrClass.String(c.Class),
		AttrOutcome.String(outcome),
	)))
}

// Failed ends the span of a Classify call that could not answer (invalid
// request, store unavailable). error.type is then the Connect code, which is
// what the caller saw.
func (s *ClassifySpan) Failed(ctx context.Context, err error) {
	if s == nil || s.ended || err == nil {
		return
	}
	s.ended = true
	code := connect.CodeOf(err).String()
	s.span.SetAttributes(AttrErrorType.String(code))
	var ce *connect.Error
	msg := code
	if errors.As(err, &ce) {
		msg = ce.Message()
	}
	s.span.SetStatus(codes.Error, msg)
	s.span.End()
	s.i.classifyDuration.Record(ctx, time.Since(s.start).Seconds(), metric.WithAttributeSet(attribute.NewSet(
		AttrErrorType.String(code),
		AttrOutcome.String(OutcomeError),
	)))
}

// TraceIDs returns the trace and span ID of the Classify span when it is
// sampled, as lowercase hex, and empty strings otherwise. The handler stores
// them when the caller sent no trace context at all, so that the record can
// still link to the trace the service itself started.
func (s *ClassifySpan) TraceIDs() (traceID, spanID string) {
	if s == nil {
		return "", ""
	}
	sc := s.span.SpanContext()
	if !sc.IsValid() || !sc.IsSampled() {
		return "", ""
	}
	return sc.TraceID().String(), sc.SpanID().String()
}
