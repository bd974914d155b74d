// Tool calls run as tasks (protocol 2025-11-25, the SDK's experimental
// tasks): the CallToolResult is kept in the server's task store and
// delivered in the answer to tasks/result, past the tools/call handler. The
// SDK's own McpServer, InMemoryTaskStore and Client, against a live
// toolfailure service.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolResultSchema, CreateTaskResultSchema, RELATED_TASK_META_KEY, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";

import { FailureService } from "../src/gen/toolfailure/v1/failure_service_pb.js";
import { TOOL_FAILURE_KEY, ToolFailureReporter, parseToolFailure } from "../src/index.js";
import { CORRELATION_ID, startService, type Service } from "./service.js";

const OWN_META = "com.example/requestId";

const failed = (text: string): CallToolResult => ({ content: [{ type: "text", text }], isError: true, _meta: { [OWN_META]: "req-7" } });
const succeeded = (): CallToolResult => ({ content: [{ type: "text", text: "exported" }], _meta: { "com.example/source": "station-7" } });

/**
 * An McpServer whose tools run as tasks, each ending the way real work
 * does: after the task handle is answered. "export" fails and "report"
 * succeeds through the store the SDK hands the tool; "legacy" fails
 * through its own reference to the store, past anything the server
 * wraps; "maybe" fails and may be called without a task.
 */
function taskServer(reporter: ToolFailureReporter): { server: McpServer; store: InMemoryTaskStore } {
  const store = new InMemoryTaskStore();
  const server = new McpServer(
    { name: "ts-task-tools", version: "1.0.0" },
    { capabilities: { tasks: { requests: { tools: { call: {} } } } }, taskStore: store },
  );
  const viaExtra = (name: string, result: () => CallToolResult, taskSupport: "required" | "optional" = "required") =>
    server.experimental.tasks.registerToolTask(
      name,
      // The annotations reach the service only through tools/list: a
      // retryable 503 shows that the task's classification read them.
      { description: `${name}, as a task`, annotations: { readOnlyHint: true, idempotentHint: true }, execution: { taskSupport } },
      {
        async createTask({ taskStore, taskRequestedTtl }) {
          // A short poll interval: tasks/result, and tools/call of "maybe"
          // without a task, poll the store at it until the task ends.
          const task = await taskStore.createTask({ ttl: taskRequestedTtl ?? 60_000, pollInterval: 10 });
          setImmediate(() => void taskStore.storeTaskResult(task.taskId, "completed", result()).catch((e: unknown) => console.error(e)));
          return { task };
        },
        getTask: ({ taskId, taskStore }) => taskStore.getTask(taskId),
        getTaskResult: async ({ taskId, taskStore }) => (await taskStore.getTaskResult(taskId)) as CallToolResult,
      },
    );
  viaExtra("export", () => failed("503 Service Unavailable: the export backend is overloaded"));
  viaExtra("report", succeeded);
  viaExtra("maybe", () => failed("503 Service Unavailable: the export backend is overloaded"), "optional");
  server.experimental.tasks.registerToolTask(
    "legacy",
    { description: "legacy, as a task, through its own reference to the store", execution: { taskSupport: "required" } },
    {
      async createTask({ requestId, sessionId }) {
        const task = await store.createTask({ ttl: 60_000, pollInterval: 10 }, requestId, { method: "tools/call", params: { name: "legacy" } }, sessionId);
        setImmediate(
          () =>
            void store
              .storeTaskResult(task.taskId, "completed", failed("403 Forbidden: the exports.run permission is required."), sessionId)
              .catch((e: unknown) => console.error(e)),
        );
        return { task };
      },
      getTask: ({ taskId, taskStore }) => taskStore.getTask(taskId),
      getTaskResult: async ({ taskId, taskStore }) => (await taskStore.getTaskResult(taskId)) as CallToolResult,
    },
  );
  reporter.instrument(server);
  return { server, store };
}

describe("tool calls run as tasks, with a live service", () => {
  let svc: Service;
  before(async () => {
    svc = await startService();
  });
  after(async () => {
    await svc?.stop();
  });
  const lookup = (id: string) =>
    createClient(
      FailureService,
      createConnectTransport({
        baseUrl: svc.url,
        httpVersion: "1.1",
        interceptors: [(next) => (req) => (req.header.set("Authorization", `Bearer ${svc.lookupKey}`), next(req))],
      }),
    ).getFailure({ correlationId: id });

  async function connect(server: McpServer): Promise<Client> {
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    await server.connect(serverEnd);
    const client = new Client({ name: "test", version: "1" });
    await client.connect(clientEnd);
    return client;
  }

  /** tools/call as a task; returns the task's ID. */
  async function callAsTask(client: Client, name: string, meta?: Record<string, unknown>): Promise<string> {
    const created = await client.request(
      { method: "tools/call", params: { name, arguments: {}, ...(meta ? { _meta: meta } : {}) } },
      CreateTaskResultSchema,
      { task: { ttl: 60_000 } },
    );
    return created.task.taskId;
  }

  /** tasks/result: it waits for the task to end, so no test sleeps. */
  const taskResult = (client: Client, taskId: string) => client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema) as Promise<CallToolResult>;

  it("a failed result a task stores carries the key, once, in every tasks/result and in the store", async () => {
    const reporter = new ToolFailureReporter({ baseUrl: svc.url, apiKey: svc.reportKey, server: "ts-tasks", budgetMs: 5000 });
    const { server, store } = taskServer(reporter);
    const client = await connect(server);
    try {
      const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
      const taskId = await callAsTask(client, "export", { traceparent: `00-${traceId}-00f067aa0ba902b7-01` });
      const first = await taskResult(client, taskId);
      const second = await taskResult(client, taskId);

      const parsed = parseToolFailure(first);
      assert.ok(parsed.present && "failure" in parsed, `no well-formed key in ${JSON.stringify(first)}`);
      const tf = first._meta?.[TOOL_FAILURE_KEY] as Record<string, unknown>;
      assert.match(String(tf.correlationId), CORRELATION_ID);
      assert.equal(tf.class, "reliability");
      assert.equal(tf.retryable, true, "an idempotent tool's 503 is retryable: the annotations were read");
      // The result as a direct failure would be, beside the SDK's own
      // related-task key: nothing on the task, the tool's _meta kept.
      assert.deepEqual(first, {
        content: [{ type: "text", text: "503 Service Unavailable: the export backend is overloaded" }],
        isError: true,
        _meta: { [OWN_META]: "req-7", [TOOL_FAILURE_KEY]: tf, [RELATED_TASK_META_KEY]: { taskId } },
      });
      assert.deepEqual(second, first, "a second tasks/result gives the same correlation ID");
      assert.deepEqual((await store.getTaskResult(taskId))._meta?.[TOOL_FAILURE_KEY], tf, "the stored result carries the key");
      assert.equal((await client.experimental.tasks.getTask(taskId)).status, "completed", "a tool's failure is not the task's");

      const rec = await lookup(String(tf.correlationId));
      assert.equal(rec.failure?.tool, "export");
      assert.equal(rec.failure?.server, "ts-tasks");
      assert.equal(rec.failure?.traceId, traceId, "the trace context comes from the tools/call that created the task");
      assert.deepEqual(reporter.stats(), { failed: 1, classified: 1, alreadyTagged: 0, missed: 0, missedTimeout: 0 });
    } finally {
      await client.close();
      // The store's TTL timers would keep the test process alive for a minute.
      store.cleanup();
    }
  });

  it("a successful task result is untouched", async () => {
    const reporter = new ToolFailureReporter({ baseUrl: svc.url, apiKey: svc.reportKey, budgetMs: 5000 });
    const { server, store } = taskServer(reporter);
    const client = await connect(server);
    try {
      const taskId = await callAsTask(client, "report");
      assert.deepEqual(await taskResult(client, taskId), { ...succeeded(), _meta: { ...succeeded()._meta, [RELATED_TASK_META_KEY]: { taskId } } });
      assert.deepEqual(await store.getTaskResult(taskId), succeeded());
      assert.deepEqual(reporter.stats(), { failed: 0, classified: 0, alreadyTagged: 0, missed: 0, missedTimeout: 0 });
    } finally {
      await client.close();
      // The store's TTL timers would keep the test process alive for a minute.
      store.cleanup();
    }
  });

  it("a failed result stored past the reporter is classified in tasks/result, once", async () => {
    const reporter = new ToolFailureReporter({ baseUrl: svc.url, apiKey: svc.reportKey, server: "ts-tasks", budgetMs: 5000 });
    const { server, store } = taskServer(reporter);
    const client = await connect(server);
    try {
      const taskId = await callAsTask(client, "legacy");
      const [first, concurrent] = await Promise.all([taskResult(client, taskId), taskResult(client, taskId)]);
      const tf = first._meta?.[TOOL_FAILURE_KEY] as Record<string, unknown> | undefined;
      assert.match(String(tf?.correlationId), CORRELATION_ID, JSON.stringify(first));
      assert.equal(tf?.class, "governance");
      assert.deepEqual(concurrent, first, "concurrent tasks/result share one classification");
      assert.deepEqual(await taskResult(client, taskId), first, "a later tasks/result gives the same correlation ID");
      assert.deepEqual(first._meta?.[OWN_META], "req-7");
      assert.equal((await store.getTaskResult(taskId))._meta?.[TOOL_FAILURE_KEY], undefined, "the store holds what the tool stored");
      assert.equal((await lookup(String(tf?.correlationId))).failure?.tool, "legacy");
      assert.deepEqual(reporter.stats(), { failed: 1, classified: 1, alreadyTagged: 0, missed: 0, missedTimeout: 0 });
    } finally {
      await client.close();
      // The store's TTL timers would keep the test process alive for a minute.
      store.cleanup();
    }
  });

  it("a task tool called without a task answers its stored, classified result, counted once", async () => {
    const reporter = new ToolFailureReporter({ baseUrl: svc.url, apiKey: svc.reportKey, budgetMs: 5000 });
    const { server, store } = taskServer(reporter);
    const client = await connect(server);
    try {
      // taskSupport "optional" without params.task: the SDK runs the task
      // and polls the store, and tools/call answers the stored result.
      const res = (await client.callTool({ name: "maybe", arguments: {} })) as CallToolResult;
      const tf = res._meta?.[TOOL_FAILURE_KEY] as Record<string, unknown> | undefined;
      assert.match(String(tf?.correlationId), CORRELATION_ID, JSON.stringify(res));
      assert.equal((await lookup(String(tf?.correlationId))).failure?.tool, "maybe");
      assert.deepEqual(reporter.stats(), { failed: 1, classified: 1, alreadyTagged: 0, missed: 0, missedTimeout: 0 });
    } finally {
      await client.close();
      // The store's TTL timers would keep the test process alive for a minute.
      store.cleanup();
    }
  });
});
