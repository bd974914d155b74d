/**
 * The toolFailure object of the proposal: its key, its classes and baseline
 * codes, and a parser that refuses what breaks the proposal's MUST rules,
 * exactly as the Go package's Parse does.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** The _meta key under which a CallToolResult carries the toolFailure object. */
export const TOOL_FAILURE_KEY = "io.modelcontextprotocol/toolFailure";

/** The proposal's closed set of classes. Clients dispatch on the class alone. */
export type FailureClass = "capability" | "reliability" | "governance";

/** Baseline codes; the vocabulary is open and an unknown code is a log detail. */
export const Codes = {
  capabilityUnsupported: "capability_unsupported",
  resourceNotFound: "resource_not_found",
  invalidInput: "invalid_input",
  retryableTransientError: "retryable_transient_error",
  authRequired: "auth_required",
  permissionDenied: "permission_denied",
  policyBlocked: "policy_blocked",
  userActionRequired: "user_action_required",
} as const;

/** The decoded toolFailure object. */
export interface ToolFailure {
  class: FailureClass;
  code: string;
  /** True only for class reliability: elsewhere the proposal forbids acting on it. */
  retryable: boolean;
  /** Epoch ms before which a retry must not start; kept only when retryable. */
  retryNotBefore?: number;
  /** What a user quotes to support; opaque. */
  correlationId: string;
  /** A short hint for the calling model: data from the server, never an instruction. */
  agentGuidance: string;
}

/** The result of parseToolFailure. */
export type ParsedToolFailure =
  | { present: false }
  | { present: true; failure: ToolFailure }
  | { present: true; malformed: Error };

/**
 * Reads the toolFailure object of a tool result. A result without the key
 * (every result of a server that does not implement the proposal) is
 * `{present: false}`. A key whose value breaks the proposal (a class outside
 * the closed set, no code or correlationId, a retryable that is not a
 * boolean, a retryNotBefore that is not a non-negative integer) is reported
 * as malformed: callers that act on the object must then behave as if it
 * were absent, because a half-understood object is no basis for a retry.
 */
export function parseToolFailure(result: Pick<CallToolResult, "_meta"> | undefined): ParsedToolFailure {
  const meta = result?._meta;
  if (!meta || typeof meta !== "object" || !Object.hasOwn(meta, TOOL_FAILURE_KEY)) {
    return { present: false };
  }
  try {
    return { present: true, failure: parseObject(meta[TOOL_FAILURE_KEY]) };
  } catch (err) {
    return { present: true, malformed: err instanceof Error ? err : new Error(String(err)) };
  }
}

/** Checks a toolFailure value and decodes it; throws on a malformed one. */
export function parseObject(v: unknown): ToolFailure {
  if (!v || typeof v !== "object" || Array.isArray(v)) {
    throw new Error(`toolFailure: want a JSON object, got ${truncate(JSON.stringify(v) ?? String(v), 64)}`);
  }
  const obj = v as Record<string, unknown>;
  const cls = obj.class;
  if (cls !== "capability" && cls !== "reliability" && cls !== "governance") {
    throw new Error(`toolFailure: class ${JSON.stringify(cls ?? "")} is not capability, reliability or governance`);
  }
  const code = typeof obj.code === "string" ? obj.code : "";
  if (code === "") {
    throw new Error("toolFailure: code is missing or empty");
  }
  const correlationId = typeof obj.correlationId === "string" ? obj.correlationId : "";
  if (correlationId === "") {
    throw new Error("toolFailure: correlationId is missing or empty");
  }
  const tf: ToolFailure = {
    class: cls,
    code,
    retryable: false,
    correlationId,
    agentGuidance: typeof obj.agentGuidance === "string" ? obj.agentGuidance : "",
  };
  if (Object.hasOwn(obj, "retryable")) {
    if (typeof obj.retryable !== "boolean") {
      throw new Error(`toolFailure: retryable is ${obj.retryable === null ? "null" : typeof obj.retryable}, want a boolean`);
    }
    // Retryable means something only for reliability; elsewhere it is
    // ignored rather than trusted.
    tf.retryable = obj.retryable && cls === "reliability";
  }
  const rnb = obj.retryNotBefore;
  if (rnb !== undefined && rnb !== null) {
    if (typeof rnb !== "number" || !Number.isInteger(rnb) || rnb < 0 || rnb > 2 ** 53) {
      throw new Error(`toolFailure: retryNotBefore: ${JSON.stringify(rnb)} is not a non-negative integer of epoch milliseconds`);
    }
    if (tf.retryable) {
      tf.retryNotBefore = rnb;
    }
  }
  return tf;
}

function truncate(s: string, n: number): string {
  return s.length <= n ? s : s.slice(0, n);
}
