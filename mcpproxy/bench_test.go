package mcpproxy_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omcp/toolfailure/mcpproxy"
)

// BenchmarkHTTPCall is a successful tools/call over streamable HTTP, to a Go
// MCP server directly and through the proxy (--upstream with --listen), one
// caller at a time and in parallel. Compare the two sub-benchmarks of one
// run; "toolfailure bench proxy" is the fuller measurement.
func BenchmarkHTTPCall(b *testing.B) {
	for _, path := range []string{"direct", "proxy"} {
		b.Run(path, func(b *testing.B) {
			cs := benchSession(b, path == "proxy")
			call := func() {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ok"})
				if err != nil || res.IsError {
					b.Fatalf("call: %v %+v", err, res)
				}
			}
			b.Run("sequential", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					call()
				}
			})
			b.Run("parallel", func(b *testing.B) {
				b.ReportAllocs()
				b.SetParallelism(4)
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						call()
					}
				})
			})
		})
	}
}

func benchSession(b *testing.B, proxied bool) *mcp.ClientSession {
	b.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "bench-server", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "ok", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "fine"}}}, nil
		})
	up := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	b.Cleanup(up.Close)
	url := up.URL
	if proxied {
		quiet := slog.New(slog.DiscardHandler)
		p, err := mcpproxy.New(mcpproxy.Config{Unavailable: "benchmark", Logger: quiet})
		if err != nil {
			b.Fatal(err)
		}
		h := p.Handler(func() (mcp.Transport, error) { return &mcpproxy.HTTPUpstream{Endpoint: up.URL, Logger: quiet}, nil }, nil)
		ps := httptest.NewServer(h)
		b.Cleanup(func() { _ = h.Close(); ps.Close() })
		url = ps.URL
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	return cs
}
