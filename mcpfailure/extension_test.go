package mcpfailure_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omcp/toolfailure/conformance"
	toolfailurev1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/mcpfailure"
)

// The middleware advertises the extension in the server's capabilities
// (SEP-2133), over each transport, and keeps what the server advertised
// itself.
func TestMiddlewareAdvertisesTheExtension(t *testing.T) {
	t.Parallel()
	a, err := mcpfailure.NewAnnotator(mcpfailure.AnnotatorConfig{Classifier: refusing{}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	for _, transport := range []string{"memory", "http"} {
		caps := &mcp.ServerCapabilities{}
		caps.AddExtension("io.example/other", map[string]any{"on": true})
		s := mcp.NewServer(&mcp.Implementation{Name: "ext", Version: "1"}, &mcp.ServerOptions{Capabilities: caps})
		s.AddReceivingMiddleware(a.Middleware)
		cs := connect(t, s, transport)
		got := cs.InitializeResult().Capabilities.Extensions
		ext, ok := got[mcpfailure.MetaKey].(map[string]any)
		if !ok || ext["version"] != mcpfailure.ExtensionVersion {
			t.Errorf("%s: capabilities.extensions = %v, want %s with version %s", transport, got, mcpfailure.MetaKey, mcpfailure.ExtensionVersion)
		}
		if _, ok := got["io.example/other"]; !ok {
			t.Errorf("%s: the server's own extension is gone: %v", transport, got)
		}
		if _, ok := caps.Extensions[mcpfailure.MetaKey]; ok {
			t.Errorf("%s: the server's own capabilities were modified", transport)
		}
	}
}

// A deployment that runs the draft under a vendor prefix sets the key's
// name once: the extension is advertised under it and failures carry it,
// and the proposal's name appears nowhere.
func TestMiddlewareUsesTheConfiguredKey(t *testing.T) {
	t.Parallel()
	const key = "com.example/toolFailure"
	svc := startService(t, nil)
	a, err := mcpfailure.NewAnnotator(mcpfailure.AnnotatorConfig{Classifier: svc.classifier(), Budget: 5 * time.Second, MetaKey: key})
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "vendor", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "fails", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "upstream returned HTTP 503"}}}, nil
	})
	s.AddReceivingMiddleware(a.Middleware)
	for _, transport := range transports {
		cs := connect(t, s, transport)
		ext := cs.InitializeResult().Capabilities.Extensions
		if v, ok := ext[key].(map[string]any); !ok || v["version"] != mcpfailure.ExtensionVersion {
			t.Errorf("%s: capabilities.extensions = %v, want %s", transport, ext, key)
		}
		if _, ok := ext[mcpfailure.MetaKey]; ok {
			t.Errorf("%s: advertised under the proposal's name too: %v", transport, ext)
		}
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "fails"})
		if err != nil {
			t.Fatalf("%s: %v", transport, err)
		}
		if _, ok := res.Meta[key].(map[string]any); !ok || res.Meta[mcpfailure.MetaKey] != nil {
			t.Errorf("%s: _meta = %v, want the object under %s alone", transport, res.Meta, key)
		}
	}
}

// On protocol 2026-07-28 every result carries resultType. The SDK writes it
// in its own tool handler; a failed result that a middleware further in
// built afresh lacks it, and the annotated result gains it. On earlier
// versions the result goes out without it, as the SDK sends every other.
func TestMiddlewareWritesResultTypeWhereTheVersionNeedsIt(t *testing.T) {
	t.Parallel()
	svc := startService(t, nil)
	a := newAnnotator(t, svc.classifier(), 0)
	var mu sync.Mutex
	wire := map[string][]byte{}
	s := mcp.NewServer(&mcp.Implementation{Name: "rt", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "fails", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "upstream returned HTTP 503"}}}, nil
	})
	rebuild := func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.CallToolResult); ok && r != nil {
				return &mcp.CallToolResult{IsError: r.IsError, Content: r.Content, Meta: r.Meta}, err
			}
			return res, err
		}
	}
	record := func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method == "tools/call" && err == nil {
				b, _ := json.Marshal(res)
				mu.Lock()
				wire[protocolOf(req)] = b
				mu.Unlock()
			}
			return res, err
		}
	}
	s.AddReceivingMiddleware(record, a.Middleware, rebuild)
	seen := map[bool]bool{}
	for _, transport := range transports {
		cs := connect(t, s, transport)
		version := cs.InitializeResult().ProtocolVersion
		seen[mcpfailure.NeedsResultType(version)] = true
		if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "fails"}); err != nil {
			t.Fatalf("%s: %v", transport, err)
		}
		mu.Lock()
		doc := wire[version]
		mu.Unlock()
		var probe struct {
			ResultType *string        `json:"resultType"`
			Meta       map[string]any `json:"_meta"`
		}
		if err := json.Unmarshal(doc, &probe); err != nil {
			t.Fatalf("%s: %v: %s", transport, err, doc)
		}
		if probe.Meta[mcpfailure.MetaKey] == nil {
			t.Fatalf("%s: not annotated: %s", transport, doc)
		}
		if mcpfailure.NeedsResultType(version) && (probe.ResultType == nil || *probe.ResultType != "complete") {
			t.Errorf("%s (protocol %s): resultType missing: %s", transport, version, doc)
		}
		vs, err := (&conformance.Checker{ProtocolVersion: version}).CheckResult(doc)
		if err != nil || len(vs) > 0 {
			t.Errorf("%s (protocol %s): %v %v\n%s", transport, version, err, vs, doc)
		}
	}
	if !seen[true] || !seen[false] {
		t.Errorf("want sessions on both sides of %s, got %v", mcpfailure.StatelessProtocolVersion, seen)
	}
}

// protocolOf is the version a request was made under, as the middleware
// reads it.
func protocolOf(req mcp.Request) string {
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil && ss.InitializeParams() != nil {
		return ss.InitializeParams().ProtocolVersion
	}
	if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil {
		v, _ := call.Params.Meta[mcp.MetaKeyProtocolVersion].(string)
		return v
	}
	return ""
}

// A JSON-RPC error that the tool itself caused (an internal error, a Go
// error) is recorded, and the client gets it with error.data.correlationId
// added and everything else as the tool wrote it; the SDK's protocol
// errors (invalid params) pass untouched.
func TestMiddlewareProtocolErrorCarriesTheCorrelationID(t *testing.T) {
	t.Parallel()
	svc := startService(t, nil)
	a := newAnnotator(t, svc.classifier(), 0)
	s := mcp.NewServer(&mcp.Implementation{Name: "errs", Version: "1"}, nil)
	object := map[string]any{"type": "object"}
	s.AddTool(&mcp.Tool{Name: "internal", InputSchema: object}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "database connection reset", Data: json.RawMessage(`{"shard":3,"region":"eu"}`)}
	})
	s.AddTool(&mcp.Tool{Name: "go_error", InputSchema: object}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("read inventory: connection reset by peer")
	})
	s.AddTool(&mcp.Tool{Name: "bad_params", InputSchema: object}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `missing field "to"`}
	})
	s.AddReceivingMiddleware(a.Middleware)
	for _, transport := range transports {
		cs := connect(t, s, transport)
		for _, c := range []struct {
			tool     string
			code     int64
			message  string
			keep     map[string]any
			recorded bool
		}{
			{"internal", jsonrpc.CodeInternalError, "database connection reset", map[string]any{"shard": float64(3), "region": "eu"}, true},
			{"go_error", 0, "read inventory: connection reset by peer", nil, true},
			{"bad_params", jsonrpc.CodeInvalidParams, `missing field "to"`, nil, false},
		} {
			_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: c.tool})
			var werr *jsonrpc.Error
			if !errors.As(err, &werr) {
				t.Fatalf("%s %s: %v, want a JSON-RPC error", transport, c.tool, err)
			}
			if werr.Code != c.code || werr.Message != c.message {
				t.Errorf("%s %s: %d %q, want %d %q", transport, c.tool, werr.Code, werr.Message, c.code, c.message)
			}
			var data map[string]any
			if len(werr.Data) > 0 {
				if err := json.Unmarshal(werr.Data, &data); err != nil {
					t.Fatalf("%s %s: data %s: %v", transport, c.tool, werr.Data, err)
				}
			}
			id, _ := data["correlationId"].(string)
			if !c.recorded {
				if id != "" {
					t.Errorf("%s %s: a protocol error of the SDK's gained a correlation ID: %s", transport, c.tool, werr.Data)
				}
				continue
			}
			rec, err := svc.failures().GetFailure(t.Context(), &toolfailurev1.GetFailureRequest{CorrelationId: id})
			if err != nil {
				t.Fatalf("%s %s: GetFailure(%q) from data %s: %v", transport, c.tool, id, werr.Data, err)
			}
			if rec.GetFailure().GetTool() != c.tool {
				t.Errorf("%s %s: recorded as tool %q", transport, c.tool, rec.GetFailure().GetTool())
			}
			for k, v := range c.keep {
				if data[k] != v {
					t.Errorf("%s %s: data[%s] = %v, want %v (data %s)", transport, c.tool, k, data[k], v, werr.Data)
				}
			}
		}
	}
}

// WithCorrelationID adds the ID to JSON-RPC error data and changes nothing
// else: the members of an object keep their bytes and order, and data that
// cannot take the member is returned as it was.
func TestWithCorrelationID(t *testing.T) {
	t.Parallel()
	const id = "tf_01M8V4KK7GF1Z9FQJS73XNR7DJJ"
	for _, c := range []struct {
		data, want string
		ok         bool
	}{
		{``, `{"correlationId":"` + id + `"}`, true},
		{`null`, `{"correlationId":"` + id + `"}`, true},
		{`{}`, `{"correlationId":"` + id + `"}`, true},
		{` { } `, `{"correlationId":"` + id + `"}`, true},
		{`{"b":2,"a":[1,{"c":null}]}`, `{"b":2,"a":[1,{"c":null}],"correlationId":"` + id + `"}`, true},
		{`{"retryAfter":30 }`, `{"retryAfter":30 ,"correlationId":"` + id + `"}`, true},
		{`{"correlationId":"theirs"}`, `{"correlationId":"theirs"}`, false},
		{`"stack trace"`, `"stack trace"`, false},
		{`[1,2]`, `[1,2]`, false},
		{`{"unterminated":`, `{"unterminated":`, false},
	} {
		got, ok := mcpfailure.WithCorrelationID(json.RawMessage(c.data), id)
		if string(got) != c.want || ok != c.ok {
			t.Errorf("WithCorrelationID(%s) = %s, %v; want %s, %v", c.data, got, ok, c.want, c.ok)
		}
		if ok && !json.Valid(got) {
			t.Errorf("WithCorrelationID(%s) = %s: not JSON", c.data, got)
		}
	}
}
