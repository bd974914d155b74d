package mcpfailure

import (
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// ProtocolFailure maps a JSON-RPC error from tools/call to the failure a
// client should act on, so that one set of rules covers both kinds of
// error. Protocol errors carry no toolFailure object (the proposal keeps
// them JSON-RPC errors), so the mapping is this package's, and it is
// deliberately small:
//
//	-32700 parse error, -32600 invalid request,
//	-32601 method not found               → capability / capability_unsupported
//	-32602 invalid params, "unknown tool…" → capability / capability_unsupported
//	-32602 invalid params, otherwise      → capability / invalid_input
//	any code whose data names a retry
//	delay (a rate limit, an overload)     → reliability / retryable_transient_error,
//	                                        retryable, retryNotBefore = now + delay
//
// The retry delay is read from data.retryAfter (seconds, as a number or a
// string, or an HTTP-date, as in a Retry-After header), data.retryAfterMs,
// data.retry_after (seconds), or data.retryNotBefore (epoch milliseconds, as
// in the proposal). Any other error is not mapped (ok is false): guessing
// would turn an unknown server fault into a retry. The mapped failure has
// no CorrelationID, since nothing was recorded.
//
// A mapped reliability failure is retried under the same rules as a tool
// result: retryable AND a trusted idempotentHint. A rate-limited call most
// likely did not run, but a JSON-RPC error does not prove it (a relay may
// have timed out after forwarding the call), so no exception is made.
func ProtocolFailure(err *jsonrpc.Error, now time.Time) (tf ToolFailure, ok bool) {
	if err == nil {
		return ToolFailure{}, false
	}
	if delay, ok := retryDelay(err.Data, now); ok {
		return ToolFailure{
			Class:          ClassReliability,
			Code:           CodeRetryableTransientError,
			Retryable:      true,
			RetryNotBefore: now.Add(delay),
			AgentGuidance:  "The server is rate limiting or overloaded; wait before calling again.",
		}, true
	}
	switch err.Code {
	case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeMethodNotFound:
		return ToolFailure{Class: ClassCapability, Code: CodeCapabilityUnsupported,
			AgentGuidance: "The server does not support this call."}, true
	case jsonrpc.CodeInvalidParams:
		if strings.HasPrefix(strings.ToLower(err.Message), "unknown tool") {
			return ToolFailure{Class: ClassCapability, Code: CodeCapabilityUnsupported,
				AgentGuidance: "This server has no such tool; list the tools and pick another."}, true
		}
		return ToolFailure{Class: ClassCapability, Code: CodeInvalidInput,
			AgentGuidance: "The arguments were rejected; fix them before calling again."}, true
	}
	return ToolFailure{}, false
}

// maxRetryDelay bounds every retry hint: a longer one is no hint at all.
// Without the bound a huge value overflows time.Duration and turns into a
// delay in the past, that is, an immediate retry against a server that
// asked for the opposite.
const maxRetryDelay = 365 * 24 * time.Hour

// retryDelay finds a retry hint in JSON-RPC error data. Delays are clamped
// at zero: a hint in the past means "now", not an error.
func retryDelay(data json.RawMessage, now time.Time) (time.Duration, bool) {
	if len(data) == 0 {
		return 0, false
	}
	var obj map[string]any
	if json.Unmarshal(data, &obj) != nil {
		return 0, false
	}
	seconds := func(v any) (time.Duration, bool) {
		switch x := v.(type) {
		case float64:
			if x < 0 || math.IsInf(x, 0) || x > maxRetryDelay.Seconds() {
				return 0, false
			}
			return time.Duration(x * float64(time.Second)), true
		case string:
			if n, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
				if math.IsNaN(n) || math.IsInf(n, 0) || n > maxRetryDelay.Seconds() {
					return 0, false
				}
				return time.Duration(max(n, 0) * float64(time.Second)), true
			}
			if t, err := http.ParseTime(x); err == nil {
				return max(t.Sub(now), 0), true
			}
		}
		return 0, false
	}
	if d, ok := seconds(obj["retryAfter"]); ok {
		return d, true
	}
	if ms, ok := obj["retryAfterMs"].(float64); ok && ms >= 0 && ms <= float64(maxRetryDelay.Milliseconds()) {
		return time.Duration(ms) * time.Millisecond, true
	}
	if d, ok := seconds(obj["retry_after"]); ok {
		return d, true
	}
	if ms, ok := obj["retryNotBefore"].(float64); ok && ms >= 0 && ms <= float64(now.Add(maxRetryDelay).UnixMilli()) {
		return max(time.UnixMilli(int64(ms)).Sub(now), 0), true
	}
	return 0, false
}
