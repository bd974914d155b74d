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
 *   did not exist.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { CallToolRequest, CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";

import { parseToolFailure, type FailureClass } from "./failure.js";
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
  /** The tool's idempotentHint as it counted: always false for an untrusted server. */
  idempotent: boolean;
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

/**
 * Calls the tool as Client.callTool does and retries where the proposal
 * allows it. It never throws for what a call can end in: the outcome holds
 * the last result, the report and the last error.
 */
export async function callToolWithPolicy(
  client: Client,
  params: CallToolRequest["params"],
  options: PolicyOptions = {},
): Promise<PolicyOutcome> {
  const cfg = bounds(options);
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const start = clock.now();
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

    if (error !== undefined) {
      const rpc = asJsonRpcError(error);
      if (!rpc) {
        stop(`call failed: ${error instanceof Error ? error.message : String(error)}`);
        return done({ error });
      }
      rep.protocolError = rpc;
      const mapped = protocolFailure(rpc, clock.now());
      if (!mapped) {
        Object.assign(rep, emptyFailure());
        stop(`protocol error ${rpc.code} with no toolFailure mapping`);
        return done({ error });
      }
      setFailure(rep, mapped);
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
      return done({ result });
    } else {
      const parsed = parseToolFailure(result);
      if (!parsed.present || "malformed" in parsed) {
        Object.assign(rep, emptyFailure());
        rep.malformed = parsed.present && "malformed" in parsed ? parsed.malformed : undefined;
        const what = rep.malformed
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
      setFailure(rep, parsed.failure);
    }
    if (rep.correlationId) {
      rep.correlationIds.push(rep.correlationId);
    }

    const next = await retryWait(client, cfg, options, rep, start, clock, random);
    if ("why" in next) {
      if (rep.class === "governance") {
        rep.action = "ask_user";
        rep.reason = next.why;
      } else {
        stop(next.why);
      }
      return done({ result, error });
    }
    rep.waitsMs.push(next.wait);
    options.onRetry?.({ tool: params.name, attempt: rep.attempts, waitMs: next.wait, code: rep.code, correlationId: rep.correlationId });
    try {
      await clock.sleep(next.wait, options.signal);
    } catch (err) {
      stop("context ended while waiting to retry");
      return done({ result, error: err });
    }
  }
}

type Bounds = Required<Pick<PolicyOptions, "maxAttempts" | "maxElapsedMs" | "initialBackoffMs" | "maxBackoffMs" | "jitter">>;

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

/** The client rules: the pause before the next attempt, or why there is none. */
async function retryWait(
  client: Client,
  cfg: Bounds,
  options: PolicyOptions,
  rep: PolicyReport,
  start: number,
  clock: Clock,
  random: () => number,
): Promise<{ wait: number } | { why: string }> {
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
  }
  let idem: boolean;
  try {
    idem = await idempotent(client, rep.tool, options);
  } catch (err) {
    rep.idempotent = false;
    return { why: `retryable, but the tool list could not be read to check idempotentHint: ${err instanceof Error ? err.message : String(err)}` };
  }
  rep.idempotent = idem;
  if (!idem) {
    return { why: "retryable, but the tool's idempotentHint is not true" };
  }
  if (rep.attempts >= cfg.maxAttempts) {
    return { why: `retryable, but ${rep.attempts} attempts were made, the maximum` };
  }
  const now = clock.now();
  let wait = Math.min(cfg.initialBackoffMs * 2 ** (rep.attempts - 1), cfg.maxBackoffMs);
  if (rep.retryNotBefore !== undefined) {
    wait = Math.max(wait, rep.retryNotBefore - now);
  }
  if (cfg.jitter > 0) {
    wait += Math.trunc(random() * cfg.jitter * wait);
  }
  const next = now + wait;
  if (next > start + cfg.maxElapsedMs) {
    return {
      why: `retryable, but the next attempt (not before ${new Date(next).toISOString().replace(/\.\d{3}Z$/, "Z")}) falls outside the ${goDuration(cfg.maxElapsedMs)} budget`,
    };
  }
  if (options.deadline !== undefined && next > options.deadline) {
    return { why: "retryable, but the next attempt falls after the context's deadline" };
  }
  return { wait };
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
