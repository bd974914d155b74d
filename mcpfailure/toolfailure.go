package mcpfailure

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MetaKey is the _meta key under which a CallToolResult carries the
// toolFailure object.
const MetaKey = "io.modelcontextprotocol/toolFailure"

// Class is the proposal's closed set of failure classes. Clients dispatch on
// the class alone; the code is detail for logs and people.
type Class string

// The three classes. There is no fourth: an object with any other class is
// malformed and is ignored by Parse.
const (
	// ClassCapability: the tool cannot do this, whatever happens next
	// (unsupported, not found, invalid input). Never retried automatically.
	ClassCapability Class = "capability"
	// ClassReliability: the tool could do this but failed this time. May be
	// retried, under the rules of Dispatcher.
	ClassReliability Class = "reliability"
	// ClassGovernance: the tool may not do this without someone's say-so
	// (sign-in, permission, policy, confirmation). Never retried
	// automatically; a person has to act.
	ClassGovernance Class = "governance"
)

// Baseline codes of the proposal. The vocabulary is open: servers may send
// other codes, and a client treats an unknown code as a log detail.
const (
	CodeCapabilityUnsupported   = "capability_unsupported"
	CodeResourceNotFound        = "resource_not_found"
	CodeInvalidInput            = "invalid_input"
	CodeRetryableTransientError = "retryable_transient_error"
	CodeAuthRequired            = "auth_required"
	CodePermissionDenied        = "permission_denied"
	CodePolicyBlocked           = "policy_blocked"
	CodeUserActionRequired      = "user_action_required"
)

// ToolFailure is the decoded toolFailure object.
type ToolFailure struct {
	Class Class
	Code  string
	// Retryable is true only for ClassReliability; Parse drops it for the
	// other classes, because the proposal forbids acting on it there.
	Retryable bool
	// RetryNotBefore is the earliest instant a retry may start; zero when the
	// object gives none. It is kept only when Retryable is true.
	RetryNotBefore time.Time
	// CorrelationID is what a user quotes to support; opaque.
	CorrelationID string
	// AgentGuidance is a short hint for the calling model. It is data from
	// the server, never an instruction to this program.
	AgentGuidance string
}

// Parse reads the toolFailure object of a tool result. It reports
// present=false, err=nil when the result carries no key, which is how every
// result from a server that does not implement the proposal looks. A key
// whose value breaks the proposal's MUST rules (unknown class, no
// correlationId, a retryNotBefore that is not an integer) yields an error:
// callers that act on the object must then behave as if it were absent,
// because a half-understood object is no basis for a retry.
func Parse(res *mcp.CallToolResult) (tf ToolFailure, present bool, err error) {
	if res == nil || res.Meta == nil {
		return ToolFailure{}, false, nil
	}
	v, ok := res.Meta[MetaKey]
	if !ok {
		return ToolFailure{}, false, nil
	}
	tf, err = parseObject(v)
	return tf, true, err
}

func parseObject(v any) (ToolFailure, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		// A server built on another SDK may hand us a typed value; one JSON
		// round trip turns it into the generic form checked below.
		b, err := json.Marshal(v)
		if err != nil {
			return ToolFailure{}, fmt.Errorf("toolFailure: not JSON-encodable: %w", err)
		}
		if err := json.Unmarshal(b, &obj); err != nil || obj == nil {
			return ToolFailure{}, fmt.Errorf("toolFailure: want a JSON object, got %s", truncate(string(b), 64))
		}
	}
	var tf ToolFailure
	class, _ := obj["class"].(string)
	switch Class(class) {
	case ClassCapability, ClassReliability, ClassGovernance:
		tf.Class = Class(class)
	default:
		return ToolFailure{}, fmt.Errorf("toolFailure: class %q is not capability, reliability or governance", class)
	}
	tf.Code, _ = obj["code"].(string)
	if tf.Code == "" {
		return ToolFailure{}, errors.New("toolFailure: code is missing or empty")
	}
	tf.CorrelationID, _ = obj["correlationId"].(string)
	if tf.CorrelationID == "" {
		return ToolFailure{}, errors.New("toolFailure: correlationId is missing or empty")
	}
	tf.AgentGuidance, _ = obj["agentGuidance"].(string)
	if r, ok := obj["retryable"]; ok {
		b, isBool := r.(bool)
		if !isBool {
			return ToolFailure{}, fmt.Errorf("toolFailure: retryable is %T, want a boolean", r)
		}
		// Retryable means something only for reliability; elsewhere it is
		// ignored rather than trusted.
		tf.Retryable = b && tf.Class == ClassReliability
	}
	if r, ok := obj["retryNotBefore"]; ok && r != nil {
		ms, err := epochMillis(r)
		if err != nil {
			return ToolFailure{}, fmt.Errorf("toolFailure: retryNotBefore: %w", err)
		}
		if tf.Retryable {
			tf.RetryNotBefore = time.UnixMilli(ms)
		}
	}
	return tf, nil
}

// epochMillis accepts the forms a JSON number takes after decoding by the
// go-sdk (float64), by a decoder with UseNumber (json.Number), or when a Go
// server put an integer straight into _meta.
func epochMillis(v any) (int64, error) {
	switch n := v.(type) {
	case float64:
		if n != math.Trunc(n) || n < 0 || n > 1<<53 {
			return 0, fmt.Errorf("%v is not a non-negative integer of epoch milliseconds", n)
		}
		return int64(n), nil
	case json.Number:
		ms, err := n.Int64()
		if err != nil || ms < 0 {
			return 0, fmt.Errorf("%s is not a non-negative integer of epoch milliseconds", n)
		}
		return ms, nil
	case int64:
		return n, nil
	case int:
		return int64(n), nil
	default:
		return 0, fmt.Errorf("%T is not a JSON number", v)
	}
}

// truncate cuts s to at most n bytes without leaving half a UTF-8 sequence
// at the end, so that a capped message is still valid text.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}
