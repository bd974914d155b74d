/**
 * The proposal's client rules for the official TypeScript SDK's Client,
 * the same rules, defaults and report as the Go package's Dispatcher (the
 * shared vectors in conformance/testdata/dispatch hold both to them):
 *
 * - capability and governance failures are never retried;
 * - a reliability failure is retried only when it is retryable AND the
 *   tool's idempotentHint, from the tools/list of a server the caller
 *   trusts, is true;
 * - never before retryNotBefore; attempts, total time and jitter bounded;
 * - protocol errors are mapped to failures (see protocolFailure) and follow
 *   the same rules;
 * - a missing or malformed toolFailure key means: behave as if the proposal
 *   did not exist;
 * - a key from a server that did not advertise the extension in
 *   capabilities.extensions is reported but never drives a retry;
 * - throttling waits on a backoff of its own, and every retry is paid for
 *   from a per-server budget (RetryBudget).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { CallToolRequest, CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";

import { TOOL_FAILURE_KEY, parseObject, type FailureClass } from "./failure.js";
import { protocolFailure, type JsonRpcErrorLike } from "./protocol.js";

/** What was decided about the outcome of a call. */
export type Action =
  /** Nothing to decide: the first attempt succeeded, or failed without a usable key. */
  | "none"
  /** Retried, and the last attempt succeeded. */
  | "retried"
  /** Failed and not retried (further): capability, rules, budget, abort. */
  | "stopped"
  /** A governance failure: show the user the failure and its correlation ID. */
  | "ask_user";

export const DEFAULT_MAX_ATTEMPTS = 3;
export const DEFAULT_MAX_ELAPSED_MS = 30_000;
export const DEFAULT_INITIAL_BACKOFF_MS = 200;
export const DEFAULT_MAX_BACKOFF_MS = 5_000;
export const DEFAULT_JITTER = 0.2;
/**
 * A throttled server is asking for less traffic, not for a second try in a
 * moment: the AWS SDKs start a throttling backoff higher than the one for
 * other errors, in the ratio of THROTTLING_RETRY_DELAY_BASE to
 * DEFAULT_RETRY_DELAY_BASE, and cap every delay at MAXIMUM_RETRY_DELAY
 * (@smithy/util-retry's constants). The same ratio over the transient
 * backoff gives the throttling default below; the cap is AWS's. The Go Dispatcher's defaults are the same.
 */
export const DEFAULT_THROTTLE_INITIAL_BACKOFF_MS = 1_000;
export const DEFAULT_THROTTLE_MAX_BACKOFF_MS = 20_000;

/**
 * The retry quota of the AWS SDKs' standard retry mode (INITIAL_RETRY_TOKENS,
 * RETRY_COST, TIMEOUT_RETRY_COST and NO_RETRY_INCREMENT in @smithy/util-retry's
 * constants; the AWS SDKs and Tools Reference Guide, "Retry behavior",
 * describes the mode): a server that fails every call gets at most a hundred
 * retries from a client before it stops retrying, and a recovered server
 * earns them back.
 */
export const DEFAULT_RETRY_BUDGET_CAPACITY = 500;
export const DEFAULT_RETRY_COST = 5;
export const DEFAULT_TIMEOUT_RETRY_COST = 10;
export const DEFAULT_SUCCESS_REFUND = 1;

/** Settings of a RetryBudget; 0 or absent means the defaults above. */
export interface RetryBudgetOptions {
  /** What the bucket holds, full, as it starts. */
  capacity?: number;
  /** Taken for each retry of a failure the server reported. */
  retryCost?: number;
  /** Taken for each re-issue of a call the transport failed, which may have run on the server. */
  timeoutRetryCost?: number;
  /** Added for a call that succeeds at its first attempt; a success on a retry gives back what the retry cost. */
  successRefund?: number;
}

/**
 * A token bucket that bounds the retries a client sends one server, so that a
 * failing server cannot multiply its own load: a retry is made only when the
 * bucket can pay for it, and successes refill it. callToolWithPolicy keeps
 * one per Client unless options.budget names one; share one between the
 * clients of the same server.
 */
export class RetryBudget {
  readonly capacity: number;
  readonly retryCost: number;
  readonly timeoutRetryCost: number;
  readonly successRefund: number;
  #tokens: number;

  constructor(o: RetryBudgetOptions = {}) {
    const n = (v: number | undefined, name: string, dflt: number): number => {
      if (v !== undefined && (!Number.isInteger(v) || v < 0)) {
        throw new RangeError(`RetryBudget: ${name} must be a non-negative integer, got ${v}`);
      }
      return v || dflt;
    };
    this.capacity = n(o.capacity, "capacity", DEFAULT_RETRY_BUDGET_CAPACITY);
    this.retryCost = n(o.retryCost, "retryCost", DEFAULT_RETRY_COST);
    this.timeoutRetryCost = n(o.timeoutRetryCost, "timeoutRetryCost", DEFAULT_TIMEOUT_RETRY_COST);
    this.successRefund = n(o.successRefund, "successRefund", DEFAULT_SUCCESS_REFUND);
    this.#tokens = this.capacity;
  }

  /** What the bucket holds now. */
  get tokens(): number {
    return this.#tokens;
  }

  /** Pays cost if the bucket can. */
  take(cost: number): boolean {
    if (this.#tokens < cost) {
      return false;
    }
    this.#tokens -= cost;
    return true;
  }

  /** Gives n tokens back, never beyond the capacity. */
  refund(n: number): void {
    this.#tokens = Math.min(this.#tokens + n, this.capacity);
  }

  /** After a success: what the retry that led to it cost, or successRefund when it needed none. */
  succeeded(paid: number): void {
    this.refund(paid || this.successRefund);
  }
}

// Codes, lower-cased and without separators, that name a rate limit. The
// proposal's vocabulary has none (a rate limit is
// reliability/retryable_transient_error), but servers may add codes, and
// these are the names HTTP (429), gRPC (RESOURCE_EXHAUSTED) and the large
// cloud APIs give the condition. The Go package's list is the same.
const RATE_LIMIT_CODES = new Set([
  "ratelimit", "ratelimited", "ratelimitexceeded", "toomanyrequests",
  "throttled", "throttling", "throttlingexception", "resourceexhausted",
  "quotaexceeded", "slowdown", "requestlimitexceeded",
]);

/** Whether a failure code names a rate limit (rate_limited, too_many_requests, RESOURCE_EXHAUSTED, Throttling, …). */
export function rateLimitCode(code: string): boolean {
  return RATE_LIMIT_CODES.has(code.toLowerCase().replace(/[_\-. ]/g, ""));
}

/** Time, injectable so that tests run the rules on a virtual clock. */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Resolves after ms; rejects with signal.reason as soon as signal aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal!.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
};

export interface PolicyOptions {
  /**
   * This server's tool annotations may drive decisions. The proposal forbids
   * letting an untrusted server's annotations decide anything (a hostile
   * server could mark a payment tool idempotent), so without it nothing is
   * retried. Default false.
   */
  trusted?: boolean;
  /** Attempts per call, the first included. 0 or absent: 3. */
  maxAttempts?: number;
  /** From the first attempt to the start of the last one. 0 or absent: 30 s. */
  maxElapsedMs?: number;
  /** The wait before the first retry without retryNotBefore; doubles. 0 or absent: 200 ms. */
  initialBackoffMs?: number;
  /** 0 or absent: 5 s. */
  maxBackoffMs?: number;
  /** Fraction of a wait added at random, never subtracted. 0 or absent: 0.2; negative: off. */
  jitter?: number;
  /** The backoff for throttling failures (see PolicyReport.throttled). 0 or absent: 1 s. */
  throttleInitialBackoffMs?: number;
  /** 0 or absent: 20 s. */
  throttleMaxBackoffMs?: number;
  /**
   * The name under which the key is read in _meta and the extension in the
   * server's capabilities.extensions. Absent: the proposal's
   * (TOOL_FAILURE_KEY); a deployment under a vendor prefix sets its own.
   */
  metaKey?: string;
  /** The server's retry budget. Absent: one kept per Client with the default settings. */
  budget?: RetryBudget;
  /** Stops the call, and any wait, at once. */
  signal?: AbortSignal;
  /** Epoch ms: no retry is started that could not start before it. */
  deadline?: number;
  /** Passed to every Client.callTool (timeout, progress, …); its signal is replaced by signal. */
  requestOptions?: Omit<RequestOptions, "signal">;
  /** Told about every retry before its wait. */
  onRetry?: (info: { tool: string; attempt: number; waitMs: number; code: string; correlationId: string }) => void;
  clock?: Clock;
  /** [0, 1); for jitter. */
  random?: () => number;
}

/** What callToolWithPolicy saw and did. */
export interface PolicyReport {
  tool: string;
  action: Action;
  /** Why, in a sentence for logs and people. */
  reason: string;
  /** Calls made, the first included. */
  attempts: number;
  /** The pauses before each retry, jitter included. */
  waitsMs: number[];
  elapsedMs: number;
  /**
   * The last failure seen; empty strings when the call succeeded at once or
   * failed without a usable object. For a protocol error, the mapped
   * failure (without a correlation ID).
   */
  class: FailureClass | "";
  code: string;
  retryable: boolean;
  retryNotBefore?: number;
  correlationId: string;
  agentGuidance: string;
  /** The IDs of every failed attempt, in order: support may need any of them. */
  correlationIds: string[];
  /** The JSON-RPC error the last attempt ended in, if any. */
  protocolError?: JsonRpcErrorLike;
  /** Set when the result carried the key but its value broke the proposal (it was ignored). */
  malformed?: Error;
  /** The tool's idempotentHint as it counted: always false for an untrusted server, and for a key from one that did not advertise the extension. */
  idempotent: boolean;
  /**
   * The server advertised the extension under the configured key
   * (capabilities.extensions, SEP-2133). A key from a server that did not is
   * reported but never drives a retry.
   */
  advertised: boolean;
  /**
   * The last failure was taken as throttling and waited for with the
   * throttling backoff: it names retryNotBefore (the server is pacing its
   * clients) or its code names a rate limit (rateLimitCode).
   */
  throttled: boolean;
  /** Attempts that re-sent the call after the transport failed it; each is a retry, paid for from the budget. */
  reissues: number;
  /** The error the last attempt ended in when the transport, not the server, ended it. */
  transportError?: unknown;
}

export interface PolicyOutcome {
  /** The last result; undefined when the last attempt ended in an error. */
  result?: CallToolResult;
  report: PolicyReport;
  /**
   * Set when the last attempt ended in a protocol error (an McpError), a
   * transport error, or the signal aborted. A failed tool result is not an
   * error: it is in result, as from Client.callTool.
   */
  error?: unknown;
}

// The tool list per client, read on first need and again whenever a tool is
// not in it (tools come and go; list-changed notifications are optional).
const toolLists = new WeakMap<Client, Map<string, Tool>>();
// The retry budget per client, when the caller names none.
const budgets = new WeakMap<Client, RetryBudget>();

/** The budget callToolWithPolicy draws on for client when options.budget is absent. */
export function retryBudgetOf(client: Client): RetryBudget {
  let b = budgets.get(client);
  if (!b) {
    b = new RetryBudget();
    budgets.set(client, b);
  }
  return b;
}

/**
 * Calls the tool as Client.callTool does and retries where the proposal
 * allows it. It never throws for what a call can end in: the outcome holds
 * the last result, the report and the last error.
 *
 * The SDK owns the transport. A response stream that breaks after a priming
 * event is resumed by the SDK with Last-Event-ID, which does not run the call
 * again and so is no retry; one that breaks before is reported to the
 * transport's onerror and the call ends in the SDK's request timeout (an
 * McpError, not re-issued: the caller's timeout is the caller's bound). What
 * reaches this function as a transport failure is an error that is neither
 * an McpError nor an HTTP status (fetch failed, connection reset): the call
 * may or may not have reached the tool, so it is re-issued exactly as a retry
 * is made, under the same idempotency rules and budget (at the timeout cost).
 */
export async function callToolWithPolicy(
  client: Client,
  params: CallToolRequest["params"],
  options: PolicyOptions = {},
): Promise<PolicyOutcome> {
  const cfg = bounds(options);
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const metaKey = options.metaKey || TOOL_FAILURE_KEY;
  const budget = options.budget ?? retryBudgetOf(client);
  const start = clock.now();
  const ext = client.getServerCapabilities()?.extensions?.[metaKey];
  const rep: PolicyReport = {
    tool: params.name,
    action: "none",
    reason: "",
    attempts: 0,
    waitsMs: [],
    elapsedMs: 0,
    ...emptyFailure(),
    correlationIds: [],
    idempotent: false,
    // Any object advertises it, whatever its version: the draft's versions
    // are compatible on the wire.
    advertised: typeof ext === "object" && ext !== null && !Array.isArray(ext),
    throttled: false,
    reissues: 0,
  };
  const done = (o: Omit<PolicyOutcome, "report">): PolicyOutcome => {
    rep.elapsedMs = clock.now() - start;
    return { ...o, report: rep };
  };
  const stop = (reason: string) => {
    rep.action = "stopped";
    rep.reason = reason;
  };
  let result: CallToolResult | undefined;
  // What the retry that led to the current attempt took from the budget: a
  // success gives it back, as in the AWS SDKs' standard mode.
  let paid = 0;

  for (;;) {
    let error: unknown;
    result = undefined;
    try {
      result = (await client.callTool(params, undefined, { ...options.requestOptions, signal: options.signal })) as CallToolResult;
    } catch (err) {
      error = err;
    }
    rep.attempts++;
    rep.protocolError = undefined;
    rep.transportError = undefined;
    let fromKey = false;
    let reissue = false;

    if (error !== undefined) {
      const rpc = asJsonRpcError(error);
      if (!rpc) {
        if (options.signal?.aborted || !lostCall(error)) {
          if (!options.signal?.aborted) {
            rep.transportError = error;
          }
          stop(`call failed: ${errorText(error)}`);
          return done({ error });
        }
        Object.assign(rep, emptyFailure());
        rep.transportError = error;
        reissue = true;
      } else {
        rep.protocolError = rpc;
        const mapped = protocolFailure(rpc, clock.now());
        if (!mapped) {
          Object.assign(rep, emptyFailure());
          stop(`protocol error ${rpc.code} with no toolFailure mapping`);
          return done({ error });
        }
        setFailure(rep, mapped);
      }
    } else if (!result || typeof result !== "object") {
      stop("no result");
      return done({ error: new Error("tools/call returned neither a result nor an error") });
    } else if (!result.isError) {
      if (rep.attempts > 1) {
        rep.action = "retried";
        rep.reason = `succeeded on attempt ${rep.attempts}`;
      } else {
        rep.action = "none";
        rep.reason = "succeeded";
      }
      budget.succeeded(paid);
      return done({ result });
    } else {
      const meta = result._meta;
      const present = !!meta && typeof meta === "object" && Object.hasOwn(meta, metaKey);
      let malformed: Error | undefined;
      if (present) {
        try {
          setFailure(rep, parseObject(meta[metaKey]));
          fromKey = true;
        } catch (err) {
          malformed = err instanceof Error ? err : new Error(String(err));
        }
      }
      if (!fromKey) {
        Object.assign(rep, emptyFailure());
        rep.malformed = malformed;
        const what = malformed
          ? "error result with a malformed toolFailure object (ignored)"
          : "error result without a toolFailure object";
        if (rep.attempts > 1) {
          // Only a retry gets here; it is not followed by another one,
          // because without a usable object nothing allows it.
          stop(`${what} after a retry; returned as is`);
        } else {
          rep.action = "none";
          rep.reason = `${what}; returned as is`;
        }
        return done({ result });
      }
    }

    rep.throttled = false;
    let next: { wait: number; cost: number } | { why: string };
    if (reissue) {
      next = await reissueWait(client, cfg, options, rep, start, clock, random, budget);
      if ("why" in next) {
        stop(`call failed: ${errorText(error)}; not re-issued: ${next.why}`);
        return done({ error });
      }
      rep.reissues++;
    } else {
      if (rep.correlationId) {
        rep.correlationIds.push(rep.correlationId);
      }
      next = await retryWait(client, cfg, options, rep, start, clock, random, budget, fromKey, metaKey);
      if ("why" in next) {
        if (rep.class === "governance") {
          rep.action = "ask_user";
          rep.reason = next.why;
        } else {
          stop(next.why);
        }
        return done({ result, error });
      }
    }
    paid = next.cost;
    rep.waitsMs.push(next.wait);
    options.onRetry?.({ tool: params.name, attempt: rep.attempts, waitMs: next.wait, code: rep.code, correlationId: rep.correlationId });
    try {
      await clock.sleep(next.wait, options.signal);
    } catch (err) {
      // The retry was paid for and not made: the server saw no load from
      // it, so the tokens go back.
      budget.refund(paid);
      stop("context ended while waiting to retry");
      return done({ result, error: err });
    }
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Whether a transport error may have lost a call the server received: it is
 * not an HTTP answer (the SDK's StreamableHTTPError carries the status as a
 * number in code; the server answered, so nothing was lost) and not the
 * SDK's "Not connected" (a closed client, where a re-issue fails at once).
 */
function lostCall(err: unknown): boolean {
  if (typeof (err as { code?: unknown } | null)?.code === "number") {
    return false;
  }
  return !(err instanceof Error && err.message === "Not connected");
}

type Bounds = Required<
  Pick<PolicyOptions, "maxAttempts" | "maxElapsedMs" | "initialBackoffMs" | "maxBackoffMs" | "jitter" | "throttleInitialBackoffMs" | "throttleMaxBackoffMs">
>;

function bounds(o: PolicyOptions): Bounds {
  const n = (v: number | undefined, name: string): number => {
    if (v !== undefined && (!Number.isFinite(v) || v < 0)) {
      throw new RangeError(`callToolWithPolicy: options.${name} must be a non-negative number, got ${v}`);
    }
    return v ?? 0;
  };
  if (o.jitter !== undefined && (Number.isNaN(o.jitter) || o.jitter > 1)) {
    throw new RangeError(`callToolWithPolicy: options.jitter must be at most 1, got ${o.jitter}`);
  }
  const jitter = o.jitter === undefined || o.jitter === 0 ? DEFAULT_JITTER : Math.max(o.jitter, 0);
  return {
    maxAttempts: n(o.maxAttempts, "maxAttempts") || DEFAULT_MAX_ATTEMPTS,
    maxElapsedMs: n(o.maxElapsedMs, "maxElapsedMs") || DEFAULT_MAX_ELAPSED_MS,
    initialBackoffMs: n(o.initialBackoffMs, "initialBackoffMs") || DEFAULT_INITIAL_BACKOFF_MS,
    maxBackoffMs: n(o.maxBackoffMs, "maxBackoffMs") || DEFAULT_MAX_BACKOFF_MS,
    throttleInitialBackoffMs: n(o.throttleInitialBackoffMs, "throttleInitialBackoffMs") || DEFAULT_THROTTLE_INITIAL_BACKOFF_MS,
    throttleMaxBackoffMs: n(o.throttleMaxBackoffMs, "throttleMaxBackoffMs") || DEFAULT_THROTTLE_MAX_BACKOFF_MS,
    jitter,
  };
}

function emptyFailure(): Pick<PolicyReport, "class" | "code" | "retryable" | "retryNotBefore" | "correlationId" | "agentGuidance"> {
  return { class: "", code: "", retryable: false, retryNotBefore: undefined, correlationId: "", agentGuidance: "" };
}

function setFailure(rep: PolicyReport, f: ReturnType<typeof emptyFailure>) {
  rep.class = f.class;
  rep.code = f.code;
  rep.retryable = f.retryable;
  rep.retryNotBefore = f.retryNotBefore;
  rep.correlationId = f.correlationId;
  rep.agentGuidance = f.agentGuidance;
}

/** An McpError (or anything shaped like a JSON-RPC error) from the server. */
function asJsonRpcError(err: unknown): JsonRpcErrorLike | undefined {
  if (err instanceof Error && typeof (err as { code?: unknown }).code === "number" && err.name === "McpError") {
    const e = err as Error & { code: number; data?: unknown };
    return { code: e.code, message: e.message, data: e.data };
  }
  return undefined;
}

type Next = { wait: number; cost: number } | { why: string };

/**
 * The client rules: the pause before the next attempt and its cost, or why
 * there is none. fromKey says that the failure is the server's own object
 * rather than this package's mapping of a protocol error.
 */
async function retryWait(
  client: Client,
  cfg: Bounds,
  options: PolicyOptions,
  rep: PolicyReport,
  start: number,
  clock: Clock,
  random: () => number,
  budget: RetryBudget,
  fromKey: boolean,
  metaKey: string,
): Promise<Next> {
  switch (true) {
    case rep.class === "capability":
      return { why: `capability failure (${rep.code}): retrying cannot help` };
    case rep.class === "governance":
      return { why: `governance failure (${rep.code}): a person has to act; never retried automatically` };
    case rep.class !== "reliability":
      return { why: "unknown class" };
    case !rep.retryable:
      return { why: `reliability failure (${rep.code}) not marked retryable` };
    case !options.trusted:
      return { why: "retryable, but the server is not trusted, so its idempotentHint does not count" };
    case fromKey && !rep.advertised:
      return { why: `retryable, but the server did not advertise the extension (capabilities.extensions[${JSON.stringify(metaKey)}]), so its key is not trusted` };
  }
  // A retryNotBefore is the server pacing its clients; a rate-limit code says
  // so too. The agentGuidance is prose for the model and is never read here.
  rep.throttled = rep.retryNotBefore !== undefined || rateLimitCode(rep.code);
  const [initial, ceiling] = rep.throttled ? [cfg.throttleInitialBackoffMs, cfg.throttleMaxBackoffMs] : [cfg.initialBackoffMs, cfg.maxBackoffMs];
  return nextAttempt(client, cfg, options, rep, start, clock, random, budget, initial, ceiling, rep.retryNotBefore, budget.retryCost, "retryable");
}

/**
 * Re-sending a call the transport failed is a retry: the server may have run
 * it, so the same idempotency rules hold, and it is paid for at the timeout
 * cost, as the AWS SDKs pay for a retry after a timeout or a dropped
 * connection.
 */
async function reissueWait(
  client: Client,
  cfg: Bounds,
  options: PolicyOptions,
  rep: PolicyReport,
  start: number,
  clock: Clock,
  random: () => number,
  budget: RetryBudget,
): Promise<Next> {
  if (!options.trusted) {
    return { why: "the server is not trusted, so its idempotentHint does not count" };
  }
  return nextAttempt(client, cfg, options, rep, start, clock, random, budget, cfg.initialBackoffMs, cfg.maxBackoffMs, undefined, budget.timeoutRetryCost, "re-issuable");
}

/**
 * What every retry needs: a trusted idempotentHint, an attempt left, a start
 * within the time bounds, and tokens in the budget (taken last, so that a
 * retry refused for another reason costs nothing).
 */
async function nextAttempt(
  client: Client,
  cfg: Bounds,
  options: PolicyOptions,
  rep: PolicyReport,
  start: number,
  clock: Clock,
  random: () => number,
  budget: RetryBudget,
  initial: number,
  ceiling: number,
  notBefore: number | undefined,
  cost: number,
  what: string,
): Promise<Next> {
  let idem: boolean;
  try {
    idem = await idempotent(client, rep.tool, options);
  } catch (err) {
    rep.idempotent = false;
    return { why: `${what}, but the tool list could not be read to check idempotentHint: ${errorText(err)}` };
  }
  rep.idempotent = idem;
  if (!idem) {
    return { why: `${what}, but the tool's idempotentHint is not true` };
  }
  if (rep.attempts >= cfg.maxAttempts) {
    return { why: `${what}, but ${rep.attempts} attempts were made, the maximum` };
  }
  const now = clock.now();
  let wait = Math.min(initial * 2 ** (rep.attempts - 1), ceiling);
  if (notBefore !== undefined) {
    wait = Math.max(wait, notBefore - now);
  }
  if (cfg.jitter > 0) {
    wait += Math.trunc(random() * cfg.jitter * wait);
  }
  const next = now + wait;
  if (next > start + cfg.maxElapsedMs) {
    return {
      why: `${what}, but the next attempt (not before ${new Date(next).toISOString().replace(/\.\d{3}Z$/, "Z")}) falls outside the ${goDuration(cfg.maxElapsedMs)} budget`,
    };
  }
  if (options.deadline !== undefined && next > options.deadline) {
    return { why: `${what}, but the next attempt falls after the context's deadline` };
  }
  if (!budget.take(cost)) {
    return { why: `${what}, but the server's retry budget is spent (${budget.tokens} tokens left, the retry costs ${cost})` };
  }
  return { wait, cost };
}

async function idempotent(client: Client, tool: string, options: PolicyOptions): Promise<boolean> {
  let t = toolLists.get(client)?.get(tool);
  if (!t) {
    const tools = new Map<string, Tool>();
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      // A bound against a cursor that never ends.
      const list = await client.listTools(cursor ? { cursor } : undefined, { ...options.requestOptions, signal: options.signal });
      for (const x of list.tools) {
        tools.set(x.name, x);
      }
      cursor = list.nextCursor;
      if (!cursor) {
        break;
      }
    }
    toolLists.set(client, tools);
    t = tools.get(tool);
  }
  return t?.annotations?.idempotentHint === true;
}

/** A duration as Go prints one (30s, 1m30s, 500ms), for reasons that match the Go side's. */
function goDuration(ms: number): string {
  if (ms < 1000) {
    return `${ms}ms`;
  }
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  return `${h ? `${h}h` : ""}${h || m ? `${m}m` : ""}${s}s`;
}
