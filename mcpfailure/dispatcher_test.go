package mcpfailure_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	toolfailurev1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/servicetest"
	"github.com/omcp/toolfailure/mcpfailure"
)

func newDispatcher(t *testing.T, cs *mcp.ClientSession, cfg mcpfailure.DispatcherConfig) *mcpfailure.Dispatcher {
	t.Helper()
	d, err := mcpfailure.NewDispatcher(cs, cfg)
	if err != nil {
		t.Fatalf("NewDispatcher: %v", err)
	}
	return d
}

// setupDispatch is the common bundle of the dispatcher tests: the service,
// a classifying tool server, and a session to it over transport.
func setupDispatch(t *testing.T, transport string) (*service, *toolServer, *mcp.ClientSession) {
	t.Helper()
	svc := startService(t, nil)
	ts := newToolServer(t, newAnnotator(t, svc.classifier(), 0))
	return svc, ts, connect(t, ts.Server, transport)
}

// checkNotBefore asserts that every retry of tool started at or after the
// retryNotBefore of the failure before it, the proposal's hard rule.
func checkNotBefore(t *testing.T, ts *toolServer, tool string, wantCalls int) {
	t.Helper()
	calls := ts.callTimes(tool)
	if len(calls) != wantCalls {
		t.Fatalf("%s was called %d times, want %d", tool, len(calls), wantCalls)
	}
	rnbs := ts.retryNotBefores(t, tool)
	if len(rnbs) < wantCalls-1 {
		t.Fatalf("%s: %d failures carried retryNotBefore, want at least %d", tool, len(rnbs), wantCalls-1)
	}
	for i := 1; i < len(calls); i++ {
		// The ID's milliseconds are floored, so a call in the same
		// millisecond as retryNotBefore counts as on time.
		if early := rnbs[i-1].Sub(calls[i]); early > time.Millisecond {
			t.Errorf("%s: attempt %d started %v before retryNotBefore", tool, i+1, early)
		}
	}
}

// TestRetryIdempotentTrusted is the one path that retries: a retryable
// reliability failure of a tool a trusted server marks idempotent.
func TestRetryIdempotentTrusted(t *testing.T) {
	t.Parallel()
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			_, ts, cs := setupDispatch(t, transport)
			// A retryNotBefore makes the failure throttling; its backoff set
			// to the transient one leaves retryNotBefore alone in charge of
			// the waits, which is what this test pins.
			d := newDispatcher(t, cs, mcpfailure.DispatcherConfig{Trusted: true, ThrottleInitialBackoff: mcpfailure.DefaultInitialBackoff})

			res, rep, err := d.CallTool(t.Context(), &mcp.CallToolParams{Name: "self_tagged"})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError || servicetest.TextOf(res) != "done" {
				t.Errorf("final result: isError %v, text %q", res.IsError, servicetest.TextOf(res))
			}
			if rep.Action != mcpfailure.ActionRetried || rep.Attempts != 3 || len(rep.Waits) != 2 || !rep.Idempotent {
				t.Errorf("report = %+v, want retried after 3 attempts and 2 waits", rep)
			}
			if rep.Class != mcpfailure.ClassReliability || len(rep.CorrelationIDs) != 2 {
				t.Errorf("report keeps class %q and %d IDs, want reliability and 2", rep.Class, len(rep.CorrelationIDs))
			}
			for _, w := range rep.Waits {
				if w > selfTaggedDelay*2 {
					t.Errorf("waited %v; retryNotBefore was %v away and jitter adds at most 20%%", w, selfTaggedDelay)
				}
			}
			checkNotBefore(t, ts, "self_tagged", 3)
		})
	}
}

// TestRetryServiceClassified runs the flaky tool whose failures the
// service classifies (HTTP 503, Retry-After: 1), then looks up every
// correlation ID the retries produced.
func TestRetryServiceClassified(t *testing.T) {
	t.Parallel()
	svc, ts, cs := setupDispatch(t, "http")
	d := newDispatcher(t, cs, mcpfailure.DispatcherConfig{Trusted: true})
	start := time.Now()
	res, rep, err := d.CallTool(t.Context(), &mcp.CallToolParams{Name: "flaky"})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || rep.Action != mcpfailure.ActionRetried || rep.Attempts != 3 {
		t.Fatalf("isError %v, report %+v; want success on the third attempt", res.IsError, rep)
	}
	if elapsed := time.Since(start); elapsed < 2*time.Second {
		t.Errorf("three attempts with Retry-After: 1 took only %v", elapsed)
	}
	checkNotBefore(t, ts, "flaky", 3)
	for _, id := range rep.CorrelationIDs {
		if _, err := svc.failures().GetFailure(t.Context(), &toolfailurev1.GetFailureRequest{CorrelationId: id}); err != nil {
			t.Errorf("GetFailure(%s): %v", id, err)
		}
	}
	ts.checkEmitted(t)
}

// TestNoRetry covers every reason not to retry. Each case must make
// exactly one call.
func TestNoRetry(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		tool    string
		args    map[string]any
		trusted bool
		action  mcpfailure.Action
		class   mcpfailure.Class
		reason  string
	}{
		{name: "untrusted server", tool: "self_tagged", action: mcpfailure.ActionStopped, class: mcpfailure.ClassReliability, reason: "not trusted"},
		{name: "not idempotent", tool: "self_tagged_unsafe", trusted: true, action: mcpfailure.ActionStopped, class: mcpfailure.ClassReliability, reason: "idempotentHint"},
		{name: "auth", tool: "needs_auth", trusted: true, action: mcpfailure.ActionAskUser, class: mcpfailure.ClassGovernance, reason: "governance"},
		{name: "confirmation", tool: "with_meta", trusted: true, action: mcpfailure.ActionAskUser, class: mcpfailure.ClassGovernance, reason: "governance"},
		{name: "permission", tool: "forbidden", trusted: true, action: mcpfailure.ActionAskUser, class: mcpfailure.ClassGovernance, reason: "governance"},
		{name: "not found", tool: "missing", trusted: true, action: mcpfailure.ActionStopped, class: mcpfailure.ClassCapability, reason: "capability"},
		{name: "invalid input", tool: "strict_input", args: map[string]any{"count": "many"}, trusted: true, action: mcpfailure.ActionStopped, class: mcpfailure.ClassCapability, reason: "capability"},
	}
	_, ts, cs := setupDispatch(t, "memory")
	for _, c := range cases {
		// Sequential: the cases share one server and count its attempts
		// before and after, which a parallel case would disturb.
		t.Run(c.name, func(t *testing.T) {
			d := newDispatcher(t, cs, mcpfailure.DispatcherConfig{Trusted: c.trusted})
			before := ts.attempts(c.tool)
			res, rep, err := d.CallTool(t.Context(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError {
				t.Fatal("want the failed result back")
			}
			if rep.Action != c.action || rep.Class != c.class || rep.Attempts != 1 || !strings.Contains(rep.Reason, c.reason) {
				t.Errorf("report = %+v, want action %s, class %s, 1 attempt, reason containing %q", rep, c.action, c.class, c.reason)
			}
			if rep.CorrelationID == "" || len(rep.CorrelationIDs) != 1 {
				t.Errorf("report lacks the correlation ID: %+v", rep)
			}
			if calls := ts.attempts(c.tool) - before; calls != 1 {
				t.Errorf("tool called %d times, want 1", calls)
			}
		})
	}
}

// TestBounds checks the dispatcher's own limits: attempts, total time, the
// context's deadline, and cancellation while waiting.
func TestBounds(t *testing.T) {
	t.Parallel()
	t.Run("max attempts", func(t *testing.T) {
		t.Parallel()
		_, ts, cs := setupDispatch(t, "memory")
		d := newDispatcher(t, cs, mcpfailure.DispatcherConfig{Trusted: true, MaxAttempts: 2})
		res, rep, err := d.CallTool(t.Context(), &mcp.CallToolParams{Name: "self_tagged"})
		if err != nil || !res.IsError {
			t.Fatalf("err %v, isError %v", err, res.IsError)
		}
		if rep.Action != mcpfailure.ActionStopped || rep.Attempts != 2 || !strings.Contains(rep.Reason, "maximum") {
			t.Errorf("report = %+v", rep)
		}
		checkNotBefore(t, ts, "self_tagged", 2)
	})
	t.Run("total time", func(t *testing.T) {
		t.Parallel()
		_, ts, cs := setupDispatch(t, "memory")
		d := newDispatcher(t, cs, mcpfailure.DispatcherConfig{Trusted: true, MaxElapsed: 100 * time.Millisecond})
		_, rep, err := d.CallTool(t.Context(), &mcp.CallToolParams{Name: "self_tagged"})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Action != mcpfailure.ActionStopped || rep.Attempts != 1 || !strings.Contains(rep.Reason, "budget") {
			t.Errorf("report = %+v", rep)
		}
		if rep.Elapsed >= selfTaggedDelay {
			t.Errorf("took %v: it waited for a retry it could not make", rep.Elapsed)
		}
		if n := len(ts.callTimes("self_tagged")); n != 1 {
			t.Errorf("%d calls, want 1", n)
		}
	})
	t.Run("context deadline", func(t *testing.T) {
		t.Parallel()
		_, ts, cs := setupDispatch(t, "memory")
		d := newDispatcher(t, cs, mcpfailure.DispatcherConfig{Trusted: true})
		// Time for the first attempt (milliseconds in memory), not for the
		// 300 ms wait a retry needs.
		ctx, cancel := context.WithTimeout(t.Context(), selfTaggedDelay*3/4)
		defer cancel()
		_, rep, err := d.CallTool(ctx, &mcp.CallToolParams{Name: "self_tagged"})
		if err != nil {
			t.Fatalf("err %v, report %+v", err, rep)
		}
		if rep.Action != mcpfailure.ActionStopped || !strings.Contains(rep.Reason, "deadline") {
			t.Errorf("report = %+v", rep)
		}
		if n := len(ts.callTimes("self_tagged")); n != 1 {
			t.Errorf("%d calls, want 1", n)
		}
	})
	t.Run("cancelled while waiting", func(t *testing.T) {
		t.Parallel()
		_, ts, cs := setupDispatch(t, "memory")
		ctx, cancel := context.WithCancel(t.Context())
		// Cancel when the dispatcher says it will wait to retry, not after
		// a fixed time: on a loaded machine the first call alone can take
		// longer than any fixed time, and the cancellation would then end
		// the call instead of the wait.
		var cancelled time.Time
		d := newDispatcher(t, cs, mcpfailure.DispatcherConfig{Trusted: true,
			Logger: slog.New(onMessage{msg: "toolfailure: retrying tool call", do: func() {
				cancelled = time.Now()
				cancel()
			}})})
		res, rep, err := d.CallTool(ctx, &mcp.CallToolParams{Name: "self_tagged"})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if res == nil || !res.IsError || rep.Action != mcpfailure.ActionStopped {
			t.Errorf("want the last failed result and a stop; got res %v, report %+v", res, rep)
		}
		// The wait before the retry is at least selfTaggedDelay: a return
		// sooner after the cancellation than that did not sit it out.
		if cancelled.IsZero() {
			t.Fatal("the dispatcher never said it would wait to retry")
		}
		if after := time.Since(cancelled); after >= selfTaggedDelay {
			t.Errorf("cancellation took effect %v after it was made", after)
		}
		if n := len(ts.callTimes("self_tagged")); n != 1 {
			t.Errorf("%d calls, want 1", n)
		}
	})
}

// onMessage is a slog.Handler that calls do whenever a record with the
// message msg is logged, at any level.
type onMessage struct {
	msg string
	do  func()
}

func (h onMessage) Enabled(context.Context, slog.Level) bool { return true }
func (h onMessage) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.do()
	}
	return nil
}
func (h onMessage) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h onMessage) WithGroup(string) slog.Handler      { return h }

// TestProtocolErrors checks that JSON-RPC errors get the same decision as
// tool results: a rate limit with a delay is retried (for an idempotent
// tool of a trusted server), invalid params and unknown tools are not.
func TestProtocolErrors(t *testing.T) {
	t.Parallel()
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			_, ts, cs := setupDispatch(t, transport)
			d := newDispatcher(t, cs, mcpfailure.DispatcherConfig{Trusted: true})

			res, rep, err := d.CallTool(t.Context(), &mcp.CallToolParams{Name: "rate_limited"})
			if err != nil || res.IsError {
				t.Fatalf("rate_limited: err %v, report %+v", err, rep)
			}
			if rep.Action != mcpfailure.ActionRetried || rep.Attempts != 3 || rep.Code != mcpfailure.CodeRetryableTransientError {
				t.Errorf("rate_limited: report = %+v", rep)
			}
			calls := ts.callTimes("rate_limited")
			for i := 1; i < len(calls); i++ {
				if gap := calls[i].Sub(calls[i-1]); gap < selfTaggedDelay {
					t.Errorf("retry %d came %v after the rate limit asked for %v", i, gap, selfTaggedDelay)
				}
			}

			for _, c := range []struct {
				tool string
				code string
			}{{"bad_params", mcpfailure.CodeInvalidInput}, {"no_such_tool", mcpfailure.CodeCapabilityUnsupported}} {
				_, rep, err := d.CallTool(t.Context(), &mcp.CallToolParams{Name: c.tool})
				var rpcErr *jsonrpc.Error
				if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
					t.Errorf("%s: err = %v, want the JSON-RPC error", c.tool, err)
				}
				if rep.Action != mcpfailure.ActionStopped || rep.Class != mcpfailure.ClassCapability || rep.Code != c.code || rep.Attempts != 1 {
					t.Errorf("%s: report = %+v", c.tool, rep)
				}
			}
		})
	}
}

// TestServerWithoutProposal checks that against a server that never sets
// the key, the dispatcher changes nothing: one call, the result as is.
func TestServerWithoutProposal(t *testing.T) {
	t.Parallel()
	ts := newToolServer(t, nil)
	cs := connect(t, ts.Server, "memory")
	d := newDispatcher(t, cs, mcpfailure.DispatcherConfig{Trusted: true})
	for _, tool := range []string{"flaky", "needs_auth"} {
		res, rep, err := d.CallTool(t.Context(), &mcp.CallToolParams{Name: tool})
		if err != nil || !res.IsError {
			t.Fatalf("%s: err %v", tool, err)
		}
		if rep.Action != mcpfailure.ActionNone || rep.Attempts != 1 || rep.Class != "" {
			t.Errorf("%s: report = %+v, want no action after one attempt", tool, rep)
		}
	}
	if n := len(ts.callTimes("flaky")); n != 1 {
		t.Errorf("flaky called %d times, want 1", n)
	}
}
