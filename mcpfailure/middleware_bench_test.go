package mcpfailure_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	toolfailurev1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/mcpfailure"
)

// BenchmarkMiddlewareSuccess is what the middleware adds to a successful
// tools/call, the common case: the handler chain alone against the chain
// with the middleware, without transport noise around them.
func BenchmarkMiddlewareSuccess(b *testing.B) {
	ok := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "fine"}}}
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return ok, nil }
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "ok", Meta: mcp.Meta{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}}
	a, err := mcpfailure.NewAnnotator(mcpfailure.AnnotatorConfig{Classifier: refusing{}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		h    mcp.MethodHandler
	}{{"without", next}, {"with", a.Middleware(next)}} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			for b.Loop() {
				if _, err := bc.h(ctx, "tools/call", req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// refusing is a service that is never reached on a successful call.
type refusing struct{}

func (refusing) Classify(context.Context, *toolfailurev1.ClassifyRequest) (*toolfailurev1.ClassifyResponse, error) {
	return nil, errors.New("not reached on success")
}

// TestMiddlewareSuccessAllocations keeps the cost of a successful call where
// BenchmarkMiddlewareSuccess put it: with no OpenTelemetry SDK installed,
// the allocations left are all the OpenTelemetry API's, for the span and
// the remote trace context it carries; the extension, the key's name and
// resultType add nothing on this path. (Not parallel: AllocsPerRun counts the whole process.)
func TestMiddlewareSuccessAllocations(t *testing.T) {
	ok := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "fine"}}}
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return ok, nil }
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "ok", Meta: mcp.Meta{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}}
	a, err := mcpfailure.NewAnnotator(mcpfailure.AnnotatorConfig{Classifier: refusing{}, Logger: slog.New(slog.DiscardHandler), MetaKey: "com.example/toolFailure"})
	if err != nil {
		t.Fatal(err)
	}
	h := a.Middleware(next)
	ctx := context.Background()
	const want = 5
	if n := testing.AllocsPerRun(1000, func() {
		if _, err := h(ctx, "tools/call", req); err != nil {
			t.Fatal(err)
		}
	}); n > want {
		t.Errorf("%v allocations per successful call, want at most %d", n, want)
	}
}
