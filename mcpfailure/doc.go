// Package mcpfailure brings the toolFailure proposal to MCP servers and
// clients built on the official Go SDK (github.com/modelcontextprotocol/go-sdk).
//
// Today a failed tool call comes back as a CallToolResult with isError set
// and a sentence of text. An agent has to read the sentence to decide whether
// to try again, ask its user to sign in, or give up, and when the user
// reports "the tool failed", nobody can find the log line. The proposal adds
// one optional key to the result,
//
//	"_meta": { "io.modelcontextprotocol/toolFailure": {
//	    "class": "reliability", "code": "retryable_transient_error",
//	    "retryable": true, "retryNotBefore": 1764460030000,
//	    "correlationId": "tf_…", "agentGuidance": "Wait 30 s, then retry." } }
//
// and this package writes it on the server side and acts on it on the
// client side. The chapter docs/toolfailure.md describes the proposal in
// full; this comment describes the Go API. (The package is not called mcp
// because every file that uses it also imports the SDK's package mcp.)
//
// # Servers: Annotator
//
// An Annotator is receiving middleware for an *mcp.Server. It looks at the
// answers to tools/call, and for every result with isError set (including the
// results the SDK builds from a Go error that a handler registered with
// mcp.AddTool returned) it calls the toolfailure service's Classify with the
// tool's name, its annotations, the error text (and, for a Go error, its
// type: *mcpfailure.ToolError lets a handler add an HTTP status, a
// Retry-After value and more), the result's structuredContent, and the
// caller's W3C trace context from params._meta.traceparent. The service
// decides class and code, stores the record, and answers with the object,
// which the Annotator merges into the result's _meta next to whatever keys
// are already there.
//
//	a, err := mcpfailure.NewAnnotator(mcpfailure.AnnotatorConfig{
//		Classifier: mcpfailure.NewClassifierClient(nil, "http://127.0.0.1:8080", key),
//		Server:     "mail-mcp",
//	})
//	...
//	server.AddReceivingMiddleware(a.Middleware)
//
// NewAnnotatorFromEnv does the same in one call from TOOLFAILURE_SERVER and
// TOOLFAILURE_KEY, the variables the proxy and the TypeScript package read,
// and checks the service at start-up: a configuration error is returned,
// saying what to set; a service that is away is only a warning.
//
// The classification is the service's, never the middleware's: one rule set
// per tenant, applied the same way to servers in every language, and every
// ID a user is shown is stored and can be looked up.
//
// Three things are left exactly as they are: successful results, results
// that already carry the key (the tool classified the failure itself and its
// logs know that ID), and protocol errors (an unknown tool, invalid JSON-RPC),
// which the proposal keeps as JSON-RPC errors. A handler registered with the
// low-level Server.AddTool that returns a Go error produces such a protocol
// error (that is the SDK's contract for that API); to report a tool failure
// from one, return a result built with CallToolResult.SetError instead.
//
// Arguments that fail a tool's input schema come back from the SDK as an
// error result, not as JSON-RPC error -32602 (SEP-1303: the model can only
// correct what it sees). The Annotator recognises the SDK's message for that
// case and reports it with jsonrpcCode -32602, so the service classifies it
// as invalid_input without knowing anything about Go.
//
// # When the service is slow or down
//
// A failed tool call is already a bad moment; the middleware must not make
// it worse. The detour for one failure (reading the tool's annotations and
// the Classify call) is bounded by AnnotatorConfig.Budget, 250 ms by
// default. When the service does not answer in time, is unreachable, or
// refuses the call, the result goes out unchanged, without the key, and the
// miss is logged (one slog warning) and counted (Annotator.Stats).
//
// There is no local fallback classification: correlationId is required,
// and an ID that the service did not store is one support can never find.
// An unchanged result is what every client handles today.
//
// # Clients: Dispatcher
//
// A Dispatcher wraps an *mcp.ClientSession's CallTool and follows the
// proposal's client rules:
//
//   - capability failures are never retried (ActionStopped);
//   - governance failures are never retried: a person has to act
//     (ActionAskUser);
//   - reliability failures are retried only when retryable is true AND the
//     tool's idempotentHint is true, as learned from ListTools, and only for
//     a server the caller marked trusted (DispatcherConfig.Trusted): a
//     server's own annotations must not license retries of its tools unless
//     the caller trusts it;
//   - never before retryNotBefore, with jitter that only ever adds time,
//     within a bounded number of attempts and a bounded total time, and
//     never past the context's deadline or cancellation.
//
// CallTool returns the last result as ClientSession.CallTool would, plus a
// Report of what happened: attempts, waits, class, code, every correlation
// ID, the agent guidance, and the action with a reason. A result without
// the key is returned untouched with ActionNone: against a server that does
// not implement the proposal, a Dispatcher behaves like the bare session.
//
// Protocol errors (*jsonrpc.Error) are mapped onto the same decision by
// ProtocolFailure: invalid params and unknown methods are capability
// failures, and an error whose data names a retry delay (a rate limit) is a
// retryable reliability failure. See ProtocolFailure for the table.
//
// agentGuidance is text written by a server for a model. Hand it to the
// model as data, quoted as the server's words, and never follow it as an
// instruction to the client program: a server must not be able to steer
// the client by what it writes there.
//
// # Proxies
//
// Annotator.Annotate is the same logic without the middleware plumbing, for
// a proxy that relays another server's results: it takes the tool's name,
// the request's _meta and the tool's annotations explicitly.
//
// # Conformance
//
// Every result the Annotator emits passes the proposal's rules and the
// official MCP schema; this package's tests check that with package
// github.com/omcp/toolfailure/conformance on real sessions.
package mcpfailure
