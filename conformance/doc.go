// Package conformance checks documents against the toolFailure proposal for
// the Model Context Protocol (MCP) and against the official MCP schema.
//
// Today an MCP server reports a failed tool call as a CallToolResult with
// isError: true and some text, and every client parses that text to guess
// whether to retry, ask the user to sign in, or give up. The toolFailure
// proposal (an MCP SEP) adds one optional key to such a result,
//
//	"_meta": { "io.modelcontextprotocol/toolFailure": {
//	    "class": "reliability", "code": "retryable_transient_error",
//	    "retryable": true, "retryNotBefore": 1796005150554,
//	    "correlationId": "tf_01M8N3YJHAFJPBR162ETPFRX5AD",
//	    "agentGuidance": "Wait 30 seconds, then retry the same call once." } }
//
// so that the decision is made on data. The proposal is only useful if every
// server writes the object the same way, and that is what this package is
// for: servers, proxies and client libraries run their output through it in
// tests, and the toolfailure conform command runs it on files.
//
// # What is checked
//
// CheckResult takes a raw document, either a CallToolResult or a JSON-RPC
// 2.0 response whose result is one, and checks three layers:
//
//   - The document is what it claims to be. A JSON-RPC error response is a
//     protocol error, which the proposal leaves exactly as it is; it is
//     reported as not being a tool result rather than checked as one.
//   - The result validates against $defs/CallToolResult of the official MCP
//     schema (version MCPSchemaVersion, JSON Schema draft 2020-12), shipped
//     inside the package. A missing content array, or a content block of a
//     type MCP does not define, fails here.
//   - The toolFailure key sits where the proposal puts it, only on error
//     results, and the object obeys the proposal: see CheckToolFailure.
//
// CheckToolFailure checks the object alone: class in the closed set
// capability, reliability, governance; a non-empty code; retryable true only
// for reliability; retryNotBefore an integer of epoch milliseconds and only
// beside retryable: true; a correlationId that starts with tf_ and has at most
// 64 characters; agentGuidance under 500 characters; and no other keys.
//
// Every finding is a Violation with a JSON Pointer, a stable rule ID and a
// message that says what to change. Rules lists every rule.
//
// # MUST and SHOULD
//
// A MUST violation means a client that implements the proposal may do the
// wrong thing: retry a call it must not, or fail to parse the object. A
// SHOULD finding means the document works but something is likely wrong: a
// retry time a day or more away (often seconds sent as milliseconds),
// guidance that looks like it carries a credential or tries to override the
// calling model's instructions, a correlation ID with characters that get
// mangled in chat and URLs, an error result without the key at all.
// Conforms reports whether a document has no MUST violation; the conform
// command fails only on MUST findings unless run with --strict.
//
// Some SHOULD rules are judgements made with heuristics (the secret and
// instruction patterns) and some depend on the clock (retryNotBefore within
// 24 hours of now). A Checker with its Now field set checks a captured
// document as of the moment it was captured.
//
// # One rule set, two forms
//
// Schema returns a JSON Schema (draft 2020-12) of the toolFailure object
// that states every MUST rule, the conditional ones included, for users of
// other languages. CheckToolFailure applies hand-written rules, because a
// schema validator's "value must be 'reliability'" does not tell anyone that
// a governance failure must never be retried. The package runs both: the
// schema validates every object whose hand-written check found no MUST
// violation, and should it still object, that is reported under rule
// toolfailure-schema instead of being lost. The tests run every example and
// every counter-example through both and require them to agree.
//
// # What is deliberately not checked
//
// The correlation ID is opaque under the proposal. This project issues IDs
// of a precise form (tf_, 26 Crockford base32 characters of a UUIDv7 and a
// check character), but other implementations may issue any ID that starts
// with tf_, so the checker enforces only the prefix, the length and, as
// advice, a safe character set. The code vocabulary is open too: an unknown
// code is fine, and only a baseline code in the wrong class is flagged.
// String formats in the MCP schema (uri, byte) are annotations in draft
// 2020-12 and are not asserted, as the MCP schema intends.
package conformance
