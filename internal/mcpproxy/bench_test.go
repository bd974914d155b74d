package mcpproxy_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omcp/toolfailure/internal/mcpproxy"
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

// BenchmarkStdioCall is a successful tools/call over kernel pipes, to a Go
// MCP server directly and through the proxy's stdio relay, one caller at a
// time: compare the two sub-benchmarks of one run, time and allocations.
func BenchmarkStdioCall(b *testing.B) {
	for _, path := range []string{"direct", "proxy"} {
		b.Run(path, func(b *testing.B) {
			cs := stdioBenchSession(b, path == "proxy")
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ok"})
				if err != nil || res.IsError {
					b.Fatalf("call: %v %+v", err, res)
				}
			}
		})
	}
}

func stdioBenchSession(b *testing.B, proxied bool) *mcp.ClientSession {
	b.Helper()
	pipe := func() (*os.File, *os.File) {
		r, w, err := os.Pipe()
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = r.Close(); _ = w.Close() })
		return r, w
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "bench-server", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "ok", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "fine"}}}, nil
		})
	toServerR, toServerW := pipe()
	fromServerR, fromServerW := pipe()
	ss, err := server.Connect(context.Background(), &mcp.IOTransport{Reader: toServerR, Writer: fromServerW}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = ss.Close() })
	var ct mcp.Transport = &mcp.IOTransport{Reader: fromServerR, Writer: toServerW}
	if proxied {
		p, err := mcpproxy.New(mcpproxy.Config{Unavailable: "benchmark", Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			b.Fatal(err)
		}
		toProxyR, toProxyW := pipe()
		fromProxyR, fromProxyW := pipe()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = p.Relay(ctx, mcpproxy.Stdio(toProxyR, fromProxyW), mcpproxy.Stdio(fromServerR, toServerW))
		}()
		b.Cleanup(func() { cancel(); <-done })
		ct = &mcp.IOTransport{Reader: fromProxyR, Writer: toProxyW}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "1"}, nil).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	return cs
}
