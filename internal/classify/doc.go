// Package classify sorts raw tool errors into the classes and codes of the
// MCP toolFailure proposal, and writes the _meta object that carries them.
//
// An MCP tool that fails returns prose. An agent reading it has to decide,
// every time, whether to retry, change its arguments, or stop and ask the
// user; a wrong guess either loops on a call that can never succeed or
// gives up on one that would have worked a second later. This package makes
// that decision once, in the service, from everything the failing system
// said: status codes, exception types, error bodies and the message.
//
// # The outcome
//
// An Outcome has a Class from a closed set and a Code from an open one:
//
//	capability   capability_unsupported, resource_not_found, invalid_input
//	             the call cannot succeed as made; change it
//	reliability  retryable_transient_error
//	             something outside the caller failed and may recover
//	governance   auth_required, permission_denied, policy_blocked, user_action_required
//	             a person has to act: sign in, grant access, accept a refusal, confirm, pay
//
// Retryable is true only for reliability failures, and only when repeating
// the call is safe: the tool declares itself idempotent or read-only, or
// the error shows the request never took effect (rate limited, connection
// refused, host name not resolved, transaction rolled back). RetryNotBefore
// comes from Retry-After, from retry fields of the error body, or from text
// such as "try again in 20s", capped at MaxRetryDelay. AgentGuidance is
// written from the code alone and never repeats the error text, which can
// hold user data or secrets.
//
// # The baseline rules
//
// Baseline applies an ordered pack of small named rules; the first that
// recognises the error decides and its ID becomes Outcome.RuleID.
// BaselineRules lists them and Explain shows which matched. The order is the
// trust order between signals: explicit vendor shapes (a structuredContent
// reason code, JSON-RPC error data, Slack's ok:false), then specific vendor
// error codes (which overrule status codes, because AWS throttles with HTTP
// 400 and OpenAI reports an empty billing balance as 429), then HTTP, gRPC
// and JSON-RPC status codes (ambiguous ones such as 400, 403 and UNKNOWN
// refined by the message), then database codes, errno names, exception
// types, the message on its own, and last the generic I/O exception types.
// Status codes missing from the request are recovered from OpenTelemetry
// attributes, the error body and common message shapes ("Request failed
// with status code 502", "rpc error: code = Unavailable").
//
// The rules name no particular tool, server or message. They encode how
// widely used APIs, databases and runtimes report failures, so that they
// hold for errors never seen before. When nothing matches, Default applies;
// its documentation explains the choice.
//
// The package does no I/O and keeps no state; every function is safe for
// concurrent use and deterministic for a given input and time.
package classify
