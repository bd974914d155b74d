package mcpfailure

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	toolfailurev1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
)

// StatelessProtocolVersion is the first MCP protocol version without
// initialize, whose every result must carry resultType.
const StatelessProtocolVersion = "2026-07-28"

// NeedsResultType reports whether results sent under the negotiated
// protocol version must carry resultType (MCP 2026-07-28: "Servers
// implementing this protocol version MUST include this field"). An unknown
// version ("") does not: clients read a missing resultType as "complete".
func NeedsResultType(protocolVersion string) bool {
	return protocolVersion >= StatelessProtocolVersion
}

// protocolVersion is the version a request was made under: the session's,
// negotiated by initialize, or the one each request of the stateless
// protocol names in its _meta.
func protocolVersion(req mcp.Request) string {
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		if ip := ss.InitializeParams(); ip != nil && ip.ProtocolVersion != "" {
			return ip.ProtocolVersion
		}
	}
	if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil {
		v, _ := call.Params.Meta[mcp.MetaKeyProtocolVersion].(string)
		return v
	}
	return ""
}

// withResultType returns res with resultType "complete" when it has none.
// The go-sdk keeps the field unexported and sets it in its own tool
// handler, so a result that a middleware further in built afresh lacks
// it; a JSON round trip is the only way to set it from outside the SDK.
// It runs only for a failed result that went to the service, whose
// Classify call costs far more.
func withResultType(res *mcp.CallToolResult) *mcp.CallToolResult {
	b, err := json.Marshal(res)
	if err != nil {
		return res
	}
	var probe struct {
		ResultType *string `json:"resultType"`
	}
	if json.Unmarshal(b, &probe) != nil || probe.ResultType != nil {
		return res
	}
	b = append(append([]byte(`{"resultType":"complete",`), b[1:len(b)-1]...), '}')
	if bytes.Equal(b[len(b)-2:], []byte(",}")) { // res encoded as {}
		b = append(b[:len(b)-2], '}')
	}
	var out mcp.CallToolResult
	if json.Unmarshal(b, &out) != nil {
		return res
	}
	return &out
}

// recordsProtocolError reports whether a JSON-RPC error answer to
// tools/call is the tool's own failure, which the middleware records, as
// opposed to a protocol error of the SDK's (an unknown tool, arguments
// that fail the schema, a cancelled request), which stays out of the
// proposal's scope. Recorded: an internal error (-32603), a Go error
// without a code (the SDK writes code 0), the implementation-defined
// server errors below the range MCP 2026-07-28 reserves (-32000..-32019),
// and application codes outside JSON-RPC's reserved range.
func recordsProtocolError(code int64) bool {
	switch {
	case code == jsonrpc.CodeInternalError, code == 0:
		return true
	case code >= -32019 && code <= -32000:
		return true
	case code >= -32768 && code <= -32000:
		return false
	}
	return true
}

// recordProtocolError records a JSON-RPC error answer of a tool with the
// service and returns the error to send instead: the same code and
// message, with error.data.correlationId added, so that the user can quote
// the ID as for a failed result. When the error is not the tool's own, or
// the service does not answer within the budget, err is returned as it is.
func (a *Annotator) recordProtocolError(ctx context.Context, call *mcp.CallToolRequest,
	annotations func(context.Context, string) *mcp.ToolAnnotations, err error,
) error {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return err
	}
	wire := &jsonrpc.Error{Message: err.Error()}
	var werr *jsonrpc.Error
	if errors.As(err, &werr) {
		// As the SDK encodes it: the outer message, the wrapped code.
		wire.Code, wire.Data = werr.Code, werr.Data
	}
	if !recordsProtocolError(wire.Code) {
		return err
	}
	a.failed.Add(1)
	tool := call.Params.Name
	start := time.Now()
	bctx, cancel := context.WithTimeout(ctx, a.cfg.Budget)
	defer cancel()
	raw := &toolfailurev1.RawError{Message: truncate(wire.Message, 16<<10), Type: errorType(err)}
	if wire.Code >= -1<<31 && wire.Code <= 1<<31-1 && wire.Code != 0 {
		code := int32(wire.Code)
		raw.JsonrpcCode = &code
	}
	if len(wire.Data) > 0 {
		var data any
		if json.Unmarshal(wire.Data, &data) == nil {
			if v, err := structpb.NewValue(map[string]any{"data": data}); err == nil {
				raw.Details = v
			}
		}
	}
	req := &toolfailurev1.ClassifyRequest{
		Tool:        tool,
		Server:      a.cfg.Server,
		Error:       raw,
		Traceparent: classifyTraceparent(bctx, call.Params.Meta),
		OccurredAt:  timestamppb.New(start),
	}
	if annotations == nil {
		annotations = a.cfg.Annotations
	}
	if annotations != nil {
		req.ToolAnnotations = AnnotationsProto(annotations(bctx, tool))
	}
	resp, cerr := a.cfg.Classifier.Classify(bctx, req)
	if cerr == nil {
		// Recorded; data that cannot carry the ID (not an object, or one
		// with a correlationId of its own) goes out as the tool wrote it.
		a.classified.Add(1)
		id := resp.GetToolFailure().GetCorrelationId()
		if data, ok := WithCorrelationID(wire.Data, id); ok && id != "" {
			wire.Data = data
			return wire
		}
		return err
	}
	a.miss(bctx, tool, start, cerr)
	return err
}

// WithCorrelationID returns JSON-RPC error data with a correlationId member
// added: {"correlationId": id} for no data, the object with the member
// appended (every other member keeping its bytes) for an object. Data that
// is not an object, or that has a correlationId of its own, cannot carry
// ours without changing what the server said, and is returned unchanged
// with ok false.
func WithCorrelationID(data json.RawMessage, id string) (_ json.RawMessage, ok bool) {
	quoted, err := json.Marshal(id)
	if err != nil {
		return data, false
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return json.RawMessage(`{"correlationId":` + string(quoted) + `}`), true
	}
	var members map[string]json.RawMessage
	if trimmed[0] != '{' || json.Unmarshal(trimmed, &members) != nil {
		return data, false
	}
	if _, taken := members["correlationId"]; taken {
		return data, false
	}
	out := make([]byte, 0, len(trimmed)+len(quoted)+18)
	out = append(out, trimmed[:len(trimmed)-1]...) // without the closing brace
	if len(members) > 0 {
		out = append(out, ',')
	} else {
		out = bytes.TrimRight(out, " \t\r\n")
	}
	out = append(out, `"correlationId":`...)
	out = append(out, quoted...)
	return append(out, '}'), true
}
