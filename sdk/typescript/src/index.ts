/**
 * @omcp/toolfailure: the MCP toolFailure proposal for the official
 * TypeScript SDK.
 *
 * Server side, ToolFailureReporter attaches
 * `_meta["io.modelcontextprotocol/toolFailure"]` to failed tool results
 * through the toolfailure service. Client side, callToolWithPolicy follows
 * the proposal's client rules and reports what it decided. The generated
 * Connect client of the whole API is under `@omcp/toolfailure/gen/…`.
 */
export { TOOL_FAILURE_KEY, Codes, parseToolFailure, type FailureClass, type ParsedToolFailure, type ToolFailure } from "./failure.js";
export { protocolFailure, type JsonRpcErrorLike, type ProtocolFailure } from "./protocol.js";
export {
  DEFAULT_INITIAL_BACKOFF_MS,
  DEFAULT_JITTER,
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_MAX_BACKOFF_MS,
  DEFAULT_MAX_ELAPSED_MS,
  DEFAULT_RETRY_BUDGET_CAPACITY,
  DEFAULT_RETRY_COST,
  DEFAULT_SUCCESS_REFUND,
  DEFAULT_THROTTLE_INITIAL_BACKOFF_MS,
  DEFAULT_THROTTLE_MAX_BACKOFF_MS,
  DEFAULT_TIMEOUT_RETRY_COST,
  RetryBudget,
  callToolWithPolicy,
  rateLimitCode,
  retryBudgetOf,
  systemClock,
  type Action,
  type Clock,
  type PolicyOptions,
  type PolicyOutcome,
  type PolicyReport,
  type RetryBudgetOptions,
} from "./dispatch.js";
export {
  DEFAULT_BUDGET_MS,
  EXTENSION_VERSION,
  ToolFailureReporter,
  errorFacts,
  rawError,
  withResultType,
  type AnnotateOptions,
  type ErrorFacts,
  type ReporterOptions,
  type ReporterStats,
} from "./reporter.js";
