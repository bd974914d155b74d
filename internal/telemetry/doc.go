// Package telemetry links toolfailure into OpenTelemetry: traces and metrics
// of the service itself, and the trace context that ties a failure record to
// the trace of the tool call that failed.
//
// # Setting it up
//
// Setup reads the standard OTEL_* environment variables through contrib's
// autoexport and installs global providers. Nothing is exported unless
// OTEL_TRACES_EXPORTER or OTEL_METRICS_EXPORTER asks for it: "otlp" for a
// collector, "console" to print spans and metrics on standard output while
// debugging. The rest is the specification's: OTEL_EXPORTER_OTLP_ENDPOINT,
// OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES,
// OTEL_TRACES_SAMPLER and so on.
//
//	sdk, err := telemetry.Setup(ctx)
//	defer sdk.Shutdown(shutdownCtx)
//	inst, err := telemetry.New(sdk.Config())
//
// New builds the Instruments that the service's pieces share; a nil
// *Instruments records nothing, so tests and tools need no telemetry at all.
//
// # What is traced
//
// Interceptor is a connect-go v2 server interceptor: one SERVER span per
// RPC, parented from the request headers, named "package.Service/Method",
// and an RPC duration histogram. It is written here because otelconnect has
// no connect-go v2 release. It follows the RPC semantic conventions in the
// generation that otelconnect and existing dashboards use (rpc.system
// "connect_rpc", rpc.service, rpc.method, rpc.connect_rpc.error_code,
// rpc.server.duration in milliseconds) and switches to the current,
// release-candidate conventions (rpc.system.name "connectrpc", a fully
// qualified rpc.method, rpc.response.status_code, rpc.server.call.duration
// in seconds) with OTEL_SEMCONV_STABILITY_OPT_IN=rpc, or emits both with
// rpc/dup: the migration switch that OpenTelemetry's own instrumentations
// use. error.type carries the Connect code of a failed call in every mode;
// only codes that mean the server failed (internal, unavailable, …) set the
// span status to Error, as the conventions prescribe.
//
// StartClassify opens the span of one Classify call, a child of the
// caller's tool call. MCP carries trace context in params._meta.traceparent,
// so the request body's traceparent, when valid, is the parent; the RPC
// server span, parented from the headers before the body was read, is
// linked. The span carries the correlation ID, class, code, rule, tenant,
// gen_ai.tool.name and error.type "tool_error", which is the value the MCP
// semantic conventions give a tool result with isError set; the class and
// code are domain-specific refinements in the toolfailure.* namespace, as
// the error conventions recommend. A support engineer who opens the trace of
// a failed tool call therefore sees the correlation ID the user was shown,
// and a search for toolfailure.correlation_id finds the trace.
//
// PgxTracer traces pgx queries, batches and connects with the database
// conventions (db.system.name "postgresql", db.query.text without arguments,
// db.operation.name, db.namespace, SQLSTATE as db.response.status_code and
// error.type).
//
// # Metrics and their cardinality
//
//   - toolfailure.classifications: a counter by tenant, class and code.
//     Codes are an open vocabulary that tenants' rules extend, so only the
//     baseline codes are kept and every other code is counted as "other"
//     (MetricCode); the record keeps the real code.
//   - toolfailure.classify.duration also carries toolfailure.outcome
//     (stored, replayed, error), so that one histogram counts the calls
//     that failed as well as timing them.
//   - toolfailure.classify.duration, rpc.server.duration (or
//     rpc.server.call.duration) and db.client.operation.duration: latency
//     histograms whose attributes are method, class, operation and error
//     type, never IDs, tools or peers.
//   - toolfailure.store.batch.size: statements per pgx batch, the measure of
//     how well group commit is batching.
//   - toolfailure.rules.cache.version: a callback gauge per tenant, fed by
//     ObserveRuleCache, so that a replica that missed a rule invalidation
//     stands out as a different version.
//
// NewPrometheus makes the same instruments scrapeable (serve
// --metrics-listen): pass its Reader to Setup with WithMetricReader and
// mount its Handler at /metrics.
//
// # Trace links
//
// TraceURLTemplate turns a stored trace ID into a link to the operator's
// trace viewer (Jaeger, Tempo, …) from a template with {trace_id}; the API
// and the support UI both use it. Only validated hex IDs are substituted,
// and only http and https templates are accepted, so a link can never become
// a script.
package telemetry
