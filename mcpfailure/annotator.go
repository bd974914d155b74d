package mcpfailure

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"regexp"
	"sync/atomic"
	"time"

	"connectrpc.com/connect/v2"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/types/known/timestamppb"

	toolfailurev1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/class"
	"github.com/omcp/toolfailure/internal/classwire"
)

// DefaultBudget is how long an Annotator waits for the service before it
// lets a failed result go out unchanged. A tool call that already failed is
// on the model's critical path; a quarter of a second is long enough for a
// service in the same region to store the record, and short enough that a
// user never notices the wait when the service is away.
const DefaultBudget = 250 * time.Millisecond

// AnnotatorConfig configures an Annotator.
type AnnotatorConfig struct {
	// Classifier is the service; required. See NewClassifierClient.
	Classifier Classifier
	// Server is the label this MCP server reports under (ClassifyRequest.server),
	// so that support can tell servers of one tenant apart. Optional.
	Server string
	// Budget bounds the whole detour for one failed result: looking up the
	// tool's annotations and the Classify call. Zero means DefaultBudget.
	Budget time.Duration
	// Annotations, when set, supplies a tool's annotations. When nil, the
	// Annotator asks the server it is installed on (a tools/list through the
	// rest of the middleware chain), so annotations declared with AddTool are
	// picked up with no extra wiring. A proxy sets this to answer from the
	// upstream's tool list.
	Annotations func(ctx context.Context, tool string) *mcp.ToolAnnotations
	// Logger receives one warning per miss. Nil means slog.Default().
	Logger *slog.Logger
	// MetaKey is the _meta key the toolFailure object is written under and
	// the name the extension is advertised by in capabilities.extensions.
	// Empty means MetaKey, the proposal's name; a deployment sets a vendor
	// prefix here (and the same name in its clients) to run the draft
	// without claiming the io.modelcontextprotocol namespace.
	MetaKey string
	// Telemetry records each request the middleware serves as an MCP server
	// span and in mcp.server.operation.duration, and makes the span the
	// parent of the failure's Classify call. Nil means NewTelemetry on the
	// global providers, which cost next to nothing until a program installs
	// an OpenTelemetry SDK.
	Telemetry *Telemetry
}

// Annotator attaches the toolFailure key to failed tool results. Install
// Middleware on an mcp.Server with AddReceivingMiddleware, or call Annotate
// on results obtained another way (a proxy does). It is safe for concurrent
// use.
type Annotator struct {
	cfg AnnotatorConfig

	failed     atomic.Uint64
	classified atomic.Uint64
	untouched  atomic.Uint64
	missed     atomic.Uint64
	timedOut   atomic.Uint64
}

// Stats counts what an Annotator did since it was created. Misses are the
// number to alert on: each one is a failed call whose user got no
// correlation ID.
type Stats struct {
	// Failed counts error results seen (isError true), and the JSON-RPC
	// errors of a tool's own that the middleware records.
	Failed uint64
	// Classified counts results that went out with the key attached, and
	// JSON-RPC errors that were recorded.
	Classified uint64
	// AlreadyTagged counts results that carried the key already and were
	// left exactly as they were.
	AlreadyTagged uint64
	// Missed counts results that went out unchanged because the service was
	// slow, down, refused the call, or answered with an unusable object.
	Missed uint64
	// MissedTimeout is the part of Missed where the budget ran out.
	MissedTimeout uint64
}

// NewAnnotator checks cfg and returns an Annotator.
func NewAnnotator(cfg AnnotatorConfig) (*Annotator, error) {
	if cfg.Classifier == nil {
		return nil, errors.New("mcpfailure: AnnotatorConfig.Classifier is required")
	}
	if cfg.Budget < 0 {
		return nil, fmt.Errorf("mcpfailure: AnnotatorConfig.Budget %v is negative", cfg.Budget)
	}
	if cfg.Budget == 0 {
		cfg.Budget = DefaultBudget
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.MetaKey == "" {
		cfg.MetaKey = MetaKey
	}
	if err := CheckMetaKey(cfg.MetaKey); err != nil {
		return nil, fmt.Errorf("mcpfailure: AnnotatorConfig.MetaKey: %w", err)
	}
	if cfg.Telemetry == nil {
		t, err := NewTelemetry(TelemetryConfig{})
		if err != nil {
			return nil, fmt.Errorf("mcpfailure: %w", err)
		}
		cfg.Telemetry = t
	}
	return &Annotator{cfg: cfg}, nil
}

// Stats returns a snapshot of the counters.
func (a *Annotator) Stats() Stats {
	return Stats{
		Failed:        a.failed.Load(),
		Classified:    a.classified.Load(),
		AlreadyTagged: a.untouched.Load(),
		Missed:        a.missed.Load(),
		MissedTimeout: a.timedOut.Load(),
	}
}

// Middleware is an mcp.Middleware for Server.AddReceivingMiddleware. It
// looks only at tools/call answers: a result with isError set goes to the
// service and gains the key; a JSON-RPC error that the tool itself caused
// (see recordsProtocolError) is recorded and reaches the client with
// error.data.correlationId added. Every other method, successful results
// and the SDK's own protocol errors (an unknown tool, invalid params) pass
// through untouched. It also advertises the extension in the initialize
// and server/discover results.
//
// Install it first (outermost) so that it sees the result as it will be
// sent, after any middleware that rewrites results.
func (a *Annotator) Middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ctx, op := a.cfg.Telemetry.start(ctx, operationInfo(method, req))
		result, err := a.serve(ctx, next, method, req)
		op.End(ctx, a.outcomeOf(result, err))
		return result, err
	}
}

func (a *Annotator) serve(ctx context.Context, next mcp.MethodHandler, method string, req mcp.Request) (mcp.Result, error) {
	result, err := next(ctx, method, req)
	if err == nil && (method == "initialize" || method == "server/discover") {
		return a.advertise(result), nil
	}
	if method != "tools/call" {
		return result, err
	}
	call, ok := req.(*mcp.CallToolRequest)
	if !ok || call.Params == nil {
		return result, err
	}
	if err != nil {
		return nil, a.recordProtocolError(ctx, call, a.annotationLookup(next, call), err)
	}
	res, ok := result.(*mcp.CallToolResult)
	if !ok || res == nil || !res.IsError {
		return result, err
	}
	out := a.annotate(ctx, call.Params.Name, call.Params.Meta, a.annotationLookup(next, call), res)
	if out != res && NeedsResultType(protocolVersion(req)) {
		out = withResultType(out)
	}
	return out, nil
}

// annotationLookup is where a failure's tool annotations come from: the
// configured source, else the server the middleware is installed on. It is
// made only for a failure, so that a successful call allocates no closure.
func (a *Annotator) annotationLookup(next mcp.MethodHandler, call *mcp.CallToolRequest) func(context.Context, string) *mcp.ToolAnnotations {
	if a.cfg.Annotations != nil || call.Session == nil {
		return nil // annotate falls back to the configured source
	}
	return func(ctx context.Context, tool string) *mcp.ToolAnnotations {
		return annotationsFromServer(ctx, next, call.Session, tool)
	}
}

// operationInfo reads what the conventions record from a request.
func operationInfo(method string, req mcp.Request) OperationInfo {
	info := OperationInfo{Method: method}
	// A request without params (notifications/initialized, say) holds a
	// typed nil, whose GetMeta would dereference it.
	if p := req.GetParams(); p != nil {
		if v := reflect.ValueOf(p); v.Kind() != reflect.Pointer || !v.IsNil() {
			info.RequestMeta = p.GetMeta()
		}
	}
	if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil {
		info.Tool = call.Params.Name
	}
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		info.SessionID = ss.ID()
		if ip := ss.InitializeParams(); ip != nil {
			info.ProtocolVersion = ip.ProtocolVersion
		}
	}
	if v, ok := info.RequestMeta[mcp.MetaKeyProtocolVersion].(string); ok && info.ProtocolVersion == "" {
		info.ProtocolVersion = v // the stateless protocol says it on every request
	}
	return info
}

// outcomeOf reads how a request ended, for its span and metric.
func (a *Annotator) outcomeOf(result mcp.Result, err error) Outcome {
	if err != nil {
		var werr *jsonrpc.Error
		if errors.As(err, &werr) {
			return Outcome{JSONRPCCode: werr.Code}
		}
		return Outcome{Err: err}
	}
	res, ok := result.(*mcp.CallToolResult)
	if !ok || res == nil || !res.IsError {
		return Outcome{}
	}
	out := Outcome{ToolError: true}
	if v, ok := res.Meta[a.cfg.MetaKey]; ok {
		if tf, err := parseObject(v); err == nil {
			out.Failure = &tf
		}
	}
	return out
}

// Annotate returns res with the toolFailure key attached when res is an
// error result, the service answered within the budget, and res does not
// carry the key already; otherwise it returns res itself. It never fails:
// a miss is logged and counted, and the caller sends what it gets back.
//
// requestMeta is the tools/call request's _meta, read for the W3C
// traceparent. annotations may be nil: then AnnotatorConfig.Annotations is
// asked, if set, and otherwise the tool is reported without them. res is
// never modified; a copy is returned, so that a handler that returns a
// shared result value is safe.
func (a *Annotator) Annotate(ctx context.Context, tool string, requestMeta map[string]any, annotations *mcp.ToolAnnotations, res *mcp.CallToolResult) *mcp.CallToolResult {
	lookup := func(context.Context, string) *mcp.ToolAnnotations { return annotations }
	if annotations == nil {
		lookup = nil // annotate falls back to the configured source
	}
	return a.annotate(ctx, tool, requestMeta, lookup, res)
}

func (a *Annotator) annotate(ctx context.Context, tool string, requestMeta map[string]any,
	annotations func(context.Context, string) *mcp.ToolAnnotations, res *mcp.CallToolResult,
) *mcp.CallToolResult {
	if res == nil || !res.IsError {
		return res
	}
	a.failed.Add(1)
	if _, ok := res.Meta[a.cfg.MetaKey]; ok {
		// The tool (or a relay before us) classified this failure itself,
		// and its correlation ID is the one its logs know. A second ID
		// would split the trail, so the result stays exactly as it is.
		a.untouched.Add(1)
		return res
	}

	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, a.cfg.Budget)
	defer cancel()

	req := &toolfailurev1.ClassifyRequest{
		Tool:        tool,
		Server:      a.cfg.Server,
		Error:       rawError(res),
		Traceparent: classifyTraceparent(ctx, requestMeta),
		OccurredAt:  timestamppb.New(start),
	}
	if annotations == nil {
		annotations = a.cfg.Annotations
	}
	if annotations != nil {
		req.ToolAnnotations = AnnotationsProto(annotations(ctx, tool))
	}
	resp, err := a.cfg.Classifier.Classify(ctx, req)
	if err == nil {
		var obj map[string]any
		obj, err = metaObject(resp)
		if err == nil {
			out := *res
			out.Meta = maps.Clone(res.Meta)
			if out.Meta == nil {
				out.Meta = mcp.Meta{}
			}
			out.Meta[a.cfg.MetaKey] = obj
			a.classified.Add(1)
			return &out
		}
	}
	a.miss(ctx, tool, start, err)
	return res
}

// classifyTraceparent is the trace context the Classify call carries: the
// MCP server span in ctx when there is one, so that the service's Classify
// span is its child; else the caller's, from the request's _meta.
func classifyTraceparent(ctx context.Context, requestMeta map[string]any) string {
	if tp := spanTraceparent(ctx); tp != "" {
		return tp
	}
	return Traceparent(requestMeta)
}

func (a *Annotator) miss(ctx context.Context, tool string, start time.Time, err error) {
	a.missed.Add(1)
	reason := "error"
	switch {
	case errors.Is(err, context.DeadlineExceeded) || connect.CodeOf(err) == connect.CodeDeadlineExceeded:
		reason = "budget exceeded"
		a.timedOut.Add(1)
	case connect.CodeOf(err) == connect.CodeUnavailable:
		reason = "service unavailable"
	}
	a.cfg.Logger.WarnContext(ctx, "toolfailure: failed tool result sent without classification",
		slog.String("tool", tool),
		slog.String("reason", reason),
		slog.Duration("elapsed", time.Since(start)),
		slog.Duration("budget", a.cfg.Budget),
		slog.Any("error", err),
	)
}

// metaObject builds the toolFailure object from the response's typed
// ToolFailure, with the keys and JSON forms of the proposal (retryable only
// for reliability, retryNotBefore as integer epoch milliseconds only when
// retryable); the response's meta Struct carries the same object for
// clients in other languages, but every number in it is a double. It
// refuses an object the proposal's clients could not use, so that a service
// bug becomes a counted miss, not a malformed result.
func metaObject(resp *toolfailurev1.ClassifyResponse) (map[string]any, error) {
	tf := resp.GetToolFailure()
	if tf == nil {
		return nil, errors.New("classify response has no toolFailure")
	}
	c := classwire.FromProto(tf.GetClass())
	obj := map[string]any{"class": string(c), "code": tf.GetCode(), "correlationId": tf.GetCorrelationId()}
	if c == class.Reliability {
		obj["retryable"] = tf.GetRetryable()
		if tf.GetRetryable() && tf.GetRetryNotBefore() != nil {
			obj["retryNotBefore"] = tf.GetRetryNotBefore().AsTime().UnixMilli()
		}
	}
	if g := tf.GetAgentGuidance(); g != "" {
		obj["agentGuidance"] = g
	}
	if _, err := parseObject(obj); err != nil {
		return nil, fmt.Errorf("classify response: %w", err)
	}
	return obj, nil
}

// annotationsFromServer asks the server the middleware is installed on for
// its tool list, by sending tools/list down the same chain a client's
// request would take. The go-sdk offers no other way to read a server's
// registered tools, and going through the chain means a server that filters
// tools per session reports what this session was shown. It costs one
// in-process call, and only on the error path.
func annotationsFromServer(ctx context.Context, next mcp.MethodHandler, session *mcp.ServerSession, tool string) *mcp.ToolAnnotations {
	params := &mcp.ListToolsParams{}
	for range 100 { // pages; a bound against a cursor that never ends
		result, err := next(ctx, "tools/list", &mcp.ListToolsRequest{Session: session, Params: params})
		if err != nil {
			return nil
		}
		list, ok := result.(*mcp.ListToolsResult)
		if !ok {
			return nil
		}
		for _, t := range list.Tools {
			if t != nil && t.Name == tool {
				return t.Annotations
			}
		}
		if list.NextCursor == "" {
			return nil
		}
		params = &mcp.ListToolsParams{Cursor: list.NextCursor}
	}
	return nil
}

// AnnotationsProto converts a tool's MCP annotations into the service's
// form; nil stays nil. The proxy uses it too.
func AnnotationsProto(a *mcp.ToolAnnotations) *toolfailurev1.ToolAnnotations {
	if a == nil {
		return nil
	}
	// The go-sdk models idempotentHint and readOnlyHint as plain booleans
	// whose zero value is also the specification's default, so sending
	// false is faithful.
	idempotent, readOnly := a.IdempotentHint, a.ReadOnlyHint
	out := &toolfailurev1.ToolAnnotations{IdempotentHint: &idempotent, ReadOnlyHint: &readOnly}
	if a.DestructiveHint != nil {
		v := *a.DestructiveHint
		out.DestructiveHint = &v
	}
	if a.OpenWorldHint != nil {
		v := *a.OpenWorldHint
		out.OpenWorldHint = &v
	}
	return out
}

var traceparentPattern = regexp.MustCompile(`^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$`)

// Traceparent reads params._meta.traceparent, the MCP convention for
// carrying W3C trace context. A malformed value is dropped rather than sent:
// the service would refuse the whole request over it.
func Traceparent(meta map[string]any) string {
	tp, _ := meta["traceparent"].(string)
	if !traceparentPattern.MatchString(tp) {
		return ""
	}
	return tp
}

// metaKeyPattern is MCP's form of a _meta key with a prefix: dot-separated
// labels (reverse DNS), a slash, and a name.
var metaKeyPattern = regexp.MustCompile(`^[A-Za-z]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z]([A-Za-z0-9-]*[A-Za-z0-9])?)*/[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`)

// CheckMetaKey reports whether key can name the toolFailure object and the
// extension: a prefixed _meta key as MCP defines it, such as the
// proposal's io.modelcontextprotocol/toolFailure or a vendor's
// com.example/toolFailure. An unprefixed key would collide with the keys
// MCP reserves for itself.
func CheckMetaKey(key string) error {
	if !metaKeyPattern.MatchString(key) {
		return fmt.Errorf("%q is not a prefixed _meta key such as com.example/toolFailure", key)
	}
	return nil
}

// ExtensionVersion is the version of the toolFailure proposal this package
// implements, as it advertises it under capabilities.extensions.
const ExtensionVersion = "draft-2026-12"

// advertise adds the toolFailure extension to the server's capabilities
// where the protocol version carries them (the initialize result before
// 2026-07-28, server/discover from it on), as SEP-2133 has an extension
// advertised under capabilities.extensions with its settings, so that a
// client can tell a server that attaches the key on purpose from one whose
// _meta happens to carry it. The result is copied, never modified: the
// server may reuse it.
func (a *Annotator) advertise(result mcp.Result) mcp.Result {
	switch r := result.(type) {
	case *mcp.InitializeResult:
		if r != nil {
			out := *r
			out.Capabilities = withExtension(r.Capabilities, a.cfg.MetaKey)
			return &out
		}
	case *mcp.DiscoverResult:
		if r != nil {
			out := *r
			out.Capabilities = withExtension(r.Capabilities, a.cfg.MetaKey)
			return &out
		}
	}
	return result
}

func withExtension(c *mcp.ServerCapabilities, name string) *mcp.ServerCapabilities {
	var caps mcp.ServerCapabilities
	if c != nil {
		caps = *c
	}
	caps.Extensions = maps.Clone(caps.Extensions)
	caps.AddExtension(name, map[string]any{"version": ExtensionVersion})
	return &caps
}
