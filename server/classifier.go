package server

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"connectrpc.com/connect/v2"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/omcp/toolfailure/correlation"
	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/auth"
	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/internal/classwire"
	"github.com/omcp/toolfailure/internal/fingerprint"
	"github.com/omcp/toolfailure/internal/redact"
	"github.com/omcp/toolfailure/internal/ruleset"
	"github.com/omcp/toolfailure/internal/telemetry"
	"github.com/omcp/toolfailure/store"
)

type classifierService struct {
	cfg Config
	// slots limits how many of a tenant's requests evaluate its rules at
	// once (Limits.RuleConcurrency).
	slots *evalSlots
}

// classifyInput is what ClassifyRequest and ExplainRequest have in common:
// Explain takes the same request by design, and the generated getters let
// one code path serve both.
type classifyInput interface {
	GetTool() string
	GetServer() string
	GetError() *v1.RawError
	GetToolAnnotations() *v1.ToolAnnotations
	GetIdempotencyKey() string
	GetTraceparent() string
	GetOccurredAt() *timestamppb.Timestamp
}

func (s *classifierService) Classify(ctx context.Context, req *v1.ClassifyRequest) (res *v1.ClassifyResponse, err error) {
	p, err := principal(ctx)
	if err != nil {
		return nil, err
	}
	// The Classify span joins the caller's trace (the body's traceparent,
	// else the headers'); the store's queries nest under it.
	ctx, span := s.cfg.Telemetry.StartClassify(ctx, req.GetTool(), req.GetTraceparent())
	defer func() {
		// The span records the code the caller gets, so the answer is made here, by the
		// mapper that errorInterceptor applies to every other call.
		err = connectError(ctx, s.cfg.Logger, err)
		span.Failed(ctx, err)
	}()
	in, err := s.toInput(req)
	if err != nil {
		return nil, err
	}
	now := s.cfg.Now()
	rules, err := s.rulesFor(ctx, p)
	if err != nil {
		return nil, err
	}
	// Tenant rules by priority, then the baseline pack; shadow rules are
	// evaluated and reported, never applied. When the request's rule budget
	// runs out, the baseline decides, and the record is stored as usual.
	verdict, err := s.classify(ctx, p, rules, in, now)
	if err != nil {
		return nil, err
	}
	logShadows(ctx, s.cfg.Logger, p.TenantID, verdict)
	out := verdict.Outcome

	id, err := correlation.New(now)
	if err != nil {
		return nil, internal("cannot mint a correlation ID", err)
	}
	rec, err := s.record(ctx, p, req, in.Error.Details, out, id, now)
	if err != nil {
		return nil, err
	}
	rec.RuleVersion = verdict.Version
	rec.Shadow = shadowJSON(verdict.Shadows)
	if rec.TraceID == "" {
		// No trace context from the caller: link the record to the trace
		// this service started, when it is sampled.
		rec.TraceID, rec.SpanID = span.TraceIDs()
	}
	// The record is prepared here, on the call's goroutine, and only here: every layer of the
	// store trusts it. One that Prepare refuses is a record the store cannot take, answered so.
	var (
		stored  store.Failure
		created bool
	)
	prepared, err := store.Prepare(rec)
	if err == nil {
		stored, created, err = s.cfg.Store.InsertFailure(ctx, prepared)
	}
	if err != nil {
		return nil, storeFailed(ctx, "store failure record", p.TenantID, "the failure could not be stored; retry shortly", err)
	}
	noteCorrelationID(ctx, correlation.ID(stored.ID))
	span.Recorded(ctx, telemetry.Classification{
		TenantID: p.TenantID, TenantName: p.TenantName,
		CorrelationID: correlation.ID(stored.ID).String(),
		Tool:          stored.Tool, Server: stored.Server,
		Class: stored.Class, Code: stored.Code, Retryable: stored.Retryable,
		RuleID: stored.RuleID, Replay: !created,
	})
	// On an idempotent replay the stored record, not this evaluation, is
	// the answer: the caller must see the ID and outcome it saw before.
	return classifyResponse(stored)
}

func (s *classifierService) Explain(ctx context.Context, req *v1.ExplainRequest) (*v1.ExplainResponse, error) {
	p, err := principal(ctx)
	if err != nil {
		return nil, err
	}
	in, err := s.toInput(req)
	if err != nil {
		return nil, err
	}
	rules, err := s.rulesFor(ctx, p)
	if err != nil {
		return nil, err
	}
	// One path for every tenant: with rules or without, Explain shows the
	// same trail, worded the same way.
	release, err := s.evalSlot(ctx, p, rules)
	if err != nil {
		return nil, err
	}
	defer release()
	ex, err := rules.ExplainContext(ctx, in, s.cfg.Now())
	if err != nil {
		return nil, evalStopped(ctx, err)
	}
	return explainResponse(ex), nil
}

// classify evaluates the tenant's rules, then the baseline, within the
// request's rule budget and one of the tenant's evaluation slots; it stops
// when the caller goes away.
func (s *classifierService) classify(ctx context.Context, p auth.Principal, rules *ruleset.Set, in *classify.Input, now time.Time) (ruleset.Result, error) {
	release, err := s.evalSlot(ctx, p, rules)
	if err != nil {
		return ruleset.Result{}, err
	}
	defer release()
	res, err := rules.ClassifyContext(ctx, in, now)
	if err != nil {
		return res, evalStopped(ctx, err)
	}
	if res.Exhausted {
		s.cfg.Logger.WarnContext(ctx, "rule budget spent; the baseline decided", "tenant", p.TenantID,
			"stopped_at_rule", res.StoppedAt, "spent", res.Spent, "budget", ruleset.RequestBudget, "rule_version", res.Version)
	}
	return res, nil
}

// evalSlot takes one of the tenant's rule-evaluation slots (evalSlots), unless
// the call holds one already; a tenant without rules needs none.
func (s *classifierService) evalSlot(ctx context.Context, p auth.Principal, rules *ruleset.Set) (release func(), err error) {
	if release, ok := heldSlot(ctx); ok {
		// The tenant gate's, taken before the body was decoded; giving it back here lets the
		// tenant's next request in while this one is stored.
		return release, nil
	}
	if rules.Len() == 0 || s.slots == nil {
		return func() {}, nil
	}
	release, err = s.slots.acquire(ctx, p.TenantID)
	if err != nil {
		return nil, evalStopped(ctx, err)
	}
	return release, nil
}

// rulesFor returns the tenant's compiled rule set from the cache.
func (s *classifierService) rulesFor(ctx context.Context, p auth.Principal) (*ruleset.Set, error) {
	rules, err := s.cfg.Rules.Get(ctx, p.TenantID)
	if err != nil {
		return nil, storeFailed(ctx, "load rules", p.TenantID, "the tenant's rules could not be loaded; retry shortly", err)
	}
	return rules, nil
}

// toInput checks what protovalidate cannot express (the size and depth of
// free-form details) and maps the wire request into the domain's input.
func (s *classifierService) toInput(req classifyInput) (*classify.Input, error) {
	if err := s.checkDetails(req.GetError().GetDetails()); err != nil {
		return nil, err
	}
	return ClassifyInput(req), nil
}

func (s *classifierService) checkDetails(v *structpb.Value) error {
	lim := newBodyLimits(s.cfg.Limits)
	switch v {
	case nil:
		return nil
	case detailsTooDeep:
		// Refused by the codec while reading, before they were decoded (bodylimits.go).
		return refused(lim.tooDeep())
	case detailsTooLarge:
		return refused(lim.tooLarge())
	}
	shape := jsonShape{limit: s.cfg.Limits.MaxDetailsDepth}
	size, deepest, err := shape.measure(v, 0)
	switch {
	case deepest > s.cfg.Limits.MaxDetailsDepth:
		return refused(lim.tooDeep())
	case err != nil:
		return invalid("error.details", err.Error())
	case size > s.cfg.Limits.MaxDetailsBytes:
		return refused(lim.tooLarge())
	}
	return nil
}

// ClassifyInput maps a Classify or Explain request into the domain's
// input, exactly as the service does before classifying; "rules test"
// uses it to run offline with the same mapping.
func ClassifyInput(req interface {
	GetTool() string
	GetServer() string
	GetError() *v1.RawError
	GetToolAnnotations() *v1.ToolAnnotations
}) *classify.Input {
	e := req.GetError()
	in := &classify.Input{
		Tool:   req.GetTool(),
		Server: req.GetServer(),
		Error: classify.RawError{
			Message:     e.GetMessage(),
			Type:        e.GetType(),
			HTTPStatus:  e.HttpStatus,
			GRPCCode:    e.GrpcCode,
			JSONRPCCode: e.JsonrpcCode,
			RetryAfter:  e.GetRetryAfter(),
			Attributes:  e.GetAttributes(),
		},
	}
	if d := e.GetDetails(); d != nil {
		in.Error.Details = d.AsInterface()
	}
	if a := req.GetToolAnnotations(); a != nil {
		in.Annotations = classify.Annotations{
			IdempotentHint:  a.IdempotentHint,
			ReadOnlyHint:    a.ReadOnlyHint,
			DestructiveHint: a.DestructiveHint,
			OpenWorldHint:   a.OpenWorldHint,
		}
	}
	return in
}

// record builds the durable record: the raw error is redacted here, before
// anything is written, and trace context is taken from the request field or,
// failing that, from the call's own headers.
func (s *classifierService) record(ctx context.Context, p auth.Principal, req *v1.ClassifyRequest, details any, out classify.Outcome, id correlation.ID, now time.Time) (store.Failure, error) {
	e := req.GetError()
	rawJSON, message, typ, err := redactedError(e, details)
	if err != nil {
		return store.Failure{}, invalid("error", err.Error())
	}
	var annotations json.RawMessage
	if a := req.GetToolAnnotations(); a != nil {
		annotations = annotationsJSON(a)
	}
	tp := req.GetTraceparent()
	if tp == "" {
		if info, ok := connect.CallInfoForServerContext(ctx); ok {
			tp = info.RequestHeader().Get("traceparent")
		}
	}
	traceID, spanID := parseTraceparent(tp)
	occurred := now
	if ts := req.GetOccurredAt(); ts != nil {
		if err := invalidTime(ts, "occurredAt"); err != nil {
			return store.Failure{}, err
		}
		occurred = ts.AsTime()
	}
	return store.Failure{
		TenantID: p.TenantID,
		ID:       id,
		// The tool's name and the server's label are what the caller
		// sent: redacted like every other stored field, so that a secret
		// pasted into either is not kept.
		Tool:            redact.String(req.GetTool()),
		Server:          redact.String(req.GetServer()),
		Class:           string(out.Class),
		Code:            out.Code,
		Retryable:       out.Retryable,
		RetryNotBefore:  out.RetryNotBefore,
		AgentGuidance:   out.AgentGuidance,
		RuleID:          out.RuleID,
		Error:           rawJSON,
		ToolAnnotations: annotations,
		TraceID:         traceID,
		SpanID:          spanID,
		IdempotencyKey:  req.GetIdempotencyKey(),
		// In-process, from what is stored (the redacted text), so that the
		// template a group shows holds no secret either.
		Fingerprint: recordFingerprint(req.GetTool(), typ, message, e),
		CreatedAt:   now.UTC().Truncate(time.Microsecond),
		OccurredAt:  occurred.UTC().Truncate(time.Microsecond),
	}, nil
}

func recordFingerprint(tool, typ, message string, e *v1.RawError) string {
	fp, _ := fingerprint.Of(fingerprint.Input{
		Tool: tool, Type: typ, Message: message,
		HTTPStatus: e.HttpStatus, GRPCCode: e.GrpcCode, JSONRPCCode: e.JsonrpcCode,
	})
	return fp
}

// parseTraceparent extracts trace and parent span IDs from a W3C traceparent, as
// OpenTelemetry's propagator reads it (the one that parents the Classify span); anything it
// refuses (malformed, version ff, all-zero IDs) yields none.
func parseTraceparent(tp string) (traceID, spanID string) {
	sc := trace.SpanContextFromContext(propagation.TraceContext{}.Extract(context.Background(),
		propagation.MapCarrier{"traceparent": strings.TrimSpace(tp)}))
	if !sc.IsValid() {
		return "", ""
	}
	return sc.TraceID().String(), sc.SpanID().String()
}

func toolFailureOf(o classify.Outcome, correlationID string) *v1.ToolFailure {
	tf := &v1.ToolFailure{
		Class:         classwire.ToProto(o.Class),
		Code:          o.Code,
		Retryable:     o.Retryable,
		CorrelationId: correlationID,
		AgentGuidance: o.AgentGuidance,
	}
	if o.Retryable && !o.RetryNotBefore.IsZero() {
		tf.RetryNotBefore = timestamppb.New(o.RetryNotBefore)
	}
	return tf
}

// outcomeOf rebuilds the outcome from a stored record.
func outcomeOf(f store.Failure) classify.Outcome {
	return classify.Outcome{
		Class:          classify.Class(f.Class),
		Code:           f.Code,
		Retryable:      f.Retryable,
		RetryNotBefore: f.RetryNotBefore,
		AgentGuidance:  f.AgentGuidance,
		RuleID:         f.RuleID,
	}
}

func classifyResponse(f store.Failure) (*v1.ClassifyResponse, error) {
	out := outcomeOf(f)
	cid := correlation.ID(f.ID).String()
	meta, err := structpb.NewStruct(map[string]any{classify.MetaKey: out.Meta(cid)})
	if err != nil {
		return nil, internal("encode meta", err)
	}
	return &v1.ClassifyResponse{
		ToolFailure: toolFailureOf(out, cid),
		Meta:        meta,
		RuleId:      f.RuleID,
	}, nil
}
