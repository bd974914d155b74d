package conformance

import (
	"fmt"
	"slices"
)

// Rule describes one check the package applies. Rule IDs are stable: tools
// and CI configurations match on them, so an ID is never renamed or reused
// for a different check once released.
type Rule struct {
	// ID is the stable identifier reported in Violation.Rule.
	ID string
	// Severity is the severity every violation of this rule carries.
	Severity Severity
	// Summary says in one sentence what the rule requires.
	Summary string
}

// Rule IDs. They are unexported constants because callers compare against
// the strings (which Rules lists); the constants only keep this package
// from misspelling its own IDs.
const (
	// Document shape: what a checked file may be.
	ruleDocumentNotObject    = "document-not-object"
	ruleJSONRPCErrorResponse = "jsonrpc-error-response"
	ruleKeyOnProtocolError   = "key-on-protocol-error"
	ruleJSONRPCNotResponse   = "jsonrpc-not-response"
	ruleJSONRPCEnvelope      = "jsonrpc-envelope"
	ruleDuplicateKey         = "duplicate-key"

	// The CallToolResult and where the key sits in it.
	ruleMCPSchema         = "mcp-schema"
	ruleResultTypeMissing = "result-type-missing"
	ruleKeyOnNonError     = "key-on-non-error"
	ruleKeyMissingOnError = "key-missing-on-error"
	ruleKeyMisplaced      = "key-misplaced"
	ruleErrorContentText  = "error-content-text"

	// The toolFailure object.
	ruleToolFailureType           = "toolfailure-type"
	ruleToolFailureSchema         = "toolfailure-schema"
	ruleUnknownKey                = "unknown-key"
	ruleClassMissing              = "class-missing"
	ruleClassUnknown              = "class-unknown"
	ruleCodeMissing               = "code-missing"
	ruleCodeType                  = "code-type"
	ruleCodeEmpty                 = "code-empty"
	ruleCodeClassMismatch         = "code-class-mismatch"
	ruleRetryableType             = "retryable-type"
	ruleRetryableOnlyReliability  = "retryable-only-reliability"
	ruleRetryNotBeforeNeedsRetry  = "retry-not-before-requires-retryable"
	ruleRetryNotBeforeType        = "retry-not-before-type"
	ruleRetryNotBeforeInteger     = "retry-not-before-integer"
	ruleRetryNotBeforeLiteral     = "retry-not-before-literal"
	ruleRetryNotBeforePast        = "retry-not-before-past"
	ruleRetryNotBeforeFarFuture   = "retry-not-before-far-future"
	ruleCorrelationIDMissing      = "correlation-id-missing"
	ruleCorrelationIDType         = "correlation-id-type"
	ruleCorrelationIDPrefix       = "correlation-id-prefix"
	ruleCorrelationIDLength       = "correlation-id-length"
	ruleCorrelationIDCharset      = "correlation-id-charset"
	ruleAgentGuidanceType         = "agent-guidance-type"
	ruleAgentGuidanceLength       = "agent-guidance-length"
	ruleAgentGuidanceSecret       = "agent-guidance-secret"
	ruleAgentGuidanceInstructions = "agent-guidance-injection"
)

// catalog is the single source of truth for rule severities: violations are
// built through newViolation, which looks the severity up here, so a rule
// cannot be reported as MUST in one place and SHOULD in another.
var catalog = []Rule{
	{ruleDocumentNotObject, SeverityMust, "The document, and a JSON-RPC response's result, must be a JSON object."},
	{ruleJSONRPCErrorResponse, SeverityMust, "A JSON-RPC error response is a protocol error, not a CallToolResult; tool failures are reported inside a CallToolResult with isError: true."},
	{ruleKeyOnProtocolError, SeverityMust, "The toolFailure key belongs to CallToolResult, never to a JSON-RPC error's data."},
	{ruleJSONRPCNotResponse, SeverityMust, "A JSON-RPC request or notification is not a tool result."},
	{ruleJSONRPCEnvelope, SeverityMust, "A JSON-RPC response must match the MCP schema's JSONRPCResultResponse (jsonrpc \"2.0\", an id, exactly one of result and error)."},
	{ruleDuplicateKey, SeverityShould, "Object member names should be unique (RFC 8259 §4): parsers disagree on which duplicate wins."},
	{ruleMCPSchema, SeverityMust, "The result must validate against the official MCP schema's $defs/CallToolResult."},
	{ruleResultTypeMissing, SeverityMust, "resultType is required of every result sent under MCP 2026-07-28 or later (checked when the protocol version is given); earlier versions do not have it."},
	{ruleKeyOnNonError, SeverityMust, "The toolFailure key appears only on results with isError: true."},
	{ruleKeyMissingOnError, SeverityShould, "An error result should carry the toolFailure key so that clients can act on it without parsing prose."},
	{ruleKeyMisplaced, SeverityShould, "The toolFailure object belongs at _meta[\"io.modelcontextprotocol/toolFailure\"], spelled exactly so."},
	{ruleErrorContentText, SeverityShould, "An error result should still explain the failure in text content, for clients that do not know the key."},
	{ruleToolFailureType, SeverityMust, "The toolFailure value must be a JSON object."},
	{ruleToolFailureSchema, SeverityMust, "The toolFailure object must validate against the shipped toolFailure JSON Schema."},
	{ruleUnknownKey, SeverityMust, "The toolFailure object has no keys other than class, code, retryable, retryNotBefore, correlationId and agentGuidance."},
	{ruleClassMissing, SeverityMust, "class is required."},
	{ruleClassUnknown, SeverityMust, "class is one of capability, reliability, governance (a closed set)."},
	{ruleCodeMissing, SeverityMust, "code is required."},
	{ruleCodeType, SeverityMust, "code is a string."},
	{ruleCodeEmpty, SeverityMust, "code is not empty."},
	{ruleCodeClassMismatch, SeverityShould, "A baseline code is used with the class the baseline vocabulary gives it."},
	{ruleRetryableType, SeverityMust, "retryable is a boolean."},
	{ruleRetryableOnlyReliability, SeverityMust, "retryable may be true only for class reliability."},
	{ruleRetryNotBeforeNeedsRetry, SeverityMust, "retryNotBefore appears only when retryable is true."},
	{ruleRetryNotBeforeType, SeverityMust, "retryNotBefore is a JSON number (Unix epoch milliseconds), not a string or another type."},
	{ruleRetryNotBeforeInteger, SeverityMust, "retryNotBefore is a whole number of milliseconds."},
	{ruleRetryNotBeforeLiteral, SeverityShould, "retryNotBefore should be written as an integer literal, without a fraction or exponent."},
	{ruleRetryNotBeforePast, SeverityShould, "retryNotBefore should not lie more than 24 hours in the past."},
	{ruleRetryNotBeforeFarFuture, SeverityShould, "retryNotBefore should not lie more than 24 hours in the future."},
	{ruleCorrelationIDMissing, SeverityMust, "correlationId is required."},
	{ruleCorrelationIDType, SeverityMust, "correlationId is a string."},
	{ruleCorrelationIDPrefix, SeverityMust, "correlationId starts with tf_."},
	{ruleCorrelationIDLength, SeverityMust, "correlationId is at most 64 characters."},
	{ruleCorrelationIDCharset, SeverityShould, "correlationId uses only characters that survive logs, URLs, shells and support tickets unchanged."},
	{ruleAgentGuidanceType, SeverityMust, "agentGuidance is a string."},
	{ruleAgentGuidanceLength, SeverityMust, "agentGuidance is under 500 characters."},
	{ruleAgentGuidanceSecret, SeverityShould, "agentGuidance should not contain anything that looks like a credential."},
	{ruleAgentGuidanceInstructions, SeverityShould, "agentGuidance should not try to override the calling model's instructions or hide things from the user."},
}

var severityOf = func() map[string]Severity {
	m := make(map[string]Severity, len(catalog))
	for _, r := range catalog {
		if _, dup := m[r.ID]; dup {
			panic("conformance: rule " + r.ID + " listed twice")
		}
		m[r.ID] = r.Severity
	}
	return m
}()

// Rules returns every rule the package checks, in the order a document is
// checked: document shape, the CallToolResult, then the toolFailure object.
// Documentation and tools use it to list the rules; the slice is a copy.
func Rules() []Rule {
	return slices.Clone(catalog)
}

// newViolation builds a violation of a catalogued rule. An unknown rule ID is
// a bug in this package, so it panics rather than report a rule nobody can
// look up.
func newViolation(path, rule, format string, args ...any) Violation {
	sev, ok := severityOf[rule]
	if !ok {
		panic("conformance: violation of uncatalogued rule " + rule)
	}
	return Violation{Path: path, Rule: rule, Severity: sev, Message: fmt.Sprintf(format, args...)}
}
