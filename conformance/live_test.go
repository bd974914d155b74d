package conformance_test

import (
	"context"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omcp/toolfailure/conformance"
	"github.com/omcp/toolfailure/correlation"
)

// liveServer is an MCP server with one conforming failure, one that breaks
// a MUST rule, and a successful tool.
func liveServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "live-check", Version: "v1"}, nil)
	object := map[string]any{"type": "object"}
	failure := func(class string, retryable bool) mcp.ToolHandler {
		return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			id, err := correlation.New(time.Now())
			if err != nil {
				return nil, err
			}
			tf := map[string]any{"class": class, "code": "auth_required", "correlationId": id.String()}
			if retryable {
				tf["retryable"] = true
			}
			return &mcp.CallToolResult{
				Content: []mcp.Content{&mcp.TextContent{Text: "sign in again"}},
				IsError: true,
				Meta:    mcp.Meta{conformance.MetaKey: tf, "com.example/other": 1},
			}, nil
		}
	}
	s.AddTool(&mcp.Tool{Name: "conforming", InputSchema: object}, failure("governance", false))
	s.AddTool(&mcp.Tool{Name: "retryable_governance", InputSchema: object}, failure("governance", true))
	s.AddTool(&mcp.Tool{Name: "ok", InputSchema: object}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "fine"}}}, nil
	})
	return s
}

func rulesOf(vs []conformance.Violation) []string {
	var ids []string
	for _, v := range vs {
		ids = append(ids, v.Rule)
	}
	return ids
}

func checkLiveCases(t *testing.T, target conformance.LiveTarget) {
	t.Helper()
	cases := []struct {
		tool      string
		wantRule  string // "" = conforms
		wantInDoc string
	}{
		{tool: "conforming", wantInDoc: `"com.example/other":1`},
		{tool: "retryable_governance", wantRule: "retryable-only-reliability"},
		{tool: "ok", wantInDoc: `"fine"`},
		{tool: "no_such_tool", wantRule: "jsonrpc-error-response", wantInDoc: `"error"`},
	}
	for _, c := range cases {
		target := target
		target.Tool = c.tool
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		doc, vs, err := conformance.CheckLive(ctx, target)
		cancel()
		if err != nil {
			t.Fatalf("%s: CheckLive: %v", c.tool, err)
		}
		if !strings.Contains(string(doc), c.wantInDoc) {
			t.Errorf("%s: captured document lacks %s:\n%s", c.tool, c.wantInDoc, doc)
		}
		rules := rulesOf(vs)
		switch {
		case c.wantRule == "" && !conformance.Conforms(vs):
			t.Errorf("%s: want no MUST violation, got %v\n%s", c.tool, vs, doc)
		case c.wantRule != "" && !slices.Contains(rules, c.wantRule):
			t.Errorf("%s: want rule %s, got %v\n%s", c.tool, c.wantRule, rules, doc)
		}
	}
}

func TestCheckLive_StreamableHTTP(t *testing.T) {
	t.Parallel()
	s := liveServer()
	var sawAuth atomic.Bool
	h := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		if r.Header.Get("Authorization") == "Bearer k" {
			sawAuth.Store(true)
		}
		return s
	}, nil)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	checkLiveCases(t, conformance.LiveTarget{URL: srv.URL, Header: http.Header{"Authorization": {"Bearer k"}}})
	if !sawAuth.Load() {
		t.Error("LiveTarget.Header was not sent")
	}
}

// TestCheckLive_Stdio starts this test binary again as a stdio MCP server
// (see TestLiveStdioServer), as a reviewer would start any server command.
func TestCheckLive_Stdio(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Skipf("cannot find the test binary: %v", err)
	}
	checkLiveCases(t, conformance.LiveTarget{Command: []string{exe, "-test.run=^TestLiveStdioServer$", liveServerArg}})
}

const liveServerArg = "serve-live-check-server"

// TestLiveStdioServer is not a test: run by TestCheckLive_Stdio with
// liveServerArg, it serves liveServer on stdin and stdout and exits.
func TestLiveStdioServer(t *testing.T) {
	if flag.Arg(0) != liveServerArg {
		t.Skip("helper process for TestCheckLive_Stdio")
	}
	// Run's error is the end of input, the normal way a client ends a stdio
	// session. Exit before the testing package prints PASS on stdout, which
	// is the MCP connection.
	_ = liveServer().Run(context.Background(), &mcp.StdioTransport{})
	os.Exit(0)
}

func TestCheckLive_Errors(t *testing.T) {
	t.Parallel()
	for _, target := range []conformance.LiveTarget{
		{Tool: "x"},
		{Tool: "x", URL: "http://127.0.0.1:1/mcp", Command: []string{"true"}},
		{URL: "http://127.0.0.1:1/mcp"},
		{Tool: "x", Command: []string{"/nonexistent/mcp-server"}},
	} {
		if _, _, err := conformance.CheckLive(t.Context(), target); err == nil {
			t.Errorf("CheckLive(%+v): want an error", target)
		}
	}
}
