package mcpproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	toolfailurev1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/classwire"
	"github.com/omcp/toolfailure/mcpfailure"
)

// writeTimeout bounds one write of a finished answer to the client from a
// detour goroutine. Those writes must not use the session's context: the
// session may be shutting down, and the answer is still owed.
const writeTimeout = 10 * time.Second

// annotateAndSend classifies a failed tool result through the service and
// sends it to the client with the toolFailure key added to its _meta. Every
// other byte of the result stays as the upstream wrote it. When the service
// does not answer within the budget, or the result already carries the key,
// the result goes out unchanged.
func (s *session) annotateAndSend(ctx context.Context, c *call, resp *jsonrpc.Response) {
	defer s.work.Done()
	// The call's span goes along, so that the Classify call is its child.
	ctx = trace.ContextWithSpan(context.WithoutCancel(ctx), trace.SpanFromContext(c.opCtx))
	out := resp
	outcome := mcpfailure.Outcome{ToolError: true}
	if result, failure, ok := s.annotate(ctx, c, resp.Result); ok {
		out = &jsonrpc.Response{ID: resp.ID, Result: result}
		outcome.Failure = failure
	}
	if f := outcome.Failure; f != nil {
		// The operator's one line per recorded failure, with the ID a user will quote.
		s.log.Info("toolfailure proxy: a tool call failed; recorded",
			slog.String("tool", c.tool),
			slog.String("class", string(f.Class)),
			slog.String("failureCode", f.Code),
			slog.String("correlationId", f.CorrelationID),
			callDuration(c))
	}
	c.end(outcome)
	wctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	s.toClient(wctx, out)
}

func (s *session) annotate(ctx context.Context, c *call, raw json.RawMessage) (json.RawMessage, *mcpfailure.ToolFailure, bool) {
	members, obj, failure, ok := s.classifyResult(ctx, c, raw)
	if !ok {
		return nil, nil, false
	}
	if mcpfailure.NeedsResultType(c.version) {
		// The proxy writes this result, so it answers for what the
		// negotiated version requires of it, whatever the upstream sent.
		if _, ok := lookup(members, "resultType"); !ok {
			members = append(members, member{"resultType", json.RawMessage(`"complete"`)})
		}
	}
	out, err := withMetaKey(members, s.p.cfg.MetaKey, obj)
	if err != nil {
		s.log.Error("toolfailure proxy: cannot add the toolFailure key", slog.Any("error", err))
		return nil, nil, false
	}
	return out, failure, true
}

// classifyResult has the service classify the failed result raw of call c
// and returns the result's members and the toolFailure object to add to
// them, as JSON. ok is false when the result is to go out unchanged: it is
// not an object, it carries the key already, or the service gave no
// answer within the budget.
func (s *session) classifyResult(ctx context.Context, c *call, raw json.RawMessage) (members []member, obj json.RawMessage, failure *mcpfailure.ToolFailure, ok bool) {
	members, err := objectMembers(raw)
	if err != nil {
		s.log.Warn("toolfailure proxy: failed tool result is not a JSON object; sent unchanged", slog.String("tool", c.tool), slog.Any("error", err))
		return nil, nil, nil, false
	}
	if metaHasKey(members, s.p.cfg.MetaKey) {
		// The server classified the failure itself; its logs know
		// that correlation ID, so the result stays exactly as it is.
		return nil, nil, nil, false
	}
	a, err := s.annotatorFor()
	if err != nil {
		s.log.Error("toolfailure proxy: no annotator", slog.Any("error", err))
		return nil, nil, nil, false
	}

	// One budget for the whole detour: the annotations lookup and Classify.
	// Annotate applies the same budget again, but from a later start, so the
	// deadline set here is the one that counts.
	bctx, cancel := context.WithTimeout(ctx, s.p.cfg.Budget)
	defer cancel()
	annotations := s.annotations(bctx, c)
	res := decodeResult(members)
	annotated := a.Annotate(bctx, c.tool, c.meta, annotations, res)
	if annotated == res {
		return nil, nil, nil, false // a miss; the Annotator logged and counted it
	}
	key := s.p.cfg.MetaKey
	obj, err = marshalJSON(annotated.Meta[key])
	if err != nil {
		s.log.Error("toolfailure proxy: cannot encode the toolFailure object", slog.Any("error", err))
		return nil, nil, nil, false
	}
	if tf, present, err := mcpfailure.Parse(&mcp.CallToolResult{Meta: mcp.Meta{mcpfailure.MetaKey: annotated.Meta[key]}}); present && err == nil {
		failure = &tf
	}
	return members, obj, failure, true
}

// metaHasKey reports whether a result's _meta holds key.
func metaHasKey(members []member, key string) bool {
	meta, ok := lookup(members, "_meta")
	if !ok {
		return false
	}
	metaMembers, err := objectMembers(meta)
	if err != nil {
		return false
	}
	_, tagged := lookup(metaMembers, key)
	return tagged
}

// annotatorFor returns the session's Annotator, made on first use so that
// it reports under the name the upstream gave in its initialize result.
func (s *session) annotatorFor() (*mcpfailure.Annotator, error) {
	s.annotatorOnce.Do(func() {
		s.annotator, s.annotatorErr = mcpfailure.NewAnnotator(mcpfailure.AnnotatorConfig{
			Classifier: s.classifier(),
			Server:     s.label(),
			Budget:     s.p.cfg.Budget,
			Logger:     s.log,
			Telemetry:  s.p.cfg.Telemetry,
			MetaKey:    s.p.cfg.MetaKey,
		})
	})
	return s.annotator, s.annotatorErr
}

func (s *session) label() string {
	if s.p.cfg.Server != "" {
		return s.p.cfg.Server
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.serverName
}

// classifier is the service, through fittingClassifier (see summary.go).
func (s *session) classifier() mcpfailure.Classifier {
	return fittingClassifier{next: s.p.cfg.Classifier, log: s.log}
}

// decodeResult reads from a failed result's members what the Annotator
// sends the service: the text of its text content (the first
// maxMessageBytes of it) and a summary of its structuredContent that the
// service accepts (see summary.go). It reads with the proxy's own scanner,
// which has no depth limit: the SDK's types and encoding/json would refuse
// the whole result over one member nested too deep, and lose the text with
// it. The result the client gets is the upstream's own bytes either way.
func decodeResult(members []member) *mcp.CallToolResult {
	out := &mcp.CallToolResult{IsError: true}
	text := 0
	for _, m := range members {
		switch m.name {
		case "content":
			if len(m.value) == 0 || m.value[0] != '[' {
				continue
			}
			out.Content = nil // the last member of a name wins
			text = 0
			eachElement(m.value, func(item []byte) {
				if item[0] != '{' || text > maxMessageBytes {
					return
				}
				var typ, t string
				_ = eachMember(item, func(name, v []byte) {
					switch string(name) {
					case "type":
						typ, _ = decodeString(v)
					case "text":
						t, _ = decodeString(v)
					}
				})
				if typ == "text" {
					out.Content = append(out.Content, &mcp.TextContent{Text: t})
					text += len(t)
				}
			})
		case "structuredContent":
			out.StructuredContent = nil
			if !isNull(m.value) {
				out.StructuredContent = summarize(m.value)
			}
		}
	}
	return out
}

// recordsProtocolError reports whether a JSON-RPC error answer to tools/call
// is recorded: every error of the upstream's but the echo of a client's
// cancellation. The proxy cannot tell the upstream SDK's protocol errors
// from the tool's own as the middleware can, so it records them all; the
// service maps the standard codes (ProtocolFailure's table).
func recordsProtocolError(err error) bool {
	var werr *jsonrpc.Error
	return errors.As(err, &werr) && werr.Code != codeRequestCancelled
}

// recordAndSendError records a JSON-RPC error answer to tools/call with the
// service, so that it is counted with the other failures of the tool, and
// sends it to the client with error.data.correlationId added, so that the
// user has an ID to quote as for a failed result. Code, message and every
// member of data the upstream wrote stay as they were; data that is not an
// object (or that has a correlationId of its own) is not changed, and the
// ID goes to the log only. The proposal keeps protocol errors JSON-RPC
// errors, without the toolFailure key. When the service does not answer
// within the budget the error goes out unchanged.
func (s *session) recordAndSendError(ctx context.Context, c *call, resp *jsonrpc.Response) {
	defer s.work.Done()
	out := resp
	if werr, id := s.classifyProtocolError(ctx, c, resp); id != "" {
		if data, ok := mcpfailure.WithCorrelationID(werr.Data, id); ok {
			out = &jsonrpc.Response{ID: resp.ID, Error: &jsonrpc.Error{Code: werr.Code, Message: werr.Message, Data: data}}
		}
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	s.toClient(wctx, out)
}

// classifyProtocolError reports a JSON-RPC error answer to tools/call to the
// service and returns the error and the correlation ID it was recorded
// under ("" when it was not).
func (s *session) classifyProtocolError(ctx context.Context, c *call, resp *jsonrpc.Response) (*jsonrpc.Error, string) {
	var werr *jsonrpc.Error
	if !errors.As(resp.Error, &werr) {
		return nil, ""
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.p.cfg.Budget)
	defer cancel()
	raw := &toolfailurev1.RawError{Message: truncate(werr.Message, maxMessageBytes)}
	if werr.Code >= -1<<31 && werr.Code <= 1<<31-1 {
		code := int32(werr.Code)
		raw.JsonrpcCode = &code
	}
	if data := summarizeData(werr.Data); data != nil {
		// A summary that the service takes, as for structuredContent.
		if v, err := structpb.NewValue(map[string]any{"data": data}); err == nil {
			raw.Details = v
		}
	}
	req := &toolfailurev1.ClassifyRequest{
		Tool:            c.tool,
		Server:          s.label(),
		Error:           raw,
		ToolAnnotations: mcpfailure.AnnotationsProto(s.annotations(ctx, c)),
		Traceparent:     mcpfailure.Traceparent(c.meta),
		OccurredAt:      timestamppb.New(time.Now()),
	}
	res, err := s.classifier().Classify(ctx, req)
	if err != nil {
		s.log.Warn("toolfailure proxy: JSON-RPC error of a tool call not recorded; passed on unchanged", slog.String("tool", c.tool), slog.Int64("code", werr.Code), slog.Any("error", err))
		return werr, ""
	}
	tf := res.GetToolFailure()
	s.log.Info("toolfailure proxy: the upstream answered a tool call with a JSON-RPC error; recorded",
		slog.String("tool", c.tool),
		slog.Int64("code", werr.Code),
		slog.String("class", classwire.Word(tf.GetClass())),
		slog.String("failureCode", tf.GetCode()),
		slog.String("correlationId", tf.GetCorrelationId()),
		callDuration(c))
	return werr, tf.GetCorrelationId()
}

// callDuration is how long a tool call has taken since the client sent it, in milliseconds, a
// number in both log formats, as in the service's access lines.
func callDuration(c *call) slog.Attr {
	return slog.Float64("durationMs", float64(time.Since(c.start).Microseconds())/1000)
}

// codeRequestCancelled is the JSON-RPC code some servers answer a cancelled
// request with, although the specification asks them not to answer at all.
const codeRequestCancelled = -32800

// maxMessageBytes caps the error message sent to the service, below the
// service's own limit, so that a huge error becomes a shortened report, not
// a refused one. Details are cut by summarize.
const maxMessageBytes = 16 << 10

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}

// annotations returns the tool's annotations from the upstream's tools/list.
// Clients list tools before they call them, so the answer is usually known
// from the listing the proxy relayed; otherwise the proxy lists the tools
// itself, within ctx (the failure's budget).
func (s *session) annotations(ctx context.Context, c *call) *mcp.ToolAnnotations {
	s.mu.Lock()
	a, known := s.tools[c.tool]
	complete, initialized := s.toolsComplete, s.initialized
	s.mu.Unlock()
	if known || complete {
		return a
	}
	// Before the handshake is over the upstream may refuse other requests.
	// A session on the stateless protocol (2026-07-28) has no handshake;
	// its requests carry the protocol version in _meta instead.
	protocol := protocolMeta(c.meta)
	if !initialized && protocol == nil {
		return nil
	}
	cursor := ""
	for page := 0; page < 100; page++ { // a bound against a cursor that never ends
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		if protocol != nil {
			params["_meta"] = protocol
		}
		result, err := s.request(ctx, "tools/list", params)
		if err != nil {
			s.log.Debug("toolfailure proxy: tools/list for annotations failed", slog.String("tool", c.tool), slog.Any("error", err))
			return nil
		}
		s.learnTools(result, cursor == "")
		var r struct {
			NextCursor string `json:"nextCursor"`
		}
		_ = json.Unmarshal(result, &r)
		s.mu.Lock()
		a, known = s.tools[c.tool]
		s.mu.Unlock()
		if known || r.NextCursor == "" {
			return a
		}
		cursor = r.NextCursor
	}
	return nil
}

// protocolMeta copies the per-request protocol keys of the stateless
// protocol (io.modelcontextprotocol/protocolVersion and its companions) from
// a client request, for a request the proxy sends on the client's behalf.
func protocolMeta(meta map[string]any) map[string]any {
	if _, ok := meta[mcp.MetaKeyProtocolVersion]; !ok {
		return nil
	}
	out := map[string]any{}
	for _, k := range []string{mcp.MetaKeyProtocolVersion, mcp.MetaKeyClientInfo, mcp.MetaKeyClientCapabilities} {
		if v, ok := meta[k]; ok {
			out[k] = v
		}
	}
	return out
}

// request sends a request of the proxy's own to the upstream and waits for
// its answer, which fromUpstream hands over instead of forwarding it.
func (s *session) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	b, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.ownSeq++
	id, err := jsonrpc.MakeID(fmt.Sprintf("%s%d", s.ownPrefix, s.ownSeq))
	ch := make(chan *jsonrpc.Response, 1)
	s.own[id] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.own, id)
		s.mu.Unlock()
	}()
	if err != nil {
		return nil, err
	}
	if err := s.upstream.Write(ctx, &jsonrpc.Request{ID: id, Method: method, Params: b}); err != nil {
		return nil, fmt.Errorf("send %s: %w", method, err)
	}
	select {
	case resp := <-ch:
		if resp.Error != nil {
			return nil, fmt.Errorf("%s: %w", method, resp.Error)
		}
		return resp.Result, nil
	case <-s.upstreamGone:
		return nil, fmt.Errorf("%s: %w", method, ErrUpstreamClosed)
	case <-ctx.Done():
		// Tell the upstream to stop working on it; best effort.
		cancelled, _ := json.Marshal(map[string]any{"requestId": id.Raw(), "reason": "toolfailure proxy: budget exceeded"})
		wctx, stop := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer stop()
		_ = s.upstream.Write(wctx, &jsonrpc.Request{Method: "notifications/cancelled", Params: cancelled})
		return nil, fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// deliverOwn hands the answer to one of the proxy's own requests to its
// waiter. It reports true for every answer that carries one of the proxy's
// IDs, also a late one whose waiter is gone: the client never asked for it.
func (s *session) deliverOwn(resp *jsonrpc.Response) bool {
	if !s.isOwnID(resp.ID) {
		return false
	}
	s.mu.Lock()
	ch := s.own[idKey(resp.ID)]
	s.mu.Unlock()
	if ch != nil {
		select {
		case ch <- resp:
		default:
		}
	}
	return true
}

// member is one name/value pair of a JSON object, its value kept as the
// exact bytes it arrived as.
type member struct {
	name  string
	value json.RawMessage
}

// objectMembers splits a JSON object into its members, in order, each
// value its exact bytes. It scans with the proxy's own scanner, which has no
// depth limit (encoding/json's stops at 10,000 levels).
func objectMembers(b []byte) ([]member, error) {
	i := skipSpace(b, 0)
	if i == len(b) || b[i] != '{' {
		return nil, errors.New("want a JSON object")
	}
	if !segjson.Valid(b) {
		return nil, errors.New("not valid JSON")
	}
	var out []member
	err := eachMember(b[i:], func(name, value []byte) {
		out = append(out, member{string(name), value})
	})
	return out, err
}

func lookup(members []member, name string) (json.RawMessage, bool) {
	for _, m := range members {
		if m.name == name {
			return m.value, true
		}
	}
	return nil, false
}

// withMetaKey returns the result object with _meta[key] set to value. The
// members of the result and of its _meta keep their order and their bytes;
// the key is appended to _meta, which is created when absent.
func withMetaKey(result []member, key string, value json.RawMessage) (json.RawMessage, error) {
	meta := []member{}
	metaAt := -1
	for i, m := range result {
		if m.name == "_meta" {
			metaAt = i
			if string(bytes.TrimSpace(m.value)) != "null" {
				var err error
				if meta, err = objectMembers(m.value); err != nil {
					return nil, fmt.Errorf("_meta: %w", err)
				}
			}
		}
	}
	meta = append(meta, member{key, value})
	metaJSON, err := encodeObject(meta)
	if err != nil {
		return nil, err
	}
	out := append([]member(nil), result...)
	if metaAt >= 0 {
		out[metaAt].value = metaJSON
	} else {
		out = append(out, member{"_meta", metaJSON})
	}
	return encodeObject(out)
}

func encodeObject(members []member) (json.RawMessage, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			buf.WriteByte(',')
		}
		name, err := marshalJSON(m.name)
		if err != nil {
			return nil, err
		}
		buf.Write(name)
		buf.WriteByte(':')
		buf.Write(m.value)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// marshalJSON encodes v without HTML escaping: the text goes to a program,
// and agentGuidance may well contain "&".
func marshalJSON(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
