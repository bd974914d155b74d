package mcpfailure_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omcp/toolfailure/mcpfailure"
)

// errLostResponse is what the go-sdk's streamable client ends a call with
// when its response stream breaks before the response and cannot be
// resumed (no Last-Event-ID, as under protocol 2026-07-28).
var errLostResponse = errors.New("request terminated without response")

// lossyTransport is the SDK's in-memory transport with the response stream
// of chosen tools/call attempts (1-based) broken the way the streamable
// client reports it: the request reaches the server and the tool runs, and
// the client gets errLostResponse instead of the response.
type lossyTransport struct {
	mcp.Transport
	lose []int
}

func (t *lossyTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &lossyConn{Connection: c, lose: t.lose, lost: map[jsonrpc.ID]bool{}}, nil
}

type lossyConn struct {
	mcp.Connection
	lose  []int
	mu    sync.Mutex
	calls int
	lost  map[jsonrpc.ID]bool
}

func (c *lossyConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/call" {
		c.mu.Lock()
		c.calls++
		if slices.Contains(c.lose, c.calls) {
			c.lost[req.ID] = true
		}
		c.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg)
}

func (c *lossyConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		lost := c.lost[resp.ID]
		c.mu.Unlock()
		if lost {
			return &jsonrpc.Response{ID: resp.ID, Error: errLostResponse}, err
		}
	}
	return msg, err
}

// reissueServer serves tool t (idempotent unless told otherwise), which
// answers "done" and counts its runs, to a client over lossyTransport.
func reissueServer(t *testing.T, idempotent bool, lose ...int) (*mcp.ClientSession, *atomic.Int32) {
	t.Helper()
	caps := &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}
	caps.AddExtension(mcpfailure.MetaKey, map[string]any{"version": mcpfailure.ExtensionVersion})
	s := mcp.NewServer(&mcp.Implementation{Name: "lossy", Version: "v1"}, &mcp.ServerOptions{Capabilities: caps})
	var runs atomic.Int32
	tool := &mcp.Tool{Name: "t", InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{IdempotentHint: idempotent}}
	s.AddTool(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runs.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	clientEnd, serverEnd := mcp.NewInMemoryTransports()
	ss, err := s.Connect(t.Context(), serverEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "lossy-client", Version: "v1"}, nil).
		Connect(t.Context(), &lossyTransport{Transport: clientEnd, lose: lose}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, &runs
}

func newBudget(t *testing.T, cfg mcpfailure.RetryBudgetConfig) *mcpfailure.RetryBudget {
	t.Helper()
	b, err := mcpfailure.NewRetryBudget(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDispatchReissue: a call whose response stream broke is re-issued
// as a retry: after the transient backoff, paid for at the timeout cost,
// and the tokens come back with the success.
func TestDispatchReissue(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		cs, runs := reissueServer(t, true, 1)
		budget := newBudget(t, mcpfailure.RetryBudgetConfig{Capacity: 30})
		d := newDispatcher(t, cs, mcpfailure.DispatcherConfig{Trusted: true, Jitter: -1, Budget: budget})
		res, rep, err := d.CallTool(t.Context(), &mcp.CallToolParams{Name: "t"})
		if err != nil || res == nil || res.IsError {
			t.Fatalf("err %v, result %v, report %+v", err, res, rep)
		}
		if rep.Action != mcpfailure.ActionRetried || rep.Attempts != 2 || rep.Reissues != 1 || !slices.Equal(rep.Waits, []time.Duration{200 * time.Millisecond}) {
			t.Errorf("report = %+v, want one re-issue after 200 ms", rep)
		}
		if rep.TransportError != nil || rep.Class != "" {
			t.Errorf("the successful re-issue left transport error %v and class %q", rep.TransportError, rep.Class)
		}
		if n := runs.Load(); n != 2 {
			t.Errorf("the tool ran %d times, want 2 (the lost attempt ran too)", n)
		}
		if got := budget.Tokens(); got != 30 {
			t.Errorf("budget holds %d tokens, want 30 (10 taken, 10 given back)", got)
		}
	})
}

// TestDispatchReissueRefused: a re-issue follows every rule of a retry.
func TestDispatchReissueRefused(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		idempotent bool
		trusted    bool
		capacity   int
		reason     string
	}{
		{"not idempotent", false, true, 0, "idempotentHint is not true"},
		{"untrusted", true, false, 0, "not trusted"},
		{"budget", true, true, 9, "retry budget is spent (9 tokens left, the retry costs 10)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				cs, runs := reissueServer(t, c.idempotent, 1)
				budget := newBudget(t, mcpfailure.RetryBudgetConfig{Capacity: c.capacity})
				d := newDispatcher(t, cs, mcpfailure.DispatcherConfig{Trusted: c.trusted, Budget: budget})
				_, rep, err := d.CallTool(t.Context(), &mcp.CallToolParams{Name: "t"})
				if !errors.Is(err, errLostResponse) && (err == nil || !strings.Contains(err.Error(), errLostResponse.Error())) {
					t.Errorf("err = %v, want the transport's", err)
				}
				if rep.Action != mcpfailure.ActionStopped || rep.Attempts != 1 || rep.Reissues != 0 ||
					!strings.HasPrefix(rep.Reason, "call failed: ") || !strings.Contains(rep.Reason, "not re-issued: ") ||
					!strings.Contains(rep.Reason, c.reason) {
					t.Errorf("report = %+v, want a stop naming %q", rep, c.reason)
				}
				if rep.TransportError == nil {
					t.Error("report lacks the transport error")
				}
				if n := runs.Load(); n != 1 {
					t.Errorf("the tool ran %d times, want 1", n)
				}
			})
		})
	}
}

// TestDispatchClosedSessionNotReissued: a closed session ends the call at
// once; a re-issue on it could only fail again.
func TestDispatchClosedSessionNotReissued(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		cs, runs := reissueServer(t, true)
		d := newDispatcher(t, cs, mcpfailure.DispatcherConfig{Trusted: true})
		if err := cs.Close(); err != nil {
			t.Fatal(err)
		}
		_, rep, err := d.CallTool(t.Context(), &mcp.CallToolParams{Name: "t"})
		if !errors.Is(err, mcp.ErrConnectionClosed) || rep.Action != mcpfailure.ActionStopped || rep.Attempts != 1 || rep.Reissues != 0 || strings.Contains(rep.Reason, "re-issued") {
			t.Errorf("err %v, report %+v: want a plain stop on the closed connection", err, rep)
		}
		if !errors.Is(rep.TransportError, mcp.ErrConnectionClosed) {
			t.Errorf("report's transport error = %v", rep.TransportError)
		}
		if n := runs.Load(); n != 0 {
			t.Errorf("the tool ran %d times", n)
		}
	})
}

// TestDispatchBudgetPerServer: dispatchers of two sessions to one server
// share its budget. Once retries have spent it, neither retries; a success
// at the first attempt earns a token back.
func TestDispatchBudgetPerServer(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		caps := &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}
		caps.AddExtension(mcpfailure.MetaKey, map[string]any{"version": mcpfailure.ExtensionVersion})
		s := mcp.NewServer(&mcp.Implementation{Name: "failing", Version: "v1"}, &mcp.ServerOptions{Capabilities: caps})
		var runs atomic.Int32
		failing := true
		var mu sync.Mutex
		s.AddTool(&mcp.Tool{Name: "t", InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{IdempotentHint: true}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				runs.Add(1)
				mu.Lock()
				defer mu.Unlock()
				if !failing {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
				}
				return &mcp.CallToolResult{
					IsError: true,
					Content: []mcp.Content{&mcp.TextContent{Text: "busy"}},
					Meta: mcp.Meta{mcpfailure.MetaKey: map[string]any{
						"class": "reliability", "code": "retryable_transient_error", "retryable": true,
						"correlationId": "tf_0000000000000000000000000Z",
					}},
				}, nil
			})
		budget := newBudget(t, mcpfailure.RetryBudgetConfig{Capacity: 12})
		var ds []*mcpfailure.Dispatcher
		for range 2 {
			clientEnd, serverEnd := mcp.NewInMemoryTransports()
			ss, err := s.Connect(t.Context(), serverEnd, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil).Connect(t.Context(), clientEnd, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			ds = append(ds, newDispatcher(t, cs, mcpfailure.DispatcherConfig{Trusted: true, MaxAttempts: 10, Budget: budget}))
		}
		call := func(d *mcpfailure.Dispatcher) *mcpfailure.Report {
			t.Helper()
			_, rep, err := d.CallTool(t.Context(), &mcp.CallToolParams{Name: "t"})
			if err != nil {
				t.Fatal(err)
			}
			return rep
		}
		if rep := call(ds[0]); rep.Attempts != 3 || !strings.Contains(rep.Reason, "retry budget is spent (2 tokens left, the retry costs 5)") {
			t.Errorf("first session: report = %+v, want two retries paid for, the third refused", rep)
		}
		if rep := call(ds[1]); rep.Attempts != 1 || !strings.Contains(rep.Reason, "retry budget is spent") {
			t.Errorf("second session: report = %+v, want no retry from the shared, spent budget", rep)
		}
		if n := runs.Load(); n != 4 {
			t.Errorf("the failing server saw %d calls, want 4", n)
		}
		mu.Lock()
		failing = false
		mu.Unlock()
		if rep := call(ds[1]); rep.Action != mcpfailure.ActionNone || budget.Tokens() != 3 {
			t.Errorf("report = %+v, budget %d: want a success that refunds 1 (2 to 3)", rep, budget.Tokens())
		}
	})
}

// TestDispatchRetryBudgetDefaults checks the defaults, the AWS SDKs' standard mode, and
// that settings out of range are refused.
func TestDispatchRetryBudgetDefaults(t *testing.T) {
	t.Parallel()
	b := newBudget(t, mcpfailure.RetryBudgetConfig{})
	if b.Tokens() != 500 {
		t.Errorf("a default budget starts at %d tokens, want 500", b.Tokens())
	}
	if _, err := mcpfailure.NewRetryBudget(mcpfailure.RetryBudgetConfig{RetryCost: -1}); err == nil {
		t.Error("a negative cost was accepted")
	}
	for code, want := range map[string]bool{
		"rate_limited": true, "RATE_LIMIT_EXCEEDED": true, "too-many-requests": true, "RESOURCE_EXHAUSTED": true,
		"Throttling": true, "retryable_transient_error": false, "quota": false, "": false,
	} {
		if got := mcpfailure.RateLimitCode(code); got != want {
			t.Errorf("RateLimitCode(%q) = %v, want %v", code, got, want)
		}
	}
}
