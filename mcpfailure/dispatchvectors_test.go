package mcpfailure_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omcp/toolfailure/mcpfailure"
)

// dispatchVector is one file of conformance/testdata/dispatch: a tool as a
// server lists it, what each attempt of a call answers, and what a
// dispatcher must decide. The TypeScript package's tests read the same
// files, so that the two dispatchers cannot disagree silently. Times in the
// vector are epoch milliseconds of a virtual clock that starts at StartMs;
// Go runs it in a synctest bubble, whose clock starts elsewhere, so every
// absolute time is shifted on the way in and out.
type dispatchVector struct {
	Description string `json:"description"`
	Rule        string `json:"rule"`
	StartMs     int64  `json:"startMs"`
	Config      struct {
		Trusted          bool    `json:"trusted"`
		MaxAttempts      int     `json:"maxAttempts"`
		MaxElapsedMs     int64   `json:"maxElapsedMs"`
		InitialBackoffMs int64   `json:"initialBackoffMs"`
		MaxBackoffMs     int64   `json:"maxBackoffMs"`
		Jitter           float64 `json:"jitter"`
		// ThrottleInitialBackoffMs and ThrottleMaxBackoffMs are the backoff
		// for throttling failures (0 means the default).
		ThrottleInitialBackoffMs int64 `json:"throttleInitialBackoffMs"`
		ThrottleMaxBackoffMs     int64 `json:"throttleMaxBackoffMs"`
		// MetaKey is the key's configured name ("" means the proposal's).
		MetaKey string `json:"metaKey"`
		// Budget sets the server's retry budget, full at the start; absent
		// means the defaults.
		Budget *struct {
			Capacity         int `json:"capacity"`
			RetryCost        int `json:"retryCost"`
			TimeoutRetryCost int `json:"timeoutRetryCost"`
			SuccessRefund    int `json:"successRefund"`
		} `json:"budget"`
	} `json:"config"`
	// ServerExtensions is what the server advertises in
	// capabilities.extensions; without the key, it did not advertise it.
	ServerExtensions map[string]map[string]any `json:"serverExtensions"`
	// DeadlineMs and AbortAtMs are offsets from the start: the caller's
	// deadline, and the moment the caller cancels.
	DeadlineMs     *int64          `json:"deadlineMs"`
	AbortAtMs      *int64          `json:"abortAtMs"`
	Tools          []mcp.Tool      `json:"tools"`
	ListToolsError *jsonrpc.Error  `json:"listToolsError"`
	Call           json.RawMessage `json:"call"`
	Steps          []struct {
		// TakesMs is how long the attempt runs on the server.
		TakesMs int64           `json:"takesMs"`
		Result  json.RawMessage `json:"result"`
		Error   *jsonrpc.Error  `json:"error"`
	} `json:"steps"`
	Expect vectorExpect `json:"expect"`
}

type vectorExpect struct {
	Action         string     `json:"action"`
	ReasonContains []string   `json:"reasonContains"`
	Attempts       int        `json:"attempts"`
	CallsAtMs      []int64    `json:"callsAtMs"`
	WaitsMs        []int64    `json:"waitsMs"`
	WaitsBetweenMs [][2]int64 `json:"waitsBetweenMs"`
	ElapsedMs      *int64     `json:"elapsedMs"`
	Class          string     `json:"class"`
	Code           string     `json:"code"`
	Retryable      bool       `json:"retryable"`
	RetryNotBefore *int64     `json:"retryNotBefore"`
	CorrelationID  string     `json:"correlationId"`
	AgentGuidance  *string    `json:"agentGuidance"`
	CorrelationIDs []string   `json:"correlationIds"`
	Idempotent     bool       `json:"idempotent"`
	Malformed      bool       `json:"malformed"`
	ProtocolError  *int64     `json:"protocolError"`
	// Advertised is the report's view of the server's capabilities;
	// Throttled, when present, whether the last failure was taken as
	// throttling; BudgetTokens, when present, what the server's retry
	// budget holds after the call.
	Advertised   bool  `json:"advertised"`
	Throttled    *bool `json:"throttled"`
	BudgetTokens *int  `json:"budgetTokens"`
	// Error is the kind of error the call ends in: "" (none), "protocol"
	// or "aborted".
	Error string `json:"error"`
	// Result is the final result: "success", "error" or "none".
	Result     string `json:"result"`
	ResultText string `json:"resultText"`
}

func loadDispatchVectors(t *testing.T) map[string]*dispatchVector {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "conformance", "testdata", "dispatch", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 40 {
		t.Fatalf("%d dispatch vectors, want at least 40", len(files))
	}
	out := map[string]*dispatchVector{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		v := &dispatchVector{}
		if err := dec.Decode(v); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if v.Rule == "" || v.Description == "" || v.StartMs == 0 || len(v.Steps) == 0 || v.Expect.Action == "" {
			t.Fatalf("%s: rule, description, startMs, steps and expect.action are required", f)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = v
	}
	return out
}

// TestDispatchVectors runs every shared decision vector through the
// Dispatcher, over the SDK's in-memory transport, in a synctest bubble: the
// waits are real timers on a virtual clock, so a thirty-second backoff takes
// no time and every wait is exact.
func TestDispatchVectors(t *testing.T) {
	t.Parallel()
	for name, v := range loadDispatchVectors(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) { runDispatchVector(t, v) })
		})
	}
}

func runDispatchVector(t *testing.T, v *dispatchVector) {
	start := time.Now()
	// shift turns a vector's epoch milliseconds into the bubble's.
	shift := start.UnixMilli() - v.StartMs
	at := func(offsetMs int64) time.Time { return start.Add(time.Duration(offsetMs) * time.Millisecond) }

	metaKey := v.Config.MetaKey
	if metaKey == "" {
		metaKey = mcpfailure.MetaKey
	}
	caps := &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}
	for name, settings := range v.ServerExtensions {
		caps.AddExtension(name, settings)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "vector", Version: "v1"}, &mcp.ServerOptions{Capabilities: caps})
	var mu sync.Mutex
	var callsAt []int64
	for _, tool := range v.Tools {
		if tool.InputSchema == nil {
			tool.InputSchema = map[string]any{"type": "object"}
		}
		s.AddTool(&tool, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			mu.Lock()
			n := len(callsAt)
			callsAt = append(callsAt, time.Since(start).Milliseconds())
			mu.Unlock()
			if n >= len(v.Steps) {
				t.Errorf("attempt %d, but the vector has %d steps", n+1, len(v.Steps))
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "no such step"}
			}
			step := v.Steps[n]
			time.Sleep(time.Duration(step.TakesMs) * time.Millisecond)
			if step.Error != nil {
				e := *step.Error
				e.Data = shiftErrorData(t, e.Data, shift)
				return nil, &e
			}
			res := &mcp.CallToolResult{}
			if err := json.Unmarshal(shiftResult(t, step.Result, metaKey, shift), res); err != nil {
				t.Fatalf("step %d result: %v", n+1, err)
			}
			return res, nil
		})
	}
	if v.ListToolsError != nil {
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "tools/list" {
					return nil, v.ListToolsError
				}
				return next(ctx, method, req)
			}
		})
	}
	clientEnd, serverEnd := mcp.NewInMemoryTransports()
	ss, err := s.Connect(t.Context(), serverEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "vector-client", Version: "v1"}, nil).Connect(t.Context(), clientEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	c := v.Config
	ms := func(n int64) time.Duration { return time.Duration(n) * time.Millisecond }
	var budget *mcpfailure.RetryBudget
	if b := c.Budget; b != nil {
		budget, err = mcpfailure.NewRetryBudget(mcpfailure.RetryBudgetConfig{
			Capacity: b.Capacity, RetryCost: b.RetryCost, TimeoutRetryCost: b.TimeoutRetryCost, SuccessRefund: b.SuccessRefund,
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	d := newDispatcher(t, cs, mcpfailure.DispatcherConfig{
		Trusted: c.Trusted, MaxAttempts: c.MaxAttempts, MaxElapsed: ms(c.MaxElapsedMs),
		InitialBackoff: ms(c.InitialBackoffMs), MaxBackoff: ms(c.MaxBackoffMs), Jitter: c.Jitter,
		ThrottleInitialBackoff: ms(c.ThrottleInitialBackoffMs), ThrottleMaxBackoff: ms(c.ThrottleMaxBackoffMs),
		MetaKey: c.MetaKey, Budget: budget,
	})
	ctx := t.Context()
	if v.DeadlineMs != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, at(*v.DeadlineMs))
		defer cancel()
	}
	if v.AbortAtMs != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		stop := time.AfterFunc(ms(*v.AbortAtMs), cancel)
		defer stop.Stop()
	}
	params := &mcp.CallToolParams{}
	if err := json.Unmarshal(v.Call, params); err != nil {
		t.Fatalf("call: %v", err)
	}
	res, rep, err := d.CallTool(ctx, params)
	checkVector(t, v.Expect, res, rep, err, callsAt, shift)
	if e := v.Expect.BudgetTokens; e != nil && d.Budget().Tokens() != *e {
		t.Errorf("budget holds %d tokens after the call, want %d", d.Budget().Tokens(), *e)
	}
}

func checkVector(t *testing.T, e vectorExpect, res *mcp.CallToolResult, rep *mcpfailure.Report, err error, callsAt []int64, shift int64) {
	t.Helper()
	if rep == nil {
		t.Fatalf("no report; err %v", err)
	}
	if rep.Advertised != e.Advertised {
		t.Errorf("advertised %v, want %v", rep.Advertised, e.Advertised)
	}
	if e.Throttled != nil && rep.Throttled != *e.Throttled {
		t.Errorf("throttled %v, want %v", rep.Throttled, *e.Throttled)
	}
	if string(rep.Action) != e.Action {
		t.Errorf("action %q, want %q (reason: %s)", rep.Action, e.Action, rep.Reason)
	}
	for _, want := range e.ReasonContains {
		if !strings.Contains(rep.Reason, want) {
			t.Errorf("reason %q lacks %q", rep.Reason, want)
		}
	}
	if rep.Attempts != e.Attempts {
		t.Errorf("attempts %d, want %d", rep.Attempts, e.Attempts)
	}
	if e.CallsAtMs != nil && !slices.Equal(callsAt, e.CallsAtMs) {
		t.Errorf("calls at %v ms, want %v", callsAt, e.CallsAtMs)
	}
	waits := make([]int64, len(rep.Waits))
	for i, w := range rep.Waits {
		waits[i] = w.Milliseconds()
	}
	switch {
	case e.WaitsBetweenMs != nil:
		if len(waits) != len(e.WaitsBetweenMs) {
			t.Errorf("waits %v ms, want %d within %v", waits, len(e.WaitsBetweenMs), e.WaitsBetweenMs)
		}
		for i := range min(len(waits), len(e.WaitsBetweenMs)) {
			if r := e.WaitsBetweenMs[i]; waits[i] < r[0] || waits[i] > r[1] {
				t.Errorf("wait %d is %d ms, want within %v", i+1, waits[i], r)
			}
		}
	case !slices.Equal(waits, orEmpty(e.WaitsMs)):
		t.Errorf("waits %v ms, want %v", waits, e.WaitsMs)
	}
	if e.ElapsedMs != nil && rep.Elapsed.Milliseconds() != *e.ElapsedMs {
		t.Errorf("elapsed %d ms, want %d", rep.Elapsed.Milliseconds(), *e.ElapsedMs)
	}
	if string(rep.Class) != e.Class || rep.Code != e.Code || rep.Retryable != e.Retryable || rep.CorrelationID != e.CorrelationID {
		t.Errorf("failure %s/%s retryable %v id %q, want %s/%s retryable %v id %q",
			rep.Class, rep.Code, rep.Retryable, rep.CorrelationID, e.Class, e.Code, e.Retryable, e.CorrelationID)
	}
	if e.AgentGuidance != nil && rep.AgentGuidance != *e.AgentGuidance {
		t.Errorf("agentGuidance %q, want %q", rep.AgentGuidance, *e.AgentGuidance)
	}
	var rnb *int64
	if !rep.RetryNotBefore.IsZero() {
		ms := rep.RetryNotBefore.UnixMilli() - shift
		rnb = &ms
	}
	if !equalPtr(rnb, e.RetryNotBefore) {
		t.Errorf("retryNotBefore %v, want %v", deref(rnb), deref(e.RetryNotBefore))
	}
	if !slices.Equal(rep.CorrelationIDs, orEmpty(e.CorrelationIDs)) {
		t.Errorf("correlation IDs %v, want %v", rep.CorrelationIDs, e.CorrelationIDs)
	}
	if rep.Idempotent != e.Idempotent {
		t.Errorf("idempotent %v, want %v", rep.Idempotent, e.Idempotent)
	}
	if (rep.Malformed != nil) != e.Malformed {
		t.Errorf("malformed %v, want %v", rep.Malformed, e.Malformed)
	}
	var pe *int64
	if rep.ProtocolError != nil {
		pe = &rep.ProtocolError.Code
	}
	if !equalPtr(pe, e.ProtocolError) {
		t.Errorf("protocol error %v, want %v", deref(pe), deref(e.ProtocolError))
	}
	var rpcErr *jsonrpc.Error
	gotErr := ""
	switch {
	case err == nil:
	case errors.As(err, &rpcErr):
		gotErr = "protocol"
	case errors.Is(err, context.Canceled):
		gotErr = "aborted"
	default:
		gotErr = "other: " + err.Error()
	}
	if gotErr != e.Error {
		t.Errorf("error %q (%v), want %q", gotErr, err, e.Error)
	}
	gotRes := "none"
	if res != nil {
		gotRes = "success"
		if res.IsError {
			gotRes = "error"
		}
	}
	if gotRes != e.Result {
		t.Errorf("final result %s, want %s", gotRes, e.Result)
	}
	if e.ResultText != "" && (res == nil || !strings.Contains(textOf(res), e.ResultText)) {
		t.Errorf("final result text %q, want it to contain %q", textOf(res), e.ResultText)
	}
}

func textOf(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// shiftResult moves an integral retryNotBefore of the result's toolFailure
// object into the bubble's time; anything else (a malformed value
// included) is left exactly as the vector has it.
func shiftResult(t *testing.T, raw json.RawMessage, metaKey string, shift int64) json.RawMessage {
	t.Helper()
	var res map[string]any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&res); err != nil {
		t.Fatalf("result: %v", err)
	}
	meta, _ := res["_meta"].(map[string]any)
	if tf, ok := meta[metaKey].(map[string]any); ok {
		if n, ok := tf["retryNotBefore"].(json.Number); ok {
			if ms, err := n.Int64(); err == nil {
				tf["retryNotBefore"] = ms + shift
			}
		}
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// shiftErrorData does the same for the retry hints of JSON-RPC error data
// that name an instant: data.retryNotBefore and an HTTP-date retryAfter.
func shiftErrorData(t *testing.T, raw json.RawMessage, shift int64) json.RawMessage {
	t.Helper()
	if len(raw) == 0 {
		return raw
	}
	var data map[string]any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if dec.Decode(&data) != nil {
		return raw
	}
	if n, ok := data["retryNotBefore"].(json.Number); ok {
		if ms, err := n.Int64(); err == nil {
			data["retryNotBefore"] = ms + shift
		}
	}
	if s, ok := data["retryAfter"].(string); ok {
		if when, err := http.ParseTime(s); err == nil {
			data["retryAfter"] = when.Add(time.Duration(shift) * time.Millisecond).UTC().Format(http.TimeFormat)
		}
	}
	b, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func equalPtr[T comparable](a, b *T) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}
