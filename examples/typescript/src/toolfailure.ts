/**
 * Attach the toolFailure key to failed MCP tool results, through the
 * toolfailure service. Copy this file, and the generated client in gen/,
 * into an MCP server built on @modelcontextprotocol/sdk:
 *
 *   const toolFailure = new ToolFailureReporter({ server: "mail-mcp" });
 *   server.registerTool("send_email", { inputSchema, annotations },
 *     toolFailure.wrap("send_email", annotations, async (args) => { ... }));
 *
 * A handler that throws, or returns a result with isError set, then answers
 * with the same result plus `_meta["io.modelcontextprotocol/toolFailure"]`:
 * the class and code the service decided (with the tenant's own rules), and a
 * correlation ID that is stored and can be looked up. Successful results are
 * not touched, and neither are results that already carry the key.
 *
 * The helper never makes a failure worse. When the service is slow,
 * unreachable or refuses the call, the result goes out unchanged once the
 * budget (250 ms by default) is spent, and the miss is reported to onMiss.
 * Inventing a classification locally was rejected on purpose: its
 * correlation ID would be one that support cannot look up.
 *
 * Configuration: the options, else TOOLFAILURE_SERVER (default
 * http://127.0.0.1:8080) and TOOLFAILURE_KEY (a key with the "report" scope).
 */
import { create, fromJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema, timestampNow } from "@bufbuild/protobuf/wkt";
import { createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";

import { ClassifierService } from "./gen/toolfailure/v1/classifier_service_pb.js";
import { RawErrorSchema, type RawError } from "./gen/toolfailure/v1/types_pb.js";

export const TOOL_FAILURE_KEY = "io.modelcontextprotocol/toolFailure";
export const DEFAULT_BUDGET_MS = 250;

export interface ToolFailureOptions {
  /** The service, e.g. http://127.0.0.1:8080. Default: TOOLFAILURE_SERVER. */
  baseUrl?: string;
  /** A key with the "report" scope. Default: TOOLFAILURE_KEY. */
  apiKey?: string;
  /** The label failures are reported under, to tell servers apart. */
  server?: string;
  /** How long a failed result may wait for the service. */
  budgetMs?: number;
  /** Told about every result that went out without the key. */
  onMiss?: (tool: string, reason: unknown) => void;
}

/** What is known about an error beyond its text; all optional. */
export interface ErrorFacts {
  message?: string;
  /** An errno name (ECONNRESET) or an exception type. */
  type?: string;
  httpStatus?: number;
  grpcCode?: number;
  jsonrpcCode?: number;
  /** A Retry-After value as received: seconds or an HTTP-date. */
  retryAfter?: string;
  details?: JsonObject;
  attributes?: Record<string, string>;
}

export interface AnnotateOptions {
  /** The error the handler threw, if it threw. */
  error?: unknown;
  /** Facts that override what is read from error and result. */
  facts?: ErrorFacts;
  annotations?: ToolAnnotations;
  /** The tools/call request's _meta, read for the W3C traceparent. */
  requestMeta?: Record<string, unknown>;
}

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

export class ToolFailureReporter {
  private readonly client: Client<typeof ClassifierService>;
  private readonly server: string;
  private readonly budgetMs: number;
  private readonly onMiss: (tool: string, reason: unknown) => void;
  private readonly hasKey: boolean;

  constructor(opts: ToolFailureOptions = {}) {
    const baseUrl = opts.baseUrl ?? process.env.TOOLFAILURE_SERVER ?? "http://127.0.0.1:8080";
    const apiKey = opts.apiKey ?? process.env.TOOLFAILURE_KEY ?? "";
    this.hasKey = apiKey !== "";
    const bearer: Interceptor = (next) => (req) => {
      req.header.set("Authorization", `Bearer ${apiKey}`);
      return next(req);
    };
    const transport = createConnectTransport({
      baseUrl,
      httpVersion: "1.1",
      useBinaryFormat: false,
      interceptors: [bearer],
    });
    this.client = createClient(ClassifierService, transport);
    this.server = opts.server ?? "";
    this.budgetMs = opts.budgetMs ?? DEFAULT_BUDGET_MS;
    this.onMiss =
      opts.onMiss ??
      ((tool, reason) => console.error(`toolfailure: failed result of ${tool} sent without classification: ${String(reason)}`));
  }

  /**
   * Returns result with the toolFailure key merged into its _meta, or result
   * itself when it is not an error, already carries the key, or the service
   * did not answer in time. result is never modified.
   */
  async annotate(tool: string, result: CallToolResult, opts: AnnotateOptions = {}): Promise<CallToolResult> {
    if (!result.isError || (result._meta && TOOL_FAILURE_KEY in result._meta)) {
      return result;
    }
    if (!this.hasKey) {
      this.onMiss(tool, "no API key: set TOOLFAILURE_KEY");
      return result;
    }
    try {
      const traceparent = opts.requestMeta?.traceparent;
      const response = await this.client.classify(
        {
          tool,
          server: this.server,
          error: rawError(result, opts.error, opts.facts),
          toolAnnotations: annotationsOf(opts.annotations),
          traceparent: typeof traceparent === "string" && TRACEPARENT.test(traceparent) ? traceparent : "",
          occurredAt: timestampNow(),
        },
        { timeoutMs: this.budgetMs },
      );
      const failure = response.meta?.[TOOL_FAILURE_KEY];
      if (!failure || typeof failure !== "object" || Array.isArray(failure) || !failure.correlationId) {
        throw new Error("the service answered without a toolFailure object");
      }
      return { ...result, _meta: { ...result._meta, [TOOL_FAILURE_KEY]: failure } };
    } catch (err) {
      this.onMiss(tool, err);
      return result;
    }
  }

  /**
   * Wraps a tool callback of McpServer.registerTool: a thrown error becomes
   * an error result (as the SDK would make it) with the key attached, and a
   * returned error result gets the key too.
   */
  wrap<A extends unknown[], E extends { _meta?: Record<string, unknown> }>(
    tool: string,
    annotations: ToolAnnotations | undefined,
    handler: (...args: [...A, E]) => CallToolResult | Promise<CallToolResult>,
  ): (...args: [...A, E]) => Promise<CallToolResult> {
    return async (...args) => {
      const extra = args[args.length - 1] as E;
      const requestMeta = extra?._meta;
      try {
        const result = await handler(...args);
        return await this.annotate(tool, result, { annotations, requestMeta });
      } catch (error) {
        const result: CallToolResult = {
          content: [{ type: "text", text: error instanceof Error ? error.message : String(error) }],
          isError: true,
        };
        return await this.annotate(tool, result, { error, annotations, requestMeta });
      }
    };
  }
}

/** Builds the RawError the service classifies from. */
export function rawError(result: CallToolResult, error?: unknown, facts?: ErrorFacts): RawError {
  const f: ErrorFacts = { ...errorFacts(error), ...facts };
  const text = (result.content ?? [])
    .flatMap((c) => (c.type === "text" && c.text ? [c.text] : []))
    .join("\n");
  const details: JsonObject = { ...(f.details ?? {}) };
  if (result.structuredContent !== undefined) {
    details.structuredContent = result.structuredContent as JsonValue;
  }
  const raw = create(RawErrorSchema, {
    message: (f.message ?? text).slice(0, 16384),
    type: (f.type ?? "").slice(0, 256),
    httpStatus: inRange(f.httpStatus, 100, 599),
    grpcCode: inRange(f.grpcCode, 0, 16),
    jsonrpcCode: f.jsonrpcCode,
    retryAfter: (f.retryAfter ?? "").slice(0, 128),
    details: Object.keys(details).length > 0 ? fromJson(ValueSchema, details) : undefined,
    attributes: f.attributes ?? {},
  });
  if (!raw.message && !raw.type && raw.details === undefined && raw.httpStatus === undefined) {
    raw.message = "tool reported an error without a message";
  }
  return raw;
}

/**
 * Reads what Node errors and common HTTP client errors carry: an errno code
 * (ECONNRESET), a status (fetch wrappers, axios, the AWS SDK), a
 * Retry-After header.
 */
export function errorFacts(error: unknown): ErrorFacts {
  if (!(error instanceof Error)) {
    return {};
  }
  const e = error as Error & {
    code?: unknown;
    status?: unknown;
    statusCode?: unknown;
    response?: { status?: unknown; headers?: unknown };
    headers?: unknown;
    $metadata?: { httpStatusCode?: unknown };
  };
  const facts: ErrorFacts = { message: e.message };
  facts.type = typeof e.code === "string" ? e.code : e.name !== "Error" ? e.name : undefined;
  const status = [e.status, e.statusCode, e.response?.status, e.$metadata?.httpStatusCode].find(
    (s): s is number => typeof s === "number",
  );
  if (status !== undefined) {
    facts.httpStatus = status;
  }
  const retryAfter = headerOf(e.headers ?? e.response?.headers, "retry-after");
  if (retryAfter) {
    facts.retryAfter = retryAfter;
  }
  return facts;
}

function headerOf(headers: unknown, name: string): string | undefined {
  if (!headers || typeof headers !== "object") {
    return undefined;
  }
  if (typeof (headers as Headers).get === "function") {
    return (headers as Headers).get(name) ?? undefined;
  }
  for (const [k, v] of Object.entries(headers as Record<string, unknown>)) {
    if (k.toLowerCase() === name) {
      return String(v);
    }
  }
  return undefined;
}

function inRange(n: number | undefined, lo: number, hi: number): number | undefined {
  return n !== undefined && Number.isInteger(n) && n >= lo && n <= hi ? n : undefined;
}

function annotationsOf(a: ToolAnnotations | undefined) {
  if (!a) {
    return undefined;
  }
  return {
    idempotentHint: a.idempotentHint,
    readOnlyHint: a.readOnlyHint,
    destructiveHint: a.destructiveHint,
    openWorldHint: a.openWorldHint,
  };
}
