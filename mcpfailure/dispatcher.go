package mcpfailure

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Action is what a Dispatcher did about the outcome of a call.
type Action string

const (
	// ActionNone: nothing to decide. The first attempt succeeded, or it
	// failed without a (usable) toolFailure object, in which case the result
	// is returned exactly as a client without this package would see it.
	ActionNone Action = "none"
	// ActionRetried: the call was retried and the last attempt succeeded.
	ActionRetried Action = "retried"
	// ActionStopped: the call failed and will not be retried by this
	// dispatcher: a capability failure, a reliability failure the rules do
	// not allow retrying, a retry budget used up, or a cancelled context.
	ActionStopped Action = "stopped"
	// ActionAskUser: a governance failure. Someone has to sign in, grant a
	// permission, lift a policy or confirm; the caller should show the user
	// the failure (and its correlation ID) rather than try again.
	ActionAskUser Action = "ask_user"
)

// Defaults of DispatcherConfig.
const (
	DefaultMaxAttempts    = 3
	DefaultMaxElapsed     = 30 * time.Second
	DefaultInitialBackoff = 200 * time.Millisecond
	DefaultMaxBackoff     = 5 * time.Second
	DefaultJitter         = 0.2
	// A throttled server is asking for less traffic, not for a second try
	// in a moment: the AWS SDKs start a throttling backoff higher than the
	// one for other errors, in the ratio of THROTTLING_RETRY_DELAY_BASE to
	// DEFAULT_RETRY_DELAY_BASE, and cap every delay at MAXIMUM_RETRY_DELAY
	// (@smithy/util-retry's constants). The same ratio over this package's
	// transient backoff gives the throttling default, and the cap is AWS's.
	DefaultThrottleInitialBackoff = time.Second
	DefaultThrottleMaxBackoff     = 20 * time.Second
)

// DispatcherConfig bounds what a Dispatcher may do. Zero values mean the
// defaults above.
type DispatcherConfig struct {
	// Trusted says that this server's tool annotations may drive decisions.
	// The proposal forbids letting annotations from an untrusted server
	// decide anything (a hostile server could mark a payment tool
	// idempotent), so with Trusted false no call is ever retried.
	Trusted bool
	// MaxAttempts bounds attempts per CallTool, the first included.
	MaxAttempts int
	// MaxElapsed bounds the time from the first attempt to the start of the
	// last one: a retry whose earliest start lies beyond it is not made.
	// In-flight calls are not cut short; the caller's context does that.
	MaxElapsed time.Duration
	// InitialBackoff is the wait before the first retry when the failure
	// names no retryNotBefore; it doubles with each retry up to MaxBackoff.
	InitialBackoff time.Duration
	MaxBackoff     time.Duration
	// Jitter is the fraction of a wait added at random (never subtracted,
	// so retryNotBefore is never undercut), so that clients failed by one
	// outage do not all come back in the same millisecond. Zero means
	// DefaultJitter; a negative value turns jitter off.
	Jitter float64
	// ThrottleInitialBackoff and ThrottleMaxBackoff take the place of
	// InitialBackoff and MaxBackoff when the failure is throttling (see
	// Report.Throttled). Zero means the defaults above.
	ThrottleInitialBackoff time.Duration
	ThrottleMaxBackoff     time.Duration
	// MetaKey is the name under which the dispatcher reads the toolFailure
	// object in a result's _meta and the extension in the server's
	// capabilities.extensions. Empty means MetaKey, the proposal's name; a
	// deployment that runs the draft under a vendor prefix until the
	// extension is accepted sets its own, on both sides.
	MetaKey string
	// Budget is the retry budget of the server this session reaches. Nil
	// means a budget of this Dispatcher's own with the default settings;
	// dispatchers whose sessions reach the same server should share one,
	// so that the bound holds per server rather than per session.
	Budget *RetryBudget
	// Logger receives a debug line per retry. Nil means slog.Default().
	Logger *slog.Logger
}

// Dispatcher calls tools on one client session and applies the proposal's
// client rules to failures. It is safe for concurrent use.
type Dispatcher struct {
	session *mcp.ClientSession
	cfg     DispatcherConfig

	mu    sync.Mutex
	tools map[string]*mcp.Tool // from ListTools; nil until first needed
}

// Report says what a Dispatcher saw and did during one CallTool.
type Report struct {
	Tool string
	// Action is the decision on the final outcome; Reason says why, in a
	// sentence meant for logs and people.
	Action Action
	Reason string
	// Attempts counts calls made, the first included.
	Attempts int
	// Waits are the pauses before each retry, jitter included.
	Waits []time.Duration
	// Elapsed is the time CallTool took in all.
	Elapsed time.Duration
	// ToolFailure is the last failure seen; the zero value when the call
	// succeeded at once or failed without a usable object. For a protocol
	// error it is the mapped failure, without a CorrelationID.
	ToolFailure
	// CorrelationIDs lists the IDs of every failed attempt, in order: each
	// failure was recorded, and support may need any of them.
	CorrelationIDs []string
	// ProtocolError is the JSON-RPC error the last attempt ended in, if any.
	ProtocolError *jsonrpc.Error
	// Malformed is set when the result carried the key but its value broke
	// the proposal; the object was then ignored.
	Malformed error
	// Idempotent reports the tool's idempotentHint as it counted: always
	// false for an untrusted server, and for a key that cannot drive a
	// retry (not advertised), since the tool list is then not read.
	Idempotent bool
	// Advertised reports that the server advertised the extension under
	// the configured key (capabilities.extensions, SEP-2133). A key from a
	// server that did not is reported but never drives a retry.
	Advertised bool
	// Throttled reports that the last failure was taken as throttling and
	// waited for with the throttling backoff: it names retryNotBefore (the
	// server is pacing its clients; a Retry-After or a gRPC RetryInfo is
	// where the service takes it from) or its code names a rate limit
	// (RateLimitCode).
	Throttled bool
	// Reissues counts the attempts that re-sent the call after the
	// transport lost its response. Each is a retry, counted in Attempts
	// and Waits and paid for from the budget.
	Reissues int
	// TransportError is the error the last attempt ended in when the
	// transport, not the server, ended it.
	TransportError error
}

// NewDispatcher returns a Dispatcher for session.
func NewDispatcher(session *mcp.ClientSession, cfg DispatcherConfig) (*Dispatcher, error) {
	if session == nil {
		return nil, errors.New("mcpfailure: NewDispatcher needs a client session")
	}
	if cfg.MaxAttempts < 0 || cfg.MaxElapsed < 0 || cfg.InitialBackoff < 0 || cfg.MaxBackoff < 0 || cfg.Jitter > 1 ||
		cfg.ThrottleInitialBackoff < 0 || cfg.ThrottleMaxBackoff < 0 {
		return nil, fmt.Errorf("mcpfailure: DispatcherConfig out of range: %+v", cfg)
	}
	if cfg.MetaKey == "" {
		cfg.MetaKey = MetaKey
	}
	if cfg.ThrottleInitialBackoff == 0 {
		cfg.ThrottleInitialBackoff = DefaultThrottleInitialBackoff
	}
	if cfg.ThrottleMaxBackoff == 0 {
		cfg.ThrottleMaxBackoff = DefaultThrottleMaxBackoff
	}
	if cfg.Budget == nil {
		cfg.Budget, _ = NewRetryBudget(RetryBudgetConfig{})
	}
	if cfg.MaxAttempts == 0 {
		cfg.MaxAttempts = DefaultMaxAttempts
	}
	if cfg.MaxElapsed == 0 {
		cfg.MaxElapsed = DefaultMaxElapsed
	}
	if cfg.InitialBackoff == 0 {
		cfg.InitialBackoff = DefaultInitialBackoff
	}
	if cfg.MaxBackoff == 0 {
		cfg.MaxBackoff = DefaultMaxBackoff
	}
	if cfg.Jitter == 0 {
		cfg.Jitter = DefaultJitter
	}
	if cfg.Jitter < 0 {
		cfg.Jitter = 0
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Dispatcher{session: session, cfg: cfg}, nil
}

// Budget returns the retry budget the Dispatcher draws on.
func (d *Dispatcher) Budget() *RetryBudget { return d.cfg.Budget }

// CallTool calls the tool as ClientSession.CallTool does and retries where
// the proposal allows it. It returns the last result, a report, and the
// last error:
//
//   - A result, failed or not, comes back with a nil error, exactly as from
//     ClientSession.CallTool; the report says what was decided.
//   - A protocol error (*jsonrpc.Error, found with errors.As) is mapped to a
//     failure (see ProtocolFailure), decided on by the same rules, and
//     returned as the error when the last attempt ended in it.
//   - A transport error that lost the call's response (see Report.Reissues)
//     is re-issued under the rules of a retry; otherwise, and for a closed
//     session or a cancelled context, the call ends at once with that
//     error and the last result received, possibly nil.
func (d *Dispatcher) CallTool(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, *Report, error) {
	if params == nil {
		return nil, nil, errors.New("mcpfailure: CallTool needs params with a tool name")
	}
	start := time.Now()
	rep := &Report{Tool: params.Name, Advertised: d.advertised()}
	defer func() { rep.Elapsed = time.Since(start) }()
	// paid is what the retry that led to the current attempt took from the
	// budget: a success gives it back, as in the AWS SDKs' standard mode.
	paid := 0

	for {
		res, err := d.session.CallTool(ctx, params)
		rep.Attempts++

		var tf ToolFailure
		fromKey, reissue := false, false
		rep.ProtocolError, rep.TransportError = nil, nil
		var rpcErr *jsonrpc.Error
		switch {
		case err != nil && errors.As(err, &rpcErr):
			rep.ProtocolError = rpcErr
			mapped, ok := ProtocolFailure(rpcErr, time.Now())
			if !ok {
				rep.ToolFailure = ToolFailure{}
				return res, rep.stop(fmt.Sprintf("protocol error %d with no toolFailure mapping", rpcErr.Code)), err
			}
			tf = mapped
		case err != nil && ctx.Err() == nil && lostResponse(err):
			rep.ToolFailure = ToolFailure{}
			rep.TransportError = err
			reissue = true
		case err != nil:
			if ctx.Err() == nil {
				rep.TransportError = err
			}
			return res, rep.stop("call failed: " + err.Error()), err
		case res == nil:
			return nil, rep.stop("no result"), errors.New("mcpfailure: tools/call returned neither a result nor an error")
		case !res.IsError:
			if rep.Attempts > 1 {
				rep.Action, rep.Reason = ActionRetried, fmt.Sprintf("succeeded on attempt %d", rep.Attempts)
			} else {
				rep.Action, rep.Reason = ActionNone, "succeeded"
			}
			d.cfg.Budget.succeeded(paid)
			return res, rep, nil
		default:
			parsed, present, perr := d.parse(res)
			if !present || perr != nil {
				rep.ToolFailure = ToolFailure{}
				rep.Malformed = perr
				what := "error result without a toolFailure object"
				if perr != nil {
					what = "error result with a malformed toolFailure object (ignored)"
				}
				if rep.Attempts > 1 {
					// Only a retry gets here; it is not followed by another
					// one, because without a usable object nothing allows it.
					return res, rep.stop(what + " after a retry; returned as is"), nil
				}
				rep.Action, rep.Reason = ActionNone, what+"; returned as is"
				return res, rep, nil
			}
			tf, fromKey = parsed, true
		}

		var wait time.Duration
		var why string
		rep.Throttled = false
		if reissue {
			wait, paid, why = d.reissueWait(ctx, rep, start)
			if why != "" {
				return res, rep.stop("call failed: " + err.Error() + "; not re-issued: " + why), err
			}
			rep.Reissues++
		} else {
			rep.ToolFailure = tf
			if tf.CorrelationID != "" {
				rep.CorrelationIDs = append(rep.CorrelationIDs, tf.CorrelationID)
			}
			wait, paid, why = d.retryWait(ctx, rep, start, fromKey)
			if why != "" {
				if tf.Class == ClassGovernance {
					rep.Action, rep.Reason = ActionAskUser, why
					return res, rep, err
				}
				return res, rep.stop(why), err
			}
		}
		rep.Waits = append(rep.Waits, wait)
		d.cfg.Logger.DebugContext(ctx, "toolfailure: retrying tool call",
			slog.String("tool", params.Name), slog.Int("attempt", rep.Attempts),
			slog.String("code", tf.Code), slog.String("correlationId", tf.CorrelationID),
			slog.Bool("reissue", reissue), slog.Duration("wait", wait))
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			// The retry was paid for and not made: the server saw no
			// load from it, so the tokens go back.
			d.cfg.Budget.refund(paid)
			return res, rep.stop("context ended while waiting to retry"), ctx.Err()
		case <-t.C:
		}
	}
}

func (r *Report) stop(reason string) *Report {
	r.Action, r.Reason = ActionStopped, reason
	return r
}

// parse reads the toolFailure object under the configured key, as Parse
// does under the proposal's.
func (d *Dispatcher) parse(res *mcp.CallToolResult) (ToolFailure, bool, error) {
	v, ok := res.Meta[d.cfg.MetaKey]
	if !ok {
		return ToolFailure{}, false, nil
	}
	tf, err := parseObject(v)
	return tf, true, err
}

// advertised reports whether the server advertised the extension under the
// configured key. Any object counts, whatever its version: the versions of
// the draft are compatible on the wire, and a missing or non-object entry
// is what marks a server that does not implement it. Without an initialize
// result (no handshake) nothing was advertised.
func (d *Dispatcher) advertised() bool {
	ir := d.session.InitializeResult()
	if ir == nil || ir.Capabilities == nil {
		return false
	}
	_, ok := ir.Capabilities.Extensions[d.cfg.MetaKey].(map[string]any)
	return ok
}

// lostResponse reports whether a transport error may have lost the response
// of a call the server received: the case of a response stream that broke
// before the response (the go-sdk's streamable client then ends the call
// with an error of its own rather than re-issuing it, which since protocol
// 2026-07-28 is the client's job). A closed session is not: a re-issue on
// it fails at once, and the caller has to reconnect.
func lostResponse(err error) bool {
	return !errors.Is(err, mcp.ErrConnectionClosed) && !errors.Is(err, mcp.ErrSessionMissing) &&
		!errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// retryWait applies the client rules to the failure in rep. It returns the
// pause before the next attempt and the tokens paid for it, or a non-empty
// reason why there is none. fromKey says that the failure is the server's
// own object rather than this package's mapping of a protocol error.
func (d *Dispatcher) retryWait(ctx context.Context, rep *Report, start time.Time, fromKey bool) (time.Duration, int, string) {
	tf := rep.ToolFailure
	switch {
	case tf.Class == ClassCapability:
		return 0, 0, fmt.Sprintf("capability failure (%s): retrying cannot help", tf.Code)
	case tf.Class == ClassGovernance:
		return 0, 0, fmt.Sprintf("governance failure (%s): a person has to act; never retried automatically", tf.Code)
	case tf.Class != ClassReliability:
		return 0, 0, "unknown class"
	case !tf.Retryable:
		return 0, 0, fmt.Sprintf("reliability failure (%s) not marked retryable", tf.Code)
	case !d.cfg.Trusted:
		return 0, 0, "retryable, but the server is not trusted, so its idempotentHint does not count"
	case fromKey && !rep.Advertised:
		return 0, 0, fmt.Sprintf("retryable, but the server did not advertise the extension (capabilities.extensions[%q]), so its key is not trusted", d.cfg.MetaKey)
	}
	rep.Throttled = throttled(tf)
	initial, ceiling := d.cfg.InitialBackoff, d.cfg.MaxBackoff
	if rep.Throttled {
		initial, ceiling = d.cfg.ThrottleInitialBackoff, d.cfg.ThrottleMaxBackoff
	}
	return d.nextAttempt(ctx, rep, start, initial, ceiling, tf.RetryNotBefore, d.cfg.Budget.cfg.RetryCost, "retryable")
}

// reissueWait decides on re-sending a call whose response the transport
// lost. A re-issue is a retry: the server may have run the call, so the
// same idempotency rules hold, and it is paid for at the timeout cost, as
// the AWS SDKs pay for a retry after a timeout or a dropped connection.
func (d *Dispatcher) reissueWait(ctx context.Context, rep *Report, start time.Time) (time.Duration, int, string) {
	if !d.cfg.Trusted {
		return 0, 0, "the server is not trusted, so its idempotentHint does not count"
	}
	return d.nextAttempt(ctx, rep, start, d.cfg.InitialBackoff, d.cfg.MaxBackoff, time.Time{}, d.cfg.Budget.cfg.TimeoutRetryCost, "re-issuable")
}

// nextAttempt holds what every retry needs: a trusted idempotentHint, an
// attempt left, a start within the time bounds, and tokens in the budget
// (taken last, so that a retry refused for another reason costs nothing).
func (d *Dispatcher) nextAttempt(ctx context.Context, rep *Report, start time.Time, initial, ceiling time.Duration, notBefore time.Time, cost int, what string) (time.Duration, int, string) {
	idem, err := d.idempotent(ctx, rep.Tool)
	rep.Idempotent = idem
	switch {
	case err != nil:
		return 0, 0, what + ", but the tool list could not be read to check idempotentHint: " + err.Error()
	case !idem:
		return 0, 0, what + ", but the tool's idempotentHint is not true"
	case rep.Attempts >= d.cfg.MaxAttempts:
		return 0, 0, fmt.Sprintf("%s, but %d attempts were made, the maximum", what, rep.Attempts)
	}

	now := time.Now()
	wait := min(initial<<(rep.Attempts-1), ceiling)
	if wait <= 0 { // shifted past the int64 range
		wait = ceiling
	}
	if !notBefore.IsZero() {
		wait = max(wait, notBefore.Sub(now))
	}
	if d.cfg.Jitter > 0 {
		wait += time.Duration(rand.Float64() * d.cfg.Jitter * float64(wait))
	}
	next := now.Add(wait)
	if next.After(start.Add(d.cfg.MaxElapsed)) {
		return 0, 0, fmt.Sprintf("%s, but the next attempt (not before %s) falls outside the %s budget",
			what, next.Format(time.RFC3339), d.cfg.MaxElapsed)
	}
	if dl, ok := ctx.Deadline(); ok && next.After(dl) {
		return 0, 0, what + ", but the next attempt falls after the context's deadline"
	}
	if left, ok := d.cfg.Budget.take(cost); !ok {
		return 0, 0, fmt.Sprintf("%s, but the server's retry budget is spent (%d tokens left, the retry costs %d)", what, left, cost)
	}
	return wait, cost, ""
}

// idempotent reports the tool's idempotentHint from the server's tool list,
// read on first need and again whenever a tool is not in it (tools come and
// go, and list-changed notifications are optional). The list is read
// without holding the lock, so one slow listing does not stall calls that
// find their tool in the cache.
func (d *Dispatcher) idempotent(ctx context.Context, tool string) (bool, error) {
	d.mu.Lock()
	t, ok := d.tools[tool]
	d.mu.Unlock()
	if !ok {
		tools := map[string]*mcp.Tool{}
		for t, err := range d.session.Tools(ctx, nil) {
			if err != nil {
				return false, fmt.Errorf("list tools: %w", err)
			}
			tools[t.Name] = t
		}
		d.mu.Lock()
		d.tools = tools
		d.mu.Unlock()
		t = tools[tool]
	}
	return t != nil && t.Annotations != nil && t.Annotations.IdempotentHint, nil
}
