package mcpfailure

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/types/known/structpb"

	toolfailurev1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
)

// ToolError is an error a tool handler can return (or wrap) to hand the
// classifier the facts it sorts on: an upstream HTTP status, a Retry-After
// header, a gRPC code. The SDK shows the model only Error(), exactly as for
// any other error; the other fields travel to the service alone.
//
// A handler does not have to use it. A plain Go error is reported with its
// text and its Go type, and an errno (ECONNRESET and the like) by name; a
// ToolError is for when the handler knows more than its error text says.
type ToolError struct {
	// Message is the text the model sees; when empty, Err's text is used.
	Message string
	// Type names the error kind, as an exception class or errno does
	// ("ECONNRESET", "RateLimitError"). Empty means derived from Err.
	Type string
	// HTTPStatus, GRPCCode and JSONRPCCode are the upstream's codes; zero
	// means none (gRPC's 0 is OK, never an error).
	HTTPStatus  int
	GRPCCode    int
	JSONRPCCode int
	// RetryAfter is a Retry-After value as received: seconds or an HTTP-date.
	RetryAfter string
	// Details is any JSON-encodable value, such as the provider's error body.
	// It is sent as error.details.error, next to the result's
	// structuredContent (error.details.structuredContent), so rules can
	// address either.
	Details any
	// Attributes are OpenTelemetry-style attributes, for example
	// "db.response.status_code": "40001".
	Attributes map[string]string
	// Err is the cause, kept for errors.Is and errors.As.
	Err error
}

func (e *ToolError) Error() string {
	switch {
	case e.Message != "":
		return e.Message
	case e.Err != nil:
		return e.Err.Error()
	default:
		return "tool error"
	}
}

func (e *ToolError) Unwrap() error { return e.Err }

// Size caps, below the service's own limits, so that a huge error never
// turns into a refused Classify call (which would cost the failure its
// correlation ID) but into a shortened report.
const (
	maxMessageBytes = 16 << 10
	maxDetailsBytes = 64 << 10
)

// sdkArgumentsPrefix starts the error the go-sdk's typed tool handlers
// (mcp.AddTool) report when the arguments do not validate against the
// tool's input schema.
const sdkArgumentsPrefix = `validating "arguments": `

// rawError gathers what the service needs from one failed tool result: the
// Go error when the handler returned one (the SDK keeps it on the result,
// visible only on the server), else the result's text content; and the
// structuredContent as details.
func rawError(res *mcp.CallToolResult) *toolfailurev1.RawError {
	raw := &toolfailurev1.RawError{}
	goErr := res.GetError()
	details := map[string]any{}

	var te *ToolError
	if errors.As(goErr, &te) {
		raw.Type = te.Type
		raw.HttpStatus = optInt32(te.HTTPStatus, 100, 599)
		raw.GrpcCode = optInt32(te.GRPCCode, 1, 16)
		raw.JsonrpcCode = optInt32(te.JSONRPCCode, -1<<31, 1<<31-1)
		raw.RetryAfter = truncate(te.RetryAfter, 128)
		if len(te.Attributes) > 0 {
			raw.Attributes = make(map[string]string, len(te.Attributes))
			for k, v := range te.Attributes {
				if k == "" || len(raw.Attributes) == 64 {
					continue
				}
				raw.Attributes[truncate(k, 256)] = truncate(v, 4096)
			}
		}
		if te.Details != nil {
			details["error"] = te.Details
		}
	}
	if te == nil && goErr != nil && strings.HasPrefix(goErr.Error(), sdkArgumentsPrefix) {
		// The arguments failed the tool's input schema. The SDK reports
		// this inside the result (as SEP-1303 asks, so that the model can
		// correct itself) with an error built by fmt, which has no type to
		// recognise; -32602 is the code the same failure had as a protocol
		// error, and the classifier's language-neutral word for it.
		code := int32(-32602)
		raw.JsonrpcCode = &code
	}
	if raw.Type == "" && goErr != nil {
		raw.Type = errorType(goErr)
	}
	if goErr != nil {
		raw.Message = goErr.Error()
	} else {
		raw.Message = textOf(res.Content)
	}
	raw.Message = truncate(raw.Message, maxMessageBytes)
	if res.StructuredContent != nil {
		details["structuredContent"] = res.StructuredContent
	}
	if len(details) > 0 {
		raw.Details = detailsValue(details)
	}
	if raw.Message == "" && raw.Type == "" && raw.Details == nil && raw.HttpStatus == nil &&
		raw.GrpcCode == nil && raw.JsonrpcCode == nil && raw.RetryAfter == "" && len(raw.Attributes) == 0 {
		// The service refuses an empty error, and an error result with
		// nothing in it is still a failure worth an ID.
		raw.Message = "tool reported an error without a message"
	}
	return raw
}

func optInt32(v, lo, hi int) *int32 {
	if v == 0 || v < lo || v > hi {
		return nil
	}
	n := int32(v)
	return &n
}

// textOf joins the text parts of a result, which is where servers that do
// not return Go errors put their error message.
func textOf(content []mcp.Content) string {
	var parts []string
	for _, c := range content {
		if t, ok := c.(*mcp.TextContent); ok && t.Text != "" {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// detailsValue converts details to the wire's google.protobuf.Value through
// one JSON round trip (structuredContent is often a json.RawMessage or a
// typed struct). Details that cannot be encoded, or are too large, are
// dropped: the message alone still gets the failure classified.
func detailsValue(details map[string]any) *structpb.Value {
	b, err := json.Marshal(details)
	if err != nil || len(b) > maxDetailsBytes {
		return nil
	}
	var generic any
	if err := json.Unmarshal(b, &generic); err != nil {
		return nil
	}
	v, err := structpb.NewValue(generic)
	if err != nil {
		return nil
	}
	return v
}

// errnoNames are the errno values a network- or file-backed tool most often
// fails with, by the names the baseline rules (and every runtime's logs)
// use. syscall.Errno's own text is a sentence, not a name.
var errnoNames = map[syscall.Errno]string{
	syscall.ECONNRESET:   "ECONNRESET",
	syscall.ECONNREFUSED: "ECONNREFUSED",
	syscall.ECONNABORTED: "ECONNABORTED",
	syscall.ETIMEDOUT:    "ETIMEDOUT",
	syscall.EHOSTUNREACH: "EHOSTUNREACH",
	syscall.ENETUNREACH:  "ENETUNREACH",
	syscall.EPIPE:        "EPIPE",
	syscall.EAGAIN:       "EAGAIN",
	syscall.ENOENT:       "ENOENT",
	syscall.EACCES:       "EACCES",
	syscall.EPERM:        "EPERM",
	syscall.ENOSPC:       "ENOSPC",
}

// errorType names err's kind the way the corpus of real errors does: an
// errno by name, a deadline as such, otherwise the Go type of the first error
// in the chain that is not a mere wrapper (fmt.Errorf, errors.New and
// errors.Join say nothing about the kind of failure).
func errorType(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		if name, ok := errnoNames[errno]; ok {
			return name
		}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "context.DeadlineExceeded"
	}
	return firstKind(err, 0)
}

// firstKind walks err's tree depth-first (errors.Join and fmt.Errorf with
// several %w make it a tree) and returns the first type that says more than
// "an error".
func firstKind(err error, depth int) string {
	if err == nil || depth > 32 {
		return ""
	}
	switch t := fmt.Sprintf("%T", err); t {
	case "*errors.errorString", "*fmt.wrapError", "*fmt.wrapErrors", "*errors.joinError", "*mcpfailure.ToolError":
	default:
		return t
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return firstKind(u.Unwrap(), depth+1)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if t := firstKind(e, depth+1); t != "" {
				return t
			}
		}
	}
	return ""
}
