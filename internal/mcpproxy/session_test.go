package mcpproxy_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	toolfailurev1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/servicetest"
	"github.com/omcp/toolfailure/mcpfailure"
)

// TestSessionThroughProxy runs a Go SDK client against a Go SDK server that
// knows nothing about toolFailure, through the proxy, over every pairing of
// stdio and streamable HTTP: every failure gains a conforming toolFailure
// whose ID the service knows, successful results arrive as the server sent
// them, and everything else of the protocol (progress, sampling, elicitation,
// cancellation, list_changed, prompts, resources) crosses both ways.
func TestSessionThroughProxy(t *testing.T) {
	t.Parallel()
	for _, transport := range transports {
		t.Run(strings.NewReplacer("/", "-", "@", "-").Replace(transport), func(t *testing.T) {
			t.Parallel()
			svc := startService(t)
			p := newProxy(t, mcpfailure.NewClassifierClient(nil, svc.url, svc.reportKey), 0)
			u := newUpstreamServer(t)

			var mu sync.Mutex
			var progress []float64
			toolsChanged := make(chan struct{}, 1)
			cs := setupSession(t, p, u, transport, &mcp.ClientOptions{
				CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "hello back"}}, nil
				},
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"color": "teal"}}, nil
				},
				ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
					mu.Lock()
					progress = append(progress, req.Params.Progress)
					mu.Unlock()
				},
				ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
					select {
					case toolsChanged <- struct{}{}:
					default:
					}
				},
			})
			ctx := t.Context()

			if _, err := cs.ListTools(ctx, nil); err != nil {
				t.Fatalf("ListTools: %v", err)
			}

			// Failures, each classified, recorded and conforming.
			for _, c := range []struct{ tool, class, code string }{
				{"unavailable", "reliability", "retryable_transient_error"},
				{"not_found", "capability", "resource_not_found"},
				{"with_meta", "governance", "user_action_required"},
				{"go_error", "governance", "auth_required"},
			} {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool})
				if err != nil {
					t.Fatalf("%s: %v", c.tool, err)
				}
				doc := resultJSON(t, res)
				checkConforms(t, c.tool, doc)
				tf := toolFailure(t, doc)
				if tf["class"] != c.class || tf["code"] != c.code {
					t.Errorf("%s: %v/%v, want %s/%s", c.tool, tf["class"], tf["code"], c.class, c.code)
				}
				rec, err := svc.failures().GetFailure(ctx, &toolfailurev1.GetFailureRequest{CorrelationId: tf["correlationId"].(string)})
				if err != nil {
					t.Fatalf("%s: GetFailure: %v", c.tool, err)
				}
				if rec.GetFailure().GetTool() != c.tool || rec.GetFailure().GetServer() != "go-upstream" {
					t.Errorf("%s: record tool %q server %q", c.tool, rec.GetFailure().GetTool(), rec.GetFailure().GetServer())
				}
				if c.tool == "with_meta" && (res.Meta["com.example/requestId"] != "req-7" || res.Meta["com.example/shard"] != float64(3)) {
					t.Errorf("with_meta: other _meta keys lost: %v", res.Meta)
				}
			}

			// Success: what the client decodes is what the server returned.
			// (Bytes are TestSuccessPassesThroughByteForByte's business; on
			// protocol 2026-07-28 the SDK adds resultType and serverInfo.)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ok"})
			if err != nil {
				t.Fatalf("ok: %v", err)
			}
			var sent mcp.CallToolResult
			if err := json.Unmarshal(u.lastResult("ok"), &sent); err != nil {
				t.Fatal(err)
			}
			if servicetest.TextOf(res) != servicetest.TextOf(&sent) || res.IsError ||
				string(mustJSON(t, res.StructuredContent)) != string(mustJSON(t, sent.StructuredContent)) ||
				res.Meta["com.example/trace"] != "t-1" || res.Meta["com.example/n"] != float64(7) || res.Meta[mcpfailure.MetaKey] != nil {
				t.Errorf("ok: result changed:\n got %s\nsent %s", resultJSON(t, res), u.lastResult("ok"))
			}

			// A protocol error stays a protocol error.
			_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "bad_params"})
			var werr *jsonrpc.Error
			if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("bad_params: %v, want the upstream's invalid-params error", err)
			}

			// Progress, sampling and elicitation.
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "progress", Meta: mcp.Meta{"progressToken": "tok"}}); err != nil {
				t.Fatalf("progress: %v", err)
			}
			// The client hands notifications to its handler asynchronously.
			waitFor(t, "3 progress notifications", func() bool {
				mu.Lock()
				defer mu.Unlock()
				return len(progress) == 3
			})
			// On protocol 2026-07-28 a server asks for input with multi
			// round-trip results instead (SEP-2322), which the SDK's server
			// does not offer through CreateMessage; the older protocols' way
			// is what crosses the proxy here.
			if v := cs.InitializeResult().ProtocolVersion; v >= "2026-07-28" {
				t.Logf("protocol %s: sampling and elicitation requests are not part of it", v)
			} else {
				if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sample"}); err != nil || res.IsError || !strings.Contains(servicetest.TextOf(res), "hello back") {
					t.Errorf("sample: %v %s", err, servicetest.TextOf(res))
				}
				if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "elicit"}); err != nil || res.IsError || !strings.Contains(servicetest.TextOf(res), "accept teal") {
					t.Errorf("elicit: %v %s", err, servicetest.TextOf(res))
				}
			}

			// Cancellation reaches the upstream.
			cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			_, err = cs.CallTool(cctx, &mcp.CallToolParams{Name: "wait"})
			cancel()
			if err == nil {
				t.Error("wait: returned without error after its context ended")
			}
			waitFor(t, "the upstream to see the cancellation", func() bool { return u.cancelled.Load() == 1 })

			// list_changed crosses, and a tool added later is classified with
			// its annotations.
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add_tool"}); err != nil {
				t.Fatalf("add_tool: %v", err)
			}
			select {
			case <-toolsChanged:
			case <-time.After(5 * time.Second):
				t.Error("no tools/list_changed notification reached the client")
			}
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "late"})
			if err != nil {
				t.Fatalf("late: %v", err)
			}
			if tf := toolFailure(t, resultJSON(t, res)); tf["retryable"] != true {
				t.Errorf("late: an idempotent tool's 503 should be retryable: %v", tf)
			}

			// Prompts and resources.
			if pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"}); err != nil || len(pr.Messages) != 1 {
				t.Errorf("GetPrompt: %v", err)
			}
			if rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///readme"}); err != nil || rr.Contents[0].Text != "read me" {
				t.Errorf("ReadResource: %v", err)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Errorf("timed out waiting for %s", what)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestLabel: Config.Server overrides the upstream's own name.
func TestLabel(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	var got []string
	var mu sync.Mutex
	classifier := classifierFunc(func(ctx context.Context, req *toolfailurev1.ClassifyRequest) (*toolfailurev1.ClassifyResponse, error) {
		mu.Lock()
		got = append(got, req.GetServer())
		mu.Unlock()
		return mcpfailure.NewClassifierClient(nil, svc.url, svc.reportKey).Classify(ctx, req)
	})
	p := newProxyLabel(t, classifier, "mail-mcp")
	u := newUpstreamServer(t)
	cs := setupSession(t, p, u, "stdio/stdio", nil)
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "unavailable"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0] != "mail-mcp" {
		t.Errorf("server labels sent: %v, want [mail-mcp]", got)
	}
}

type classifierFunc func(context.Context, *toolfailurev1.ClassifyRequest) (*toolfailurev1.ClassifyResponse, error)

func (f classifierFunc) Classify(ctx context.Context, req *toolfailurev1.ClassifyRequest) (*toolfailurev1.ClassifyResponse, error) {
	return f(ctx, req)
}
