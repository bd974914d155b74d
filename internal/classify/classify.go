package classify

import (
	"fmt"
	"time"

	"github.com/omcp/toolfailure/internal/class"
)

// Class is the closed set of failure classes of the toolFailure proposal (package class).
type Class = class.Class

// The three classes.
const (
	Capability  = class.Capability
	Reliability = class.Reliability
	Governance  = class.Governance
)

// Baseline codes. Servers may add codes of their own; clients treat an
// unknown code as a log detail and act on the class.
const (
	CodeCapabilityUnsupported = "capability_unsupported"
	CodeResourceNotFound      = "resource_not_found"
	CodeInvalidInput          = "invalid_input"
	CodeRetryableTransient    = "retryable_transient_error"
	CodeAuthRequired          = "auth_required"
	CodePermissionDenied      = "permission_denied"
	CodePolicyBlocked         = "policy_blocked"
	CodeUserActionRequired    = "user_action_required"
	// CodeInternalError is the code this service adds (the proposal lets
	// servers add codes): an unhandled programming error in the tool's own
	// code. The same call fails the same way, so it is never retryable.
	CodeInternalError = "internal_error"
)

// BaselineCodes maps every baseline code to its class.
func BaselineCodes() map[string]Class {
	return map[string]Class{
		CodeCapabilityUnsupported: Capability,
		CodeResourceNotFound:      Capability,
		CodeInvalidInput:          Capability,
		CodeInternalError:         Capability,
		CodeRetryableTransient:    Reliability,
		CodeAuthRequired:          Governance,
		CodePermissionDenied:      Governance,
		CodePolicyBlocked:         Governance,
		CodeUserActionRequired:    Governance,
	}
}

// MetaKey is the _meta key under which a CallToolResult carries the outcome.
const MetaKey = "io.modelcontextprotocol/toolFailure"

// Input is a raw tool failure as an MCP server reports it.
type Input struct {
	Tool, Server string
	Error        RawError
	Annotations  Annotations
}

// RawError holds whatever the failing system said. Every field is optional;
// the more of them are given, the better the classification.
type RawError struct {
	Message string
	// Type is an exception class, error type or errno name, e.g.
	// "requests.exceptions.ConnectionError", "*url.Error", "ECONNRESET".
	Type string
	// Status codes; nil means not given (0 is a real gRPC code).
	HTTPStatus, GRPCCode, JSONRPCCode *int32
	// RetryAfter is the raw Retry-After header: delta-seconds or an HTTP-date.
	RetryAfter string
	// Details is decoded JSON (map[string]any, []any, string, float64, bool
	// or nil): a provider's error body, JSON-RPC error data, structuredContent.
	Details any
	// Attributes are OpenTelemetry-style attributes, such as
	// "db.response.status_code" (a SQLSTATE for PostgreSQL) or "error.type".
	Attributes map[string]string
}

// Annotations are the MCP tool annotations of the failing tool. They come
// from the tool's server and only inform retryability.
type Annotations struct {
	IdempotentHint, ReadOnlyHint, DestructiveHint, OpenWorldHint *bool
}

// Outcome is a classification.
type Outcome struct {
	Class Class
	Code  string
	// Retryable is only ever true for Reliability.
	Retryable bool
	// RetryNotBefore is zero unless Retryable and the error said when.
	RetryNotBefore time.Time
	// AgentGuidance is one or two short sentences for the calling model. It
	// never quotes the raw error, which may hold user data or secrets.
	AgentGuidance string
	// RuleID names the rule that decided, e.g. "baseline/http-status".
	RuleID string
	// RetryEvidence names what showed the failure to be transient when a
	// reliability outcome is retryable (a rule, "retry-time" or the text
	// model); empty otherwise. Explain reports it; it is not part of _meta.
	RetryEvidence string
}

// Validate checks the invariants the proposal puts on an outcome.
func (o Outcome) Validate() error {
	switch {
	case !o.Class.Valid():
		return fmt.Errorf("classify: class %q is not capability, reliability or governance", o.Class)
	case o.Code == "":
		return fmt.Errorf("classify: empty code")
	case o.Retryable && o.Class != Reliability:
		return fmt.Errorf("classify: class %s cannot be retryable", o.Class)
	case !o.RetryNotBefore.IsZero() && !o.Retryable:
		return fmt.Errorf("classify: retryNotBefore set on a non-retryable outcome")
	case len(o.AgentGuidance) >= 500:
		return fmt.Errorf("classify: agent guidance is %d bytes, want under 500", len(o.AgentGuidance))
	}
	return nil
}

// Meta returns the JSON object to store under _meta[MetaKey] of a
// CallToolResult (the value, not a map holding MetaKey). It has exactly the
// keys the proposal allows: class, code, retryable (reliability only),
// retryNotBefore (epoch milliseconds, only when retryable and known),
// correlationId and agentGuidance (when not empty). Numbers are int64 so
// that encoders write them as JSON integers.
func (o Outcome) Meta(correlationID string) map[string]any {
	m := map[string]any{
		"class":         string(o.Class),
		"code":          o.Code,
		"correlationId": correlationID,
	}
	if o.Class == Reliability {
		m["retryable"] = o.Retryable
		if o.Retryable && !o.RetryNotBefore.IsZero() {
			m["retryNotBefore"] = o.RetryNotBefore.UnixMilli()
		}
	}
	if o.AgentGuidance != "" {
		m["agentGuidance"] = o.AgentGuidance
	}
	return m
}

// DefaultRuleID is the RuleID of Default.
const DefaultRuleID = "baseline/default"

// Default is the outcome when no rule matches: reliability /
// retryable_transient_error, not retryable.
//
// Why reliability: an error that says nothing recognisable is most often an
// unexpected fault in the tool or a service behind it (a crash, a bug, a
// garbled upstream reply), not a sign that the caller's arguments are wrong
// or that a person must act. Calling it capability would push the agent to
// rewrite arguments that were fine; calling it governance would bother the
// user for nothing.
//
// Why not retryable: nothing shows the call had no effect, so repeating a
// call with side effects could do the work twice. The guidance asks the
// agent to check first. Baseline marks the same outcome retryable when the
// tool declares itself idempotent or read-only, because repeating such a
// call is harmless by the tool's own account.
func Default(now time.Time) Outcome {
	_ = now // the default does not depend on time; the parameter keeps it symmetric with Baseline
	k := kindTable[kUnknown]
	return Outcome{
		Class:         k.class,
		Code:          k.code,
		AgentGuidance: guidance(kUnknown, false, 0),
		RuleID:        DefaultRuleID,
	}
}
