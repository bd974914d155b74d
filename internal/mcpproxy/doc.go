// Package mcpproxy puts an existing MCP server, in any language, behind a
// relay that adds the toolFailure key of the proposal to its failed tool
// results. It is the core of "toolfailure proxy":
//
//	toolfailure proxy -- node server.js              # a child over stdio, served on stdio
//	toolfailure proxy --upstream http://host/mcp     # a streamable HTTP server, served on stdio
//	toolfailure proxy --listen 127.0.0.1:3001 -- …   # either, served over streamable HTTP
//
// Most MCP servers will not change their code to adopt the proposal before
// their clients ask for it. A proxy in front of an unmodified server breaks
// that deadlock: the server keeps answering isError results with a sentence
// of text, and the client sees the same result with one more _meta key,
// issued and stored by the toolfailure service, whose correlation ID a
// support engineer can look up.
//
// # What it relays, and what it reads
//
// The proxy relays JSON-RPC messages, over the SDK's transports and its
// jsonrpc package (mcp.Connection reads and writes jsonrpc.Message values,
// whose params and results stay json.RawMessage), and keeps one session
// between the client and the upstream: the handshake, every request and
// notification in both directions, and their IDs pass through untouched,
// whatever protocol version the two speak. It looks at only five kinds of
// message:
//
//   - answers to initialize (and server/discover), for the upstream's name
//     (the label failures are reported under, unless --label says
//     otherwise); the proxy adds the extension to their capabilities
//     (capabilities.extensions[Config.MetaKey] = {"version": …}, SEP-2133),
//     splicing it into the upstream's bytes;
//   - answers to tools/list, for the tools' annotations (idempotentHint and
//     the others), which the service weighs when it decides retryability;
//     notifications/tools/list_changed forgets them;
//   - answers to tools/call: a result with isError set goes to the service
//     (see below); a JSON-RPC error is recorded with the service too, and
//     passed on with error.data.correlationId added (code, message and the
//     other members of data as they came), so that the user has an ID to
//     quote; a POST's Mcp-Name header (2026-07-28) names the tool without
//     the body being decoded for it;
//   - notifications/cancelled from the client, so that the echo of a
//     cancellation is not recorded as a tool failure;
//   - tasks (task.go): a tools/call answered with a task handle is
//     remembered, with its tool and trace context, and the failed result
//     the task ends with (the answer to tasks/result, 2025-11-25; the
//     completed task's result in tasks/get and notifications/tasks,
//     2026-07-28) gets the key as a direct result would, the task
//     completed and every other member as it came; every message that
//     carries the same result gets the same object. A task that failed
//     with a JSON-RPC error (its "error" member, 2026-07-28; the answer to
//     tasks/result, 2025-11-25) is recorded as an error answer to tools/call
//     is, with the correlation ID in the error's data. Memory is bounded
//     per session (Config.MaxTasks, Config.TaskExpiry).
//
// Successful results, and everything else, are written out as they were
// read, in the SDK's encoding of a jsonrpc.Message: params and result keep
// their bytes (less the whitespace between tokens), an error is written
// code, message, data, and the envelope is written anew in JSON-RPC's
// order, without members JSON-RPC does not define, and with each ID
// exactly as its sender wrote it (id.go: the SDK's ID type would turn
// 9007199254740993 into …992, 1.5 into 1, 2^64−1 into −2^63; the proxy
// matches an answer to its call by the ID's value and gives the client its
// own spelling back). TestWhatIsKept and TestIDsRelayedUnchanged pin this
// down, and docs/proxy.md says it.
//
// # Lines that are not messages
//
// Over stdio, one line that is not a JSON-RPC message ends neither the
// session nor the proxy. From the upstream (a banner such as "Server
// listening on port 3000", a log line on stdout, "{}") it is skipped, as the
// TypeScript SDK's stdio client skips it (the Go SDK's, v1.8.0, ends the
// session: go-sdk issue #1209), and logged, at warn once per session and at
// debug after that; an answer to a waiting call that is not valid JSON-RPC
// fails that call at once with an error of the proxy's. From the client it
// is answered as JSON-RPC 2.0 asks: -32700 with id null for what is not
// JSON, -32600 with the request's id, when one can be read, for JSON that is
// not a valid request; each bad element of a batch alone. (An answer of the
// client's to the upstream that cannot be read is dropped and logged: its ID
// is one of the upstream's, not one the client would recognise.)
// TestUpstreamStrayLinesAreSkipped and TestClientMalformedLinesAreAnswered.
//
// # Fail-open
//
// A proxy without a service (Config.Classifier nil: no key was given)
// relays everything unchanged; so does one whose service is misconfigured
// or away. Either way it says so once on its log, and once per session to
// the client as a log message, so that a proxy that does not do its job is
// not invisible. CheckService makes an authenticated no-op call at start-up
// and names the exact problem. The proxy's own transport errors (an
// upstream that cannot be reached, a stream that broke) are JSON-RPC errors
// of the proxy's, never recorded as failures of the tool.
//
// # Message size
//
// One message may be up to Config.MaxMessageBytes, from either side. Past
// it only that message fails: the stdio transports here (Command, Stdio)
// and HTTPUpstream turn an oversized answer into an error answer to its
// call and refuse an oversized request, where the SDK's transports end the
// whole session.
//
// # The failed result
//
// A failed result is decoded only to read what the service needs (the text
// content and structuredContent), through mcpfailure.Annotator.Annotate,
// the same code the Go middleware uses; so classification, the budget, the
// log line and the counters are the middleware's. What the service is sent
// is a summary that fits its limits (summary.go): structuredContent nested
// deeper than 24 levels or larger than 32 KiB is cut, with a note of what
// was left out, keeping the shallow members that classification reads; a
// tool name over 256 bytes is shortened; a report the service still
// refuses as invalid goes again once without details. So the size or depth
// of a failure is never why it lacks the key
// (TestOversizedFailureStillGetsTheKey), and the client's result keeps the
// upstream's bytes whatever is sent. The key is then spliced
// into the result's own bytes: every other member of the result and of its
// _meta keeps its place and its bytes, and a result that already carries
// the key (the server classified it, and its logs know that ID) is not
// touched at all. A call made under protocol 2026-07-28 gets its result
// with resultType "complete" when the upstream left it out: the proxy
// writes that result, so it answers for what the version requires of it.
//
// When the client has not listed the tools (or the tool is new since), the
// proxy asks the upstream with a tools/list of its own, under an ID that no
// client uses, and does not forward the answer. That lookup and the
// Classify call share one budget (Config.Budget, 250 ms by default). When
// the service is slow or down, the result goes out unchanged once the budget
// is spent: the client sees what it would have seen without the proxy, a
// moment later, and the miss is logged. While one failure waits for the
// service, the session goes on: other answers and notifications are not held
// back behind it.
//
// # When the upstream goes away
//
// A child that exits or crashes, or an HTTP upstream whose session is lost,
// ends the relay. Every call the client was still waiting for is answered
// with a JSON-RPC error (code -32000, CodeConnectionClosed) that says what
// happened, with the child's exit status, and the client connection is
// closed. Over stdio the proxy then exits with status 1, which every MCP
// host reports as a server that stopped; over HTTP the session is gone, so
// the client's next request gets 404, the specification's signal to start a
// new session, which starts a new child. No client waits forever.
//
// When the client's input ends first (a script that writes its requests and
// closes the pipe), calls already forwarded are still answered, for up to a
// grace period; then the upstream is closed: for a child, its stdin is
// closed and it gets two seconds to exit before SIGTERM. A DELETE over HTTP,
// or an idle HTTP session, ends the session at once.
//
// # Transports
//
// Upstreams: Command starts a child process (with the child's stderr
// passed through); HTTPUpstream speaks streamable HTTP with a client of its
// own rather than the SDK's client transport, which decodes every message
// (BenchmarkHTTPCall). Messages are decoded to the SDK's jsonrpc types with
// the SDK's checks and encoded to the SDK's bytes by code of this package
// (FuzzDecodeMessage and FuzzEncodeMessage hold it to the SDK's answers, but
// for IDs, which the proxy keeps as written; BenchmarkDecodeMessage and
// BenchmarkEncodeMessage); a tools/call result is decoded only when its
// bytes can hold an isError member.
//
// Clients: Stdio, or any mcp.Transport (mcp.StdioTransport, mcp.IOTransport),
// or Handler for streamable HTTP. The SDK's StreamableHTTPHandler cannot be
// used, because it dispatches to an *mcp.Server; Handler implements the
// server side of the transport for a relay, with one upstream per session,
// and one shared by the requests of the stateless protocol (2026-07-28).
// See Handler for how it routes what the upstream sends.
package mcpproxy
