/**
 * Server side: attach the toolFailure key to failed tool results through the
 * toolfailure service, with the Go middleware's rules. A failed result waits
 * for the service at most the budget (250 ms by default), covering the
 * tool-annotation lookup and the Classify call together; when the service is
 * slow, down, refuses the call or answers something unusable, the result goes
 * out exactly as it was and the miss is counted and reported. Inventing a
 * classification locally was rejected on purpose: its correlation ID would be
 * one that support cannot look up.
 */
import { create, fromJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema, timestampNow } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { TaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/interfaces.js";
import {
  CallToolRequestSchema,
  GetTaskPayloadRequestSchema,
  InitializeRequestSchema,
  type CallToolResult,
  type InitializeResult,
  type Result,
  type ToolAnnotations,
} from "@modelcontextprotocol/sdk/types.js";

import { TOOL_FAILURE_KEY, parseObject } from "./failure.js";
import { ClassifierService } from "./gen/toolfailure/v1/classifier_service_pb.js";
import { RawErrorSchema, type RawError } from "./gen/toolfailure/v1/types_pb.js";

/** How long a failed result may wait for the service: the Go middleware's DefaultBudget. */
export const DEFAULT_BUDGET_MS = 250;

/**
 * The version of the proposal the reporter implements, as it advertises it
 * under capabilities.extensions (SEP-2133): the Go middleware's
 * ExtensionVersion.
 */
export const EXTENSION_VERSION = "draft-2026-12";

/** The first MCP protocol version whose every result must carry resultType. */
const RESULT_TYPE_VERSION = "2026-07-28";

/** MCP's form of a prefixed _meta key: dot-separated labels, a slash, a name. */
const META_KEY = /^[A-Za-z]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z]([A-Za-z0-9-]*[A-Za-z0-9])?)*\/[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$/;

export interface ReporterOptions {
  /**
   * The service, e.g. http://127.0.0.1:8080. Default: TOOLFAILURE_SERVER;
   * with neither, the constructor throws, saying what to set.
   */
  baseUrl?: string;
  /** A key with the "report" scope. Default: TOOLFAILURE_KEY. */
  apiKey?: string;
  /** The label failures are reported under, to tell one tenant's servers apart. */
  server?: string;
  /** Bounds the whole detour of one failed result, in ms. Default 250. */
  budgetMs?: number;
  /**
   * The _meta key failures carry and the name the extension is advertised
   * under. Default: the proposal's, io.modelcontextprotocol/toolFailure. A
   * deployment under a vendor prefix (com.example/toolFailure) sets the same
   * name in its clients.
   */
  metaKey?: string;
  /**
   * Told about every failed result that went out without the key. Default:
   * one line on stderr. The reason never contains the key.
   */
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
  /** The tool's annotations, or a lookup that runs inside the budget. */
  annotations?: ToolAnnotations | (() => Promise<ToolAnnotations | undefined>);
  /** The tools/call request's _meta, read for the W3C traceparent. */
  requestMeta?: Record<string, unknown>;
}

/** Counts since the reporter was created, as the Go Annotator's Stats. */
export interface ReporterStats {
  /** Error results seen. */
  failed: number;
  /** Results that went out with the key attached. */
  classified: number;
  /** Results that carried the key already and were left exactly as they were. */
  alreadyTagged: number;
  /** Results that went out unchanged: the number to alert on. */
  missed: number;
  /** The part of missed where the budget ran out. */
  missedTimeout: number;
}

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

class BudgetExceeded extends Error {
  constructor(ms: number) {
    super(`the service did not answer within the ${ms} ms budget`);
    this.name = "BudgetExceeded";
  }
}

/**
 * The @modelcontextprotocol/sdk release whose internals instrument() was
 * built and tested against (the package's devDependency; the peer range
 * starts there).
 */
const TESTED_SDK_VERSION = "1.32.2";

// What instrument() needs of the SDK beyond its public API. The SDK has
// public ways to set a request handler (Server.setRequestHandler), to
// declare capabilities (registerCapabilities) and to reach a tool
// registered from now on (the RegisteredTool that registerTool returns),
// and instrument() uses those. It has none to read the handler already set
// for a method, which is the one way to see every tools/call answer,
// including the error results the SDK makes itself from a thrown error or
// rejected arguments; none to reach the tools registered before
// instrument(); none to make McpServer set its tool handlers before its
// first tool; and none to reach the task store the server was constructed
// with, through which a tool call run as a task delivers its result
// (Protocol answers tasks/result from the store, not from a handler of the
// tool). Those four are read from the private fields below, checked by
// sdkInternals, which throws at instrument() time (naming the tested
// release) rather than let a reshaped SDK leave failures silently
// unclassified; test/sdkshape.test.ts fails on such an SDK too.
type RequestHandler = (request: { method: string; params?: Record<string, unknown> } & Record<string, unknown>, extra: unknown) => Promise<unknown>;
interface ProtocolInternals {
  _requestHandlers?: unknown;
  _taskStore?: unknown;
}

/** The methods of the SDK's TaskStore interface, all of which Protocol calls. */
const TASK_STORE_METHODS = ["createTask", "getTask", "storeTaskResult", "getTaskResult", "updateTaskStatus", "listTasks"] as const;

interface RegisteredToolInternals {
  handler: unknown;
}
interface McpServerInternals {
  server?: unknown;
  setToolRequestHandlers?: unknown;
  _registeredTools?: unknown;
  registerTool?: (...args: unknown[]) => unknown;
  tool?: (...args: unknown[]) => unknown;
}

/** The parts of an instrumented server that instrument() works with. */
interface SdkInternals {
  /** The low-level Server: McpServer.server, or the server itself. */
  low: Server;
  /** Its request handlers by method, read only. */
  handlers: ReadonlyMap<string, RequestHandler>;
  /** McpServer's tools registered so far; undefined for a low-level Server. */
  registeredTools?: Record<string, RegisteredToolInternals>;
  /** McpServer's own registerTool and tool, to wrap; empty for a low-level Server. */
  registrars: ("registerTool" | "tool")[];
  /**
   * The task store the server was constructed with, when it has one (then
   * Protocol answers tasks/result from it); replaced by instrument().
   */
  taskStore?: TaskStore;
}

function sdkShapeError(what: string): Error {
  return new Error(
    `ToolFailureReporter.instrument: the installed @modelcontextprotocol/sdk is not shaped like ${TESTED_SDK_VERSION}, ` +
      `the release the reporter is tested with: ${what}. Install @modelcontextprotocol/sdk@${TESTED_SDK_VERSION} ` +
      `or a @omcp/toolfailure release tested with yours`,
  );
}

/**
 * Finds what instrument() needs of an McpServer or a low-level Server, and
 * throws, saying what is missing, when the SDK is not shaped as expected.
 * On an McpServer it makes the SDK set its tool handlers now, so that a
 * later registration does not replace the reporter's wrapper.
 */
export function sdkInternals(server: McpServer | Server): SdkInternals {
  const high = server as unknown as McpServerInternals;
  const isMcpServer = typeof high.registerTool === "function" && typeof high.server === "object" && high.server !== null;
  let registeredTools: Record<string, RegisteredToolInternals> | undefined;
  if (isMcpServer) {
    if (typeof high.setToolRequestHandlers !== "function") {
      throw sdkShapeError("McpServer has no setToolRequestHandlers method");
    }
    if (typeof high._registeredTools !== "object" || high._registeredTools === null) {
      throw sdkShapeError("McpServer keeps no _registeredTools record");
    }
    for (const [name, tool] of Object.entries(high._registeredTools)) {
      if (typeof tool !== "object" || tool === null || !("handler" in tool)) {
        throw sdkShapeError(`McpServer's registered tool ${JSON.stringify(name)} has no handler`);
      }
    }
    registeredTools = high._registeredTools as Record<string, RegisteredToolInternals>;
    high.setToolRequestHandlers.call(high);
  }
  const low = (isMcpServer ? high.server : server) as Server;
  const handlers = (low as unknown as ProtocolInternals)._requestHandlers;
  if (!(handlers instanceof Map)) {
    throw sdkShapeError("Server keeps no _requestHandlers map");
  }
  for (const method of ["setRequestHandler", "registerCapabilities"] as const) {
    if (typeof low[method] !== "function") {
      throw sdkShapeError(`Server has no ${method} method`);
    }
  }
  if (typeof handlers.get("initialize") !== "function") {
    throw sdkShapeError("Server's _requestHandlers map has no initialize handler");
  }
  // Protocol installs tasks/result exactly when it was given a task store.
  let taskStore: TaskStore | undefined;
  if (typeof handlers.get("tasks/result") === "function") {
    const store = (low as unknown as ProtocolInternals)._taskStore as Record<string, unknown> | undefined;
    if (typeof store !== "object" || store === null) {
      throw sdkShapeError("Server answers tasks/result but keeps no _taskStore");
    }
    for (const method of TASK_STORE_METHODS) {
      if (typeof store[method] !== "function") {
        throw sdkShapeError(`Server's _taskStore has no ${method} method`);
      }
    }
    taskStore = store as unknown as TaskStore;
  }
  if (typeof handlers.get("tools/call") !== "function") {
    if (isMcpServer) {
      throw sdkShapeError("McpServer set no tools/call handler in the _requestHandlers map");
    }
    throw new Error("ToolFailureReporter.instrument: the server has no tools/call handler yet; register a tool first");
  }
  return {
    low,
    handlers: handlers as ReadonlyMap<string, RequestHandler>,
    registeredTools,
    registrars: isMcpServer ? (["registerTool", "tool"] as const).filter((m) => typeof high[m] === "function") : [],
    taskStore,
  };
}

/**
 * How many tool calls run as tasks an instrumented server remembers (the
 * oldest is forgotten first), as the proxy's DefaultMaxTasks: a task whose
 * call is forgotten delivers its failure without the key.
 */
const MAX_TASKS = 1000;

/**
 * How long a tool call run as a task is remembered, as the proxy's
 * DefaultTaskExpiry: longer than a tool call runs, short enough that tasks
 * a client never came back for do not stay forever.
 */
const TASK_EXPIRY_MS = 24 * 60 * 60 * 1000;

/** What a later classification of a task's result needs of the tools/call that created it. */
interface TaskCall {
  tool: string;
  /** The call's _meta, for the trace context. */
  meta?: Record<string, unknown>;
  /** The tool's annotations, looked up only when the task fails. */
  annotations?: () => Promise<ToolAnnotations | undefined>;
  /** Set when the call created its task through the reporter's store. */
  viaStore?: boolean;
}

/** One tool call that became a task. */
interface TaskEntry {
  call: TaskCall;
  created: number;
  /** The toolFailure object, once the service gave one: every later carrier of the result gets it. */
  failure?: JsonObject;
  /** The classification in flight, so that concurrent carriers share it. */
  pending?: Promise<JsonObject | undefined>;
}

/**
 * The tool calls that became tasks on one instrumented server, by task ID:
 * none of the messages that carry a task's result names the tool, which
 * the service needs. Bounded by MAX_TASKS and TASK_EXPIRY_MS; a Map
 * iterates in insertion order, which is also expiry order.
 */
class TaskTable {
  private readonly byId = new Map<string, TaskEntry>();

  /** Remembers taskId as created by call. */
  add(taskId: string, call: TaskCall, now = Date.now()): void {
    this.expire(now);
    // A store that reuses an ID: the newer call is the one its result
    // belongs to, and it goes to the back of the expiry order.
    this.byId.delete(taskId);
    for (const oldest of this.byId.keys()) {
      if (this.byId.size < MAX_TASKS) {
        break;
      }
      this.byId.delete(oldest);
    }
    this.byId.set(taskId, { call, created: now });
  }

  get(taskId: string, now = Date.now()): TaskEntry | undefined {
    this.expire(now);
    return this.byId.get(taskId);
  }

  /** Drops a task whose result was a success: nothing about it is needed any more. */
  forget(taskId: string): void {
    this.byId.delete(taskId);
  }

  private expire(now: number): void {
    for (const [id, e] of this.byId) {
      if (now - e.created < TASK_EXPIRY_MS) {
        return;
      }
      this.byId.delete(id);
    }
  }
}

/** The task ID of a CreateTaskResult (2025-11-25: {task: {taskId}}), or undefined. */
function createdTaskId(result: unknown): string | undefined {
  const task = (result as { task?: { taskId?: unknown } } | undefined)?.task;
  return typeof task?.taskId === "string" ? task.taskId : undefined;
}

function isErrorResult(result: unknown): result is CallToolResult {
  return typeof result === "object" && result !== null && (result as { isError?: unknown }).isError === true;
}

/**
 * Wraps a tool callback so that a thrown error is remembered under the
 * request's ID and thrown on: the SDK still makes its error result. Task
 * handlers (objects) are left alone.
 */
function keepThrown(handler: unknown, thrown: Map<unknown, unknown>): unknown {
  if (typeof handler !== "function") {
    return handler;
  }
  return async (...args: unknown[]) => {
    try {
      return await handler(...args);
    } catch (error) {
      const extra = args[args.length - 1] as { requestId?: unknown } | undefined;
      thrown.set(extra?.requestId, error);
      throw error;
    }
  };
}

// A second instrument would classify every failure twice over.
const instrumented = new WeakSet<object>();

export class ToolFailureReporter {
  private readonly client: Client<typeof ClassifierService>;
  private readonly serverLabel: string;
  private readonly budgetMs: number;
  private readonly onMiss: (tool: string, reason: unknown) => void;
  private readonly hasKey: boolean;
  private readonly baseUrl: string;
  /** The _meta key and extension name; see ReporterOptions.metaKey. */
  readonly metaKey: string;
  // The protocol version each instrumented server negotiated, for what its
  // results must carry.
  private readonly negotiated = new WeakMap<object, string>();
  private readonly counts: ReporterStats = { failed: 0, classified: 0, alreadyTagged: 0, missed: 0, missedTimeout: 0 };
  // The toolFailure objects put on task results, to tell the stored copy of
  // a counted failure from a new one when the SDK hands it out again.
  private readonly taskFailures = new WeakSet<object>();
  // The first start-up check (check(), instrument() or wrap() starts it).
  // A failed result waits for it before its own budget starts, so that the
  // connection the check opens is the one the first Classify reuses.
  private startup?: Promise<void>;

  constructor(opts: ReporterOptions = {}) {
    const baseUrl = (opts.baseUrl || process.env.TOOLFAILURE_SERVER || "").trim();
    const apiKey = (opts.apiKey ?? process.env.TOOLFAILURE_KEY ?? "").trim();
    // Guessing a local address would make every failure a miss on any
    // other machine; the words are the Go annotator's (NewAnnotatorFromEnv).
    if (baseUrl === "") {
      throw new Error(
        apiKey === ""
          ? "ToolFailureReporter: the toolfailure service is not configured: set TOOLFAILURE_SERVER to its URL (try http://127.0.0.1:8080) and TOOLFAILURE_KEY to an API key with the report scope (or pass baseUrl and apiKey)"
          : "ToolFailureReporter: TOOLFAILURE_SERVER is not set: set it to the toolfailure service URL (try http://127.0.0.1:8080) (or pass baseUrl)",
      );
    }
    // A bad URL would otherwise surface as "[unknown] Invalid URL" once per
    // failure; the words are the proxy's, so one fix note serves both.
    const urlProblem = checkServiceUrl(baseUrl);
    if (urlProblem) {
      throw new Error(`ToolFailureReporter: ${urlProblem}`);
    }
    this.baseUrl = baseUrl;
    if (opts.budgetMs !== undefined && !(opts.budgetMs > 0 && Number.isFinite(opts.budgetMs))) {
      throw new RangeError(`ToolFailureReporter: budgetMs must be a positive number of milliseconds, got ${opts.budgetMs}`);
    }
    this.hasKey = apiKey !== "";
    this.metaKey = opts.metaKey ?? TOOL_FAILURE_KEY;
    if (!META_KEY.test(this.metaKey)) {
      throw new RangeError(`ToolFailureReporter: metaKey ${JSON.stringify(this.metaKey)} is not a prefixed _meta key such as com.example/toolFailure`);
    }
    const bearer: Interceptor = (next) => (req) => {
      req.header.set("Authorization", `Bearer ${apiKey}`);
      return next(req);
    };
    this.client = createClient(
      ClassifierService,
      createConnectTransport({ baseUrl, httpVersion: "1.1", useBinaryFormat: false, interceptors: [bearer] }),
    );
    this.serverLabel = opts.server ?? "";
    this.budgetMs = opts.budgetMs ?? DEFAULT_BUDGET_MS;
    this.onMiss =
      opts.onMiss ??
      ((tool, reason) => console.error(`toolfailure: failed result of ${tool} sent without classification: ${String(reason)}`));
  }

  /**
   * Makes the proxy's start-up check: one authenticated call that stores
   * nothing (Explain, which needs the same key and scope as Classify). It
   * rejects, with the proxy's words, what only a change of configuration
   * fixes: a key the service does not know or that lacks the report scope,
   * or a URL where something other than the service answers. A service
   * that cannot be reached or is slow is no reason to stop a server: that is
   * passed to warn (default: one line on stderr) and the promise resolves,
   * the reporter staying fail-open.
   */
  check(opts: { timeoutMs?: number; warn?: (message: string) => void } = {}): Promise<void> {
    const checked = this.runCheck(opts);
    this.startup ??= checked;
    return checked;
  }

  /**
   * The start-up check that instrument() (or wrap()) starts, or the first
   * one check() started: it resolves when the reporter is ready, having
   * warned if the service cannot be reached, and rejects, with the proxy's
   * words, on a configuration error. Await it to stop a server's start on
   * such an error; read before anything started a check, it starts one.
   */
  get ready(): Promise<void> {
    return this.startup ?? this.check({ timeoutMs: STARTUP_CHECK_TIMEOUT_MS });
  }

  /**
   * Starts the start-up check unless one is started already; a
   * configuration error it meets is printed at once, because nobody may
   * await ready.
   */
  private warmUp(): void {
    if (this.startup) {
      return;
    }
    this.check({ timeoutMs: STARTUP_CHECK_TIMEOUT_MS }).catch((err: unknown) => {
      console.error(
        `toolfailure: ${err instanceof Error ? err.message : String(err)}; failed tool results go out without the key until this is fixed`,
      );
    });
  }

  private async runCheck(opts: { timeoutMs?: number; warn?: (message: string) => void }): Promise<void> {
    const timeoutMs = opts.timeoutMs ?? CHECK_TIMEOUT_MS;
    const warn = opts.warn ?? ((m: string) => console.error(`toolfailure: ${m}`));
    if (!this.hasKey) {
      throw new Error("no API key: set TOOLFAILURE_KEY to an API key with the report scope (or pass apiKey)");
    }
    try {
      await this.client.explain(
        { tool: CHECK_TOOL, error: { message: "start-up check of toolfailure reporter" } },
        { timeoutMs },
      );
    } catch (err) {
      const at = ` at ${this.baseUrl}`;
      const ce = ConnectError.from(err);
      switch (ce.code) {
        case Code.Unauthenticated:
          throw new Error(`the toolfailure service${at} does not know the API key (unauthenticated): check the key`);
        case Code.PermissionDenied:
          throw new Error(
            `the API key lacks the report scope that the reporter needs (permission denied by the toolfailure service${at}): create a key with --scopes report`,
          );
        case Code.Unimplemented:
        case Code.NotFound:
          throw new Error(`the server${at} answers, but not as a toolfailure service (${ce.message}): check the URL`);
        case Code.DeadlineExceeded:
          warn(`the toolfailure service${at} did not answer within ${timeoutMs} ms`);
          return;
        case Code.Unavailable:
          warn(`cannot reach the toolfailure service${at}: ${ce.message}`);
          return;
      }
      warn(`the start-up check against the toolfailure service${at} failed: ${ce.message}`);
    }
  }

  /** A snapshot of the counters. */
  stats(): ReporterStats {
    return { ...this.counts };
  }

  /**
   * Installs the reporter on an McpServer (or the SDK's low-level Server):
   * every failed tools/call result gains the key, whether the tool callback
   * returned it, threw (the SDK turns that into an error result), or the
   * SDK refused the arguments. The tool's annotations are read from the
   * server's own tools/list, as the client sees them. Call it once, before
   * connect; an McpServer's tools are covered whether they are registered
   * before or after (a low-level Server needs its tools/call handler set
   * first). The server advertises the extension in its capabilities
   * (capabilities.extensions[metaKey] = { version }, SEP-2133), beside its
   * own extensions, so that a client can tell a key attached on purpose
   * from one that happens to be in _meta.
   *
   * It also starts the start-up check (see check and ready) unless one was
   * started already: the connection to the service is open before the
   * first failure, and a configuration error is printed at once instead of
   * once per failure. It throws, naming the SDK release it is tested with,
   * when the SDK does not keep what it needs where it expects it.
   */
  instrument(server: McpServer | Server): void {
    if (instrumented.has(server)) {
      throw new Error("ToolFailureReporter.instrument: this server is instrumented already");
    }
    const sdk = sdkInternals(server);
    const { low, handlers } = sdk;
    // The SDK keeps only the message of an error a callback throws; the
    // error itself (an errno code, an HTTP status, a Retry-After header) is
    // what the service classifies best, so each callback is wrapped to keep
    // it, under the request's ID, until the error result it became is seen.
    const thrown = new Map<unknown, unknown>();
    for (const tool of Object.values(sdk.registeredTools ?? {})) {
      tool.handler = keepThrown(tool.handler, thrown);
    }
    const high = server as unknown as McpServerInternals;
    for (const method of sdk.registrars) {
      const register = high[method]!;
      high[method] = (...args: unknown[]) => {
        // RegisteredTool.handler is the callback the SDK calls.
        const tool = register.apply(high, args) as RegisteredToolInternals;
        tool.handler = keepThrown(tool.handler, thrown);
        return tool;
      };
    }
    try {
      // The SDK's own way: merged with what the server declared, and
      // answered in initialize (and in discovery, where an SDK has it).
      low.registerCapabilities({ extensions: { [this.metaKey]: { version: EXTENSION_VERSION } } } as Parameters<Server["registerCapabilities"]>[0]);
    } catch (err) {
      throw new Error(`ToolFailureReporter.instrument: cannot advertise the extension (call instrument before connect): ${String(err)}`);
    }
    const initialize = handlers.get("initialize")!;
    low.setRequestHandler(InitializeRequestSchema, async (request, extra) => {
      const result = (await initialize(request, extra)) as InitializeResult;
      if (typeof result?.protocolVersion === "string") {
        this.negotiated.set(low, result.protocolVersion);
      }
      return result;
    });
    const call = handlers.get("tools/call")!;
    const list = handlers.get("tools/list");
    // The tools/call requests in flight, by request ID: a task the call
    // creates is created with that ID, which is how the task store learns
    // which tool the task runs.
    const calling = new Map<unknown, TaskCall>();
    const tasks = new TaskTable();
    if (sdk.taskStore) {
      this.instrumentTasks(low, handlers, sdk.taskStore, tasks, calling);
    }
    low.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const params = request.params ?? {};
      const tool = typeof params.name === "string" ? params.name : "";
      const annotations = list
        ? async () => {
            const tools = (await list({ jsonrpc: "2.0", id: extra.requestId, method: "tools/list", params: {} }, extra)) as {
              tools?: { name: string; annotations?: ToolAnnotations }[];
            };
            return tools?.tools?.find((t) => t.name === tool)?.annotations;
          }
        : undefined;
      const meta = params._meta as Record<string, unknown> | undefined;
      const callInfo: TaskCall = { tool, meta, annotations };
      calling.set(extra.requestId, callInfo);
      let result: CallToolResult;
      let error: unknown;
      try {
        result = (await call(request, extra)) as CallToolResult;
      } finally {
        error = thrown.get(extra.requestId);
        thrown.delete(extra.requestId);
        calling.delete(extra.requestId);
      }
      const taskId = createdTaskId(result);
      if (taskId !== undefined && !callInfo.viaStore) {
        // A task created in the store directly, past the reporter's
        // wrapper: its result is classified when tasks/result delivers it.
        tasks.add(taskId, callInfo);
      }
      if (!result || typeof result !== "object" || result.isError !== true) {
        return result;
      }
      // A task tool called without a task (taskSupport "optional"): the
      // SDK answers with the task's stored result, classified already.
      if (this.taskFailures.has(result._meta?.[this.metaKey] as object)) {
        return result;
      }
      const annotated = await this.annotate(tool, result, { error, annotations, requestMeta: meta });
      // The stateless protocol names its version on every request.
      const version = this.negotiated.get(low) ?? meta?.["io.modelcontextprotocol/protocolVersion"];
      return annotated !== result && typeof version === "string" ? withResultType(annotated, version) : annotated;
    });
    instrumented.add(server);
    // Connection set-up and configuration errors belong to start-up, not to
    // the first failure's budget.
    this.warmUp();
  }

  /**
   * Makes a tool call run as a task carry the key in its result, as a direct
   * call would. The SDK's Protocol keeps a task's CallToolResult in the
   * task store the server was constructed with and answers tasks/result
   * from it (and tools/call, for a task tool called without a task), so the
   * store is wrapped: a failed result is classified when it is stored, and
   * every later delivery is the stored copy with the same correlation ID.
   * A result put into the store past the wrapper (a tool that keeps its own
   * reference to the store) is classified in the answer to tasks/result
   * instead, once, the object reused for every later answer.
   */
  private instrumentTasks(
    low: Server,
    handlers: ReadonlyMap<string, RequestHandler>,
    store: TaskStore,
    tasks: TaskTable,
    calling: ReadonlyMap<unknown, TaskCall>,
  ): void {
    const reporting: TaskStore = {
      createTask: async (taskParams, requestId, request, sessionId) => {
        const task = await store.createTask(taskParams, requestId, request, sessionId);
        if (request.method === "tools/call") {
          const params = (request.params ?? {}) as { name?: unknown; _meta?: Record<string, unknown> };
          // The call in flight has the annotations lookup; the request
          // alone names the tool and its trace context.
          const call = calling.get(requestId) ?? { tool: typeof params.name === "string" ? params.name : "", meta: params._meta };
          call.viaStore = true;
          tasks.add(task.taskId, call);
        }
        return task;
      },
      getTask: (taskId, sessionId) => store.getTask(taskId, sessionId),
      storeTaskResult: async (taskId, status, result, sessionId) => {
        const entry = tasks.get(taskId);
        if (entry && isErrorResult(result)) {
          result = await this.annotateTaskResult(entry, result);
        } else if (entry) {
          tasks.forget(taskId);
        }
        return store.storeTaskResult(taskId, status, result, sessionId);
      },
      getTaskResult: (taskId, sessionId) => store.getTaskResult(taskId, sessionId),
      updateTaskStatus: (taskId, status, statusMessage, sessionId) => store.updateTaskStatus(taskId, status, statusMessage, sessionId),
      listTasks: (cursor, sessionId) => store.listTasks(cursor, sessionId),
    };
    // Protocol reads the field on every request, so the wrapper serves
    // every task created from now on.
    (low as unknown as ProtocolInternals)._taskStore = reporting;

    const taskResult = handlers.get("tasks/result")!;
    const answer = async (request: { method: string; params: { taskId: string } }, extra: unknown): Promise<Result> => {
      const result = (await taskResult(request as Parameters<RequestHandler>[0], extra)) as Result;
      const entry = tasks.get(request.params.taskId);
      if (!entry) {
        return result;
      }
      if (!isErrorResult(result)) {
        tasks.forget(request.params.taskId);
        return result;
      }
      if (result._meta && Object.hasOwn(result._meta, this.metaKey)) {
        // Stored through the wrapper (or by a tool that wrote its own): the
        // stored copy, counted when it was stored.
        return result;
      }
      return this.annotateTaskResult(entry, result);
    };
    try {
      low.setRequestHandler(GetTaskPayloadRequestSchema, answer);
    } catch {
      // The SDK refuses a tasks/result handler on a server without the
      // tasks capability (its own was set before capabilities existed).
      // Such a server creates no task for a client, so only the tools/call
      // it answers from a task, which the store covers, is left.
    }
  }

  /**
   * Adds the key to a failed result of task entry, classifying the failure
   * the first time and reusing that object for every later carrier of the
   * same result, so that a result delivered ten times is one record with
   * one correlation ID. A missed classification is tried again by the next
   * carrier: nothing with a key went out yet.
   */
  private async annotateTaskResult<R extends CallToolResult>(entry: TaskEntry, result: R): Promise<R> {
    if (!entry.failure) {
      entry.pending ??= this.annotate(entry.call.tool, result, { annotations: entry.call.annotations, requestMeta: entry.call.meta }).then(
        (annotated) => (annotated !== result ? (annotated._meta?.[this.metaKey] as JsonObject) : undefined),
      );
      const failure = await entry.pending;
      if (!failure) {
        // A miss (counted by annotate), or a result that carried its own key.
        entry.pending = undefined;
        return result;
      }
      entry.failure = failure;
      this.taskFailures.add(failure);
    }
    return { ...result, _meta: { ...result._meta, [this.metaKey]: entry.failure } };
  }

  /**
   * Wraps one tool callback of McpServer.registerTool: a thrown error becomes
   * an error result (as the SDK would make it) with the key attached, and a
   * returned error result gets the key too.
   */
  wrap<A extends unknown[], E extends { _meta?: Record<string, unknown> }>(
    tool: string,
    annotations: ToolAnnotations | undefined,
    handler: (...args: [...A, E]) => CallToolResult | Promise<CallToolResult>,
  ): (...args: [...A, E]) => Promise<CallToolResult> {
    this.warmUp();
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

  /**
   * Returns result with the toolFailure key merged into its _meta (every
   * other key kept), or result itself when it is not an error, already
   * carries the key (well-formed or not: its correlation ID is the one the
   * server's logs know), or the service did not answer usably within the
   * budget. result is never modified, and this never throws.
   */
  async annotate(tool: string, result: CallToolResult, opts: AnnotateOptions = {}): Promise<CallToolResult> {
    if (!result || result.isError !== true) {
      return result;
    }
    this.counts.failed++;
    if (result._meta && Object.hasOwn(result._meta, this.metaKey)) {
      this.counts.alreadyTagged++;
      return result;
    }
    if (!this.hasKey) {
      this.miss(tool, new Error("no API key: set TOOLFAILURE_KEY"));
      return result;
    }
    if (this.startup) {
      // Outside the budget: bounded by the check's own timeout, and only
      // the failures that come while it is in flight wait.
      await this.startup.catch(() => undefined);
    }
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new BudgetExceeded(this.budgetMs));
      }, this.budgetMs);
    });
    try {
      const failure = await Promise.race([this.classify(tool, result, opts, controller.signal), budget]);
      this.counts.classified++;
      return { ...result, _meta: { ...result._meta, [this.metaKey]: failure } };
    } catch (err) {
      this.miss(tool, err);
      return result;
    } finally {
      clearTimeout(timer);
    }
  }

  private async classify(tool: string, result: CallToolResult, opts: AnnotateOptions, signal: AbortSignal): Promise<JsonObject> {
    const traceparent = opts.requestMeta?.traceparent;
    let annotations: ToolAnnotations | undefined;
    if (typeof opts.annotations === "function") {
      // A failed lookup costs the annotations, not the classification.
      annotations = await opts.annotations().catch(() => undefined);
    } else {
      annotations = opts.annotations;
    }
    const response = await this.client.classify(
      {
        tool,
        server: this.serverLabel,
        error: rawError(result, opts.error, opts.facts),
        toolAnnotations: annotationsOf(annotations),
        traceparent: typeof traceparent === "string" && TRACEPARENT.test(traceparent) ? traceparent : "",
        occurredAt: timestampNow(),
      },
      { signal },
    );
    return metaObject(response.meta?.[TOOL_FAILURE_KEY]);
  }

  private miss(tool: string, err: unknown) {
    this.counts.missed++;
    if (err instanceof BudgetExceeded) {
      this.counts.missedTimeout++;
    }
    this.onMiss(tool, err);
  }
}

/**
 * A result the reporter wrote carries resultType "complete" when the
 * negotiated protocol version requires it (2026-07-28 on: "Servers
 * implementing this protocol version MUST include this field"); under an
 * earlier version it is left as the SDK makes it.
 */
export function withResultType<R extends object>(result: R, protocolVersion: string): R {
  if (protocolVersion < RESULT_TYPE_VERSION || Object.hasOwn(result, "resultType")) {
    return result;
  }
  return { ...result, resultType: "complete" };
}

/**
 * Takes the toolFailure object out of the service's answer and refuses one
 * the proposal's clients could not use, so that a service bug becomes a
 * counted miss, not a malformed result. Integral numbers stay integers
 * (retryNotBefore must be a JSON integer).
 */
function metaObject(v: unknown): JsonObject {
  if (!v || typeof v !== "object" || Array.isArray(v)) {
    throw new Error(`the service answered without a ${TOOL_FAILURE_KEY} object`);
  }
  parseObject(v);
  return v as JsonObject;
}

/** How long check() waits by default: the proxy's checkTimeout. */
const CHECK_TIMEOUT_MS = 10_000;

/**
 * How long the check that instrument() starts waits: the Go annotator's
 * startupCheckTimeout, shorter than the proxy's because a failure that
 * comes meanwhile waits for it.
 */
const STARTUP_CHECK_TIMEOUT_MS = 5_000;

/** The tool name of the start-up check, so that a rule author who sees it in a trace knows where it came from. */
const CHECK_TOOL = "toolfailure-reporter-startup-check";

/**
 * What is wrong with a service URL, in the proxy's words, or undefined:
 * "127.0.0.1:8080" parses as a URL with the scheme "127.0.0.1", so the
 * scheme is checked by hand.
 */
function checkServiceUrl(raw: string): string | undefined {
  const retry = `does not start with http:// or https:// (try http://${raw})`;
  if (!raw.includes("://")) {
    return `the toolfailure service URL ${JSON.stringify(raw)} ${retry}`;
  }
  let u: URL;
  try {
    u = new URL(raw);
  } catch (err) {
    return `the toolfailure service URL ${JSON.stringify(raw)} is not a URL: ${err instanceof Error ? err.message : String(err)}`;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    return `the toolfailure service URL ${JSON.stringify(raw)} ${retry}`;
  }
  if (u.host === "") {
    return `the toolfailure service URL ${JSON.stringify(raw)} names no host`;
  }
  return undefined;
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

/** How many causes errorFacts follows: enough for fetch's wrapper and a library's own, never a cycle. */
const MAX_CAUSES = 4;

/**
 * Reads what Node errors and common HTTP client errors carry: an errno code
 * (ECONNRESET), a status (fetch wrappers, axios, the AWS SDK), a
 * Retry-After header. It follows error.cause a few steps, because Node's
 * fetch throws a bare "fetch failed" and keeps the errno (ECONNREFUSED,
 * ENOTFOUND) on its cause: without it the service would classify the
 * wrapper's words, not what went wrong.
 */
export function errorFacts(error: unknown): ErrorFacts {
  if (!(error instanceof Error)) {
    return {};
  }
  const chain: Error[] = [];
  for (let e: unknown = error; e instanceof Error && chain.length <= MAX_CAUSES && !chain.includes(e); e = e.cause) {
    chain.push(e);
  }
  type Facty = Error & {
    code?: unknown;
    status?: unknown;
    statusCode?: unknown;
    response?: { status?: unknown; headers?: unknown };
    headers?: unknown;
    $metadata?: { httpStatusCode?: unknown };
  };
  const errs = chain as Facty[];
  // Messages joined as Go joins wrapped errors, skipping a cause whose text
  // the wrapper already repeats.
  let message = errs[0]!.message;
  for (const e of errs.slice(1)) {
    if (e.message && !message.includes(e.message)) {
      message += `: ${e.message}`;
    }
  }
  const facts: ErrorFacts = { message };
  // An errno anywhere in the chain says more than the wrapper's type.
  const code = errs.map((e) => e.code).find((c): c is string => typeof c === "string" && c !== "");
  const name = errs.map((e) => e.name).find((n) => n && n !== "Error");
  facts.type = code ?? name;
  const status = errs
    .flatMap((e) => [e.status, e.statusCode, e.response?.status, e.$metadata?.httpStatusCode])
    .find((s): s is number => typeof s === "number");
  if (status !== undefined) {
    facts.httpStatus = status;
  }
  const retryAfter = errs.map((e) => headerOf(e.headers ?? e.response?.headers, "retry-after")).find((v) => v);
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
  // The Go middleware sends idempotentHint and readOnlyHint always (false is
  // the specification's default); the same here, so that both report alike.
  return {
    idempotentHint: a.idempotentHint ?? false,
    readOnlyHint: a.readOnlyHint ?? false,
    destructiveHint: a.destructiveHint,
    openWorldHint: a.openWorldHint,
  };
}
