/**
 * Protocol errors (JSON-RPC errors of tools/call) mapped to the failure a
 * client acts on, the same mapping as the Go package's ProtocolFailure, so
 * that one set of rules covers both kinds of error.
 */
import { Codes, type ToolFailure } from "./failure.js";

/** A JSON-RPC error as the SDK's McpError carries it. */
export interface JsonRpcErrorLike {
  code: number;
  message: string;
  data?: unknown;
}

/** Protocol failures carry no correlation ID: nothing was recorded. */
export type ProtocolFailure = Omit<ToolFailure, "correlationId"> & { correlationId: "" };

/** A longer retry hint is no hint at all (the Go side's bound). */
const MAX_RETRY_DELAY_MS = 365 * 24 * 3600 * 1000;

/**
 * The mapping, deliberately small:
 *
 *   -32700 parse error, -32600 invalid request,
 *   -32601 method not found                → capability / capability_unsupported
 *   -32602 invalid params, "unknown tool…" → capability / capability_unsupported
 *   -32602 invalid params, otherwise       → capability / invalid_input
 *   any code whose data names a retry
 *   delay (a rate limit, an overload)      → reliability / retryable_transient_error,
 *                                            retryable, retryNotBefore = now + delay
 *
 * The delay is read from data.retryAfter (seconds as a number or a string,
 * or an HTTP-date), data.retryAfterMs, data.retry_after (seconds) or
 * data.retryNotBefore (epoch ms). Any other error is not mapped (undefined):
 * guessing would turn an unknown server fault into a retry.
 */
export function protocolFailure(err: JsonRpcErrorLike, now: number): ProtocolFailure | undefined {
  const delay = retryDelay(err.data, now);
  if (delay !== undefined) {
    return {
      class: "reliability",
      code: Codes.retryableTransientError,
      retryable: true,
      retryNotBefore: now + delay,
      correlationId: "",
      agentGuidance: "The server is rate limiting or overloaded; wait before calling again.",
    };
  }
  const capability = (code: string, agentGuidance: string): ProtocolFailure => ({
    class: "capability",
    code,
    retryable: false,
    correlationId: "",
    agentGuidance,
  });
  switch (err.code) {
    case -32700:
    case -32600:
    case -32601:
      return capability(Codes.capabilityUnsupported, "The server does not support this call.");
    case -32602:
      if (jsonRpcMessage(err).toLowerCase().startsWith("unknown tool")) {
        return capability(Codes.capabilityUnsupported, "This server has no such tool; list the tools and pick another.");
      }
      return capability(Codes.invalidInput, "The arguments were rejected; fix them before calling again.");
  }
  return undefined;
}

/** The SDK's McpError prefixes the wire message with "MCP error CODE: ". */
export function jsonRpcMessage(err: JsonRpcErrorLike): string {
  const prefix = `MCP error ${err.code}: `;
  return err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
}

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
// The three forms of an HTTP-date (RFC 9110): IMF-fixdate, RFC 850, asctime.
const HTTP_DATE = [
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/,
  /^(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), \d{2}-(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)-\d{2} \d{2}:\d{2}:\d{2} GMT$/,
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/,
];

/** Finds a retry hint in JSON-RPC error data, in ms; clamped at zero. */
export function retryDelay(data: unknown, now: number): number | undefined {
  if (!data || typeof data !== "object" || Array.isArray(data)) {
    return undefined;
  }
  const obj = data as Record<string, unknown>;
  const seconds = (v: unknown): number | undefined => {
    if (typeof v === "number") {
      if (v < 0 || !Number.isFinite(v) || v * 1000 > MAX_RETRY_DELAY_MS) {
        return undefined;
      }
      return Math.trunc(v * 1000);
    }
    if (typeof v === "string") {
      const s = v.trim();
      if (DECIMAL.test(s)) {
        const n = Number(s);
        if (!Number.isFinite(n) || n * 1000 > MAX_RETRY_DELAY_MS) {
          return undefined;
        }
        return Math.trunc(Math.max(n, 0) * 1000);
      }
      if (HTTP_DATE.some((re) => re.test(v))) {
        const t = Date.parse(HTTP_DATE[2]!.test(v) ? `${v} GMT` : v);
        if (!Number.isNaN(t)) {
          return Math.max(t - now, 0);
        }
      }
    }
    return undefined;
  };
  const a = seconds(obj.retryAfter);
  if (a !== undefined) {
    return a;
  }
  const ms = obj.retryAfterMs;
  if (typeof ms === "number" && ms >= 0 && ms <= MAX_RETRY_DELAY_MS) {
    return Math.trunc(ms);
  }
  const b = seconds(obj.retry_after);
  if (b !== undefined) {
    return b;
  }
  const rnb = obj.retryNotBefore;
  if (typeof rnb === "number" && rnb >= 0 && rnb <= now + MAX_RETRY_DELAY_MS) {
    return Math.max(Math.trunc(rnb) - now, 0);
  }
  return undefined;
}
