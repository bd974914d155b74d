package mcpfailure_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	toolfailurev1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/servicetest"
	"github.com/omcp/toolfailure/mcpfailure"
)

// correlationIDPattern is the contract's format: tf_, 26 Crockford base32
// characters, one check character (whose alphabet has five more symbols).
var correlationIDPattern = regexp.MustCompile(`^tf_[0-9A-HJKMNP-TV-Z]{27}$`)

// everyClass lists a failing tool of each baseline code (but
// capability_unsupported, which the service gives only to protocol-level
// signals) and the outcome the service's baseline rules must give it.
var everyClass = []struct {
	tool      string
	args      map[string]any
	class     string
	code      string
	retryable bool
}{
	{tool: "flaky", class: "reliability", code: "retryable_transient_error", retryable: true},
	{tool: "plain_error", class: "reliability", code: "retryable_transient_error", retryable: true},
	{tool: "needs_auth", class: "governance", code: "auth_required"},
	{tool: "forbidden", class: "governance", code: "permission_denied"},
	{tool: "with_meta", class: "governance", code: "user_action_required"},
	{tool: "missing", class: "capability", code: "resource_not_found"},
	{tool: "strict_input", args: map[string]any{"count": "many"}, class: "capability", code: "invalid_input"},
}

// TestEveryClass calls each failing tool over each transport, against the
// running service, and checks the object the middleware attached, the record
// behind its correlation ID, and that every emitted result conforms.
func TestEveryClass(t *testing.T) {
	t.Parallel()
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			checkEveryClass(t, startService(t, nil), transport)
		})
	}
}

// TestPostgres runs the same scenario on the production store.
func TestPostgres(t *testing.T) {
	t.Parallel()
	svc := startService(t, postgresStore)
	checkEveryClass(t, svc, "http-stateless")
}

func checkEveryClass(t *testing.T, svc *service, transport string) {
	t.Helper()
	a := newAnnotator(t, svc.classifier(), 0)
	ts := newToolServer(t, a)
	cs := connect(t, ts.Server, transport)
	lookup := svc.failures()

	for _, c := range everyClass {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatalf("%s: CallTool: %v", c.tool, err)
		}
		if !res.IsError {
			t.Fatalf("%s: result is not an error: %s", c.tool, servicetest.TextOf(res))
		}
		tf := failureOf(t, res)
		if tf["class"] != c.class || tf["code"] != c.code {
			t.Errorf("%s: class/code = %v/%v, want %s/%s (object %v)", c.tool, tf["class"], tf["code"], c.class, c.code, tf)
		}
		if got, _ := tf["retryable"].(bool); got != c.retryable {
			t.Errorf("%s: retryable = %v, want %v", c.tool, tf["retryable"], c.retryable)
		}
		if c.tool == "flaky" {
			// The only case whose error says when to retry.
			rnb, ok := tf["retryNotBefore"].(float64)
			if !ok {
				t.Errorf("%s: no retryNotBefore despite Retry-After: %v", c.tool, tf)
			} else if d := time.Until(time.UnixMilli(int64(rnb))); d < -time.Second || d > 10*time.Second {
				t.Errorf("%s: retryNotBefore is %v away; the tool said Retry-After: 1", c.tool, d)
			}
		}
		id, _ := tf["correlationId"].(string)
		if !correlationIDPattern.MatchString(id) {
			t.Fatalf("%s: correlationId %q has not the service's format", c.tool, id)
		}

		got, err := lookup.GetFailure(t.Context(), &toolfailurev1.GetFailureRequest{CorrelationId: id})
		if err != nil {
			t.Fatalf("%s: GetFailure(%s): %v", c.tool, id, err)
		}
		f := got.GetFailure()
		if f.GetTool() != c.tool || f.GetServer() != "test-tools" || f.GetCode() != c.code {
			t.Errorf("%s: stored record: tool %q server %q code %q", c.tool, f.GetTool(), f.GetServer(), f.GetCode())
		}
	}
	st := a.Stats()
	if n := uint64(len(everyClass)); st.Failed != n || st.Classified != n || st.Missed != 0 {
		t.Errorf("stats = %+v, want %d failed and classified, no misses", st, n)
	}
	ts.checkEmitted(t)
}

// TestGoErrorDetails checks what the middleware tells the service about a
// Go error, through the record the service kept: the errno by name, the
// ToolError's fields, the structuredContent as details, the tool's
// annotations as declared with AddTool.
func TestGoErrorDetails(t *testing.T) {
	t.Parallel()
	svc := startService(t, nil)
	ts := newToolServer(t, newAnnotator(t, svc.classifier(), 0))
	cs := connect(t, ts.Server, "memory")
	lookup := func(tool string) *toolfailurev1.Failure {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool})
		if err != nil {
			t.Fatalf("CallTool(%s): %v", tool, err)
		}
		id, _ := failureOf(t, res)["correlationId"].(string)
		got, err := svc.failures().GetFailure(t.Context(), &toolfailurev1.GetFailureRequest{CorrelationId: id})
		if err != nil {
			t.Fatalf("GetFailure: %v", err)
		}
		return got.GetFailure()
	}

	f := lookup("plain_error")
	if e := f.GetError(); e.GetType() != "ECONNRESET" || !strings.Contains(e.GetMessage(), "connection reset by peer") {
		t.Errorf("plain_error: stored error type %q message %q", e.GetType(), e.GetMessage())
	}
	if a := f.GetToolAnnotations(); !a.GetIdempotentHint() {
		t.Errorf("plain_error: stored annotations %v, want idempotentHint true from the tool's declaration", a)
	}

	f = lookup("flaky")
	if e := f.GetError(); e.GetHttpStatus() != 503 || e.GetRetryAfter() != "1" {
		t.Errorf("flaky: stored error %v, want httpStatus 503 and retryAfter 1", e)
	}

	f = lookup("with_meta")
	details, _ := json.Marshal(f.GetError().GetDetails().AsInterface())
	if !strings.Contains(string(details), `"reason_code":"explicit_production_confirmation_required"`) ||
		!strings.Contains(string(details), `"structuredContent"`) {
		t.Errorf("with_meta: stored details %s, want the structuredContent", details)
	}
	if a := f.GetToolAnnotations(); a.GetIdempotentHint() {
		t.Errorf("with_meta: stored annotations %v, want idempotentHint false", a)
	}
}

// TestTraceContext checks that params._meta.traceparent reaches the record,
// so that support can jump from a correlation ID to the trace.
func TestTraceContext(t *testing.T) {
	t.Parallel()
	svc := startService(t, nil)
	ts := newToolServer(t, newAnnotator(t, svc.classifier(), 0))
	cs := connect(t, ts.Server, "http")
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{
		Name: "needs_auth",
		Meta: mcp.Meta{"traceparent": "00-" + traceID + "-00f067aa0ba902b7-01"},
	})
	if err != nil {
		t.Fatal(err)
	}
	id, _ := failureOf(t, res)["correlationId"].(string)
	got, err := svc.failures().GetFailure(t.Context(), &toolfailurev1.GetFailureRequest{CorrelationId: id})
	if err != nil {
		t.Fatal(err)
	}
	if got.GetFailure().GetTraceId() != traceID {
		t.Errorf("traceId = %q, want %q", got.GetFailure().GetTraceId(), traceID)
	}

	// A malformed traceparent is dropped, not allowed to cost the failure
	// its classification.
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "needs_auth", Meta: mcp.Meta{"traceparent": "not-a-trace"}})
	if err != nil {
		t.Fatal(err)
	}
	failureOf(t, res)
}

// TestMetaPreserved checks that the key joins the other _meta keys, that a
// result already carrying the key is sent exactly as the tool made it, and
// that successful results are not touched.
func TestMetaPreserved(t *testing.T) {
	t.Parallel()
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			svc := startService(t, nil)
			a := newAnnotator(t, svc.classifier(), 0)
			ts := newToolServer(t, a)
			cs := connect(t, ts.Server, transport)

			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "with_meta"})
			if err != nil {
				t.Fatal(err)
			}
			failureOf(t, res)
			if res.Meta["com.example/requestId"] != "req-7" || res.Meta["com.example/shard"] != float64(3) {
				t.Errorf("other _meta keys lost or changed: %v", res.Meta)
			}
			if !strings.Contains(servicetest.TextOf(res), "explicit confirmation") {
				t.Errorf("content changed: %q", servicetest.TextOf(res))
			}
			sc, _ := json.Marshal(res.StructuredContent)
			if !strings.Contains(string(sc), "awaiting_confirmation") {
				t.Errorf("structuredContent changed: %s", sc)
			}

			res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "self_tagged"})
			if err != nil {
				t.Fatal(err)
			}
			tf := failureOf(t, res)
			if res.Meta["com.example/attempt"] != "x" || tf["agentGuidance"] != "Retry the same call shortly." {
				t.Errorf("self-tagged result was altered: %v", res.Meta)
			}

			res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "ok"})
			if err != nil {
				t.Fatal(err)
			}
			if _, tagged := res.Meta[mcpfailure.MetaKey]; res.IsError || tagged {
				t.Errorf("successful result touched: isError %v, _meta %v", res.IsError, res.Meta)
			}

			if st := a.Stats(); st.Failed != 2 || st.Classified != 1 || st.AlreadyTagged != 1 {
				t.Errorf("stats = %+v, want 2 failed, 1 classified, 1 already tagged", st)
			}
			ts.checkEmitted(t)
		})
	}
}

// TestProtocolErrorsUntouched checks that JSON-RPC errors pass through as
// JSON-RPC errors and cost no Classify call.
func TestProtocolErrorsUntouched(t *testing.T) {
	t.Parallel()
	svc := startService(t, nil)
	a := newAnnotator(t, svc.classifier(), 0)
	cs := connect(t, newToolServer(t, a).Server, "memory")
	for _, tool := range []string{"no_such_tool", "bad_params", "rate_limited"} {
		if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool}); err == nil {
			t.Errorf("%s: want a protocol error", tool)
		}
	}
	if st := a.Stats(); st != (mcpfailure.Stats{}) {
		t.Errorf("stats = %+v, want all zero", st)
	}
}

// TestServiceDown covers the fallback: whatever goes wrong on the way to
// the service, the failed result goes out as the tool made it, within the
// budget, and the miss is logged and counted.
func TestServiceDown(t *testing.T) {
	t.Parallel()

	closed := httptest.NewServer(http.NotFoundHandler())
	unreachable := closed.URL
	closed.Close()

	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read the request first: only then does the server notice the
		// client hanging up, which ends the wait below.
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	t.Cleanup(slow.Close)

	svc := startService(t, nil)

	cases := []struct {
		name        string
		classifier  mcpfailure.Classifier
		budget      time.Duration
		wantTimeout bool
	}{
		{name: "unreachable", classifier: mcpfailure.NewClassifierClient(nil, unreachable, svc.reportKey), budget: 2 * time.Second},
		{name: "slow", classifier: mcpfailure.NewClassifierClient(nil, slow.URL, svc.reportKey), budget: 150 * time.Millisecond, wantTimeout: true},
		{name: "refused", classifier: mcpfailure.NewClassifierClient(nil, svc.url, svc.lookupKey), budget: 2 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var logs syncBuffer
			a, err := mcpfailure.NewAnnotator(mcpfailure.AnnotatorConfig{
				Classifier: c.classifier,
				Budget:     c.budget,
				Logger:     slog.New(slog.NewTextHandler(&logs, nil)),
			})
			if err != nil {
				t.Fatal(err)
			}
			ts := newToolServer(t, a)
			bare := newToolServer(t, nil)

			start := time.Now()
			res := callJSON(t, connect(t, ts.Server, "memory"), "needs_auth")
			elapsed := time.Since(start)
			want := callJSON(t, connect(t, bare.Server, "memory"), "needs_auth")
			if res != want {
				t.Errorf("result changed by a failed classification:\n got %s\nwant %s", res, want)
			}
			if c.wantTimeout && elapsed > c.budget+time.Second {
				t.Errorf("call took %v with a budget of %v", elapsed, c.budget)
			}
			st := a.Stats()
			if st.Failed != 1 || st.Missed != 1 || st.Classified != 0 {
				t.Errorf("stats = %+v, want 1 failed, 1 missed", st)
			}
			if c.wantTimeout != (st.MissedTimeout == 1) {
				t.Errorf("MissedTimeout = %d, want timeout %v", st.MissedTimeout, c.wantTimeout)
			}
			if l := logs.String(); !strings.Contains(l, "level=WARN") || !strings.Contains(l, "tool=needs_auth") {
				t.Errorf("no warning logged for the miss; log:\n%s", l)
			}
			// The one finding allowed: the result lacks the key, which is
			// the point of the fallback.
			ts.checkEmitted(t, "key-missing-on-error")
		})
	}
}

func callJSON(t *testing.T, cs *mcp.ClientSession, tool string) string {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool})
	if err != nil {
		t.Fatalf("CallTool(%s): %v", tool, err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAnnotateForProxies drives Annotate directly, as a proxy does with
// results it relays: explicit annotations, the request's _meta, and a
// result value that must not be modified in place.
func TestAnnotateForProxies(t *testing.T) {
	t.Parallel()
	svc := startService(t, nil)
	a := newAnnotator(t, svc.classifier(), 0)
	shared := &mcp.CallToolResult{
		Meta:    mcp.Meta{"upstream/key": "kept"},
		Content: []mcp.Content{&mcp.TextContent{Text: "503 Service Unavailable"}},
		IsError: true,
	}
	out := a.Annotate(context.Background(), "upstream_tool", nil, &mcp.ToolAnnotations{IdempotentHint: true}, shared)
	if out == shared {
		t.Fatal("Annotate returned the input value; it must return a copy")
	}
	if _, ok := shared.Meta[mcpfailure.MetaKey]; ok {
		t.Error("Annotate modified the input result's _meta")
	}
	if out.Meta["upstream/key"] != "kept" {
		t.Errorf("other keys lost: %v", out.Meta)
	}
	tf, present, err := mcpfailure.Parse(out)
	if !present || err != nil {
		t.Fatalf("Parse: present %v, err %v", present, err)
	}
	if tf.Class != mcpfailure.ClassReliability || !tf.Retryable {
		t.Errorf("got %+v, want a retryable reliability failure for a 503 of an idempotent tool", tf)
	}

	ok := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "fine"}}}
	if a.Annotate(context.Background(), "upstream_tool", nil, nil, ok) != ok {
		t.Error("a successful result was not returned as is")
	}
}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a logger.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
