// The reporter reads four things the SDK keeps private (see sdkInternals in
// src/reporter.ts): Protocol's _requestHandlers map and _taskStore,
// McpServer's _registeredTools record and its setToolRequestHandlers
// method. This test
// names the installed SDK release when any of them moves, so that an SDK
// upgrade fails here first, with the reason, rather than in a user's server;
// and it holds instrument() to failing loudly on such an SDK.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { it } from "node:test";

import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolRequestSchema } from "@modelcontextprotocol/sdk/types.js";

import { ToolFailureReporter } from "../src/index.js";
import { sdkInternals } from "../src/reporter.js";
import { repoRoot } from "./service.js";

const sdkVersion = (JSON.parse(readFileSync(join(repoRoot, "sdk", "typescript", "node_modules", "@modelcontextprotocol", "sdk", "package.json"), "utf8")) as { version: string }).version;
const moved = (what: string) => `@modelcontextprotocol/sdk ${sdkVersion}: ${what}; adapt sdkInternals in src/reporter.ts to this release`;

function toolServer(taskStore?: InMemoryTaskStore): McpServer {
  const server = new McpServer({ name: "shape", version: "1" }, taskStore ? { capabilities: { tasks: { requests: { tools: { call: {} } } } }, taskStore } : {});
  server.registerTool("t", { description: "A tool." }, async () => ({ content: [] }));
  return server;
}

it("the SDK still keeps what instrument() reads where it reads it", () => {
  const high = toolServer() as unknown as Record<string, unknown>;
  assert.equal(typeof high.setToolRequestHandlers, "function", moved("McpServer.setToolRequestHandlers is gone"));
  const tools = high._registeredTools as Record<string, { handler?: unknown }> | undefined;
  assert.ok(tools && typeof tools === "object", moved("McpServer._registeredTools is gone"));
  assert.equal(typeof tools.t?.handler, "function", moved("a registered tool's callback is not its handler"));
  const handlers = (high.server as Record<string, unknown>)._requestHandlers;
  assert.ok(handlers instanceof Map, moved("Protocol._requestHandlers is not a Map"));
  for (const method of ["initialize", "tools/call", "tools/list"]) {
    assert.equal(typeof handlers.get(method), "function", moved(`_requestHandlers has no ${method} handler`));
  }
  assert.doesNotThrow(() => sdkInternals(toolServer()), (err: unknown) => assert.fail(moved(String(err))));

  // A task's result is kept in, and tasks/result answered from, the store
  // the server was constructed with.
  const store = new InMemoryTaskStore();
  const tasked = toolServer(store);
  const low = tasked.server as unknown as Record<string, unknown>;
  assert.equal(low._taskStore, store, moved("Protocol keeps the task store it was given elsewhere than _taskStore"));
  assert.equal(typeof (low._requestHandlers as Map<string, unknown>).get("tasks/result"), "function", moved("a server with a task store has no tasks/result handler"));
  assert.equal(sdkInternals(tasked).taskStore, store);
  assert.equal(sdkInternals(toolServer()).taskStore, undefined, "no task store, nothing to wrap");
  const plain = new Server({ name: "shape-low", version: "1" }, { capabilities: { tools: {} } });
  plain.setRequestHandler(CallToolRequestSchema, async () => ({ content: [] }));
  assert.doesNotThrow(() => sdkInternals(plain), (err: unknown) => assert.fail(moved(String(err))));
});

it("instrument() refuses, naming the tested release, an SDK without those internals", () => {
  const reporter = new ToolFailureReporter({ baseUrl: "http://127.0.0.1:9", apiKey: "tfk_unused" });
  const noTools = toolServer();
  delete (noTools as unknown as Record<string, unknown>)._registeredTools;
  assert.throws(() => reporter.instrument(noTools), /not shaped like 1\.32\.2.*McpServer keeps no _registeredTools record/);

  const noHandlers = toolServer();
  (noHandlers.server as unknown as Record<string, unknown>)._requestHandlers = {};
  assert.throws(() => reporter.instrument(noHandlers), /not shaped like 1\.32\.2.*Server keeps no _requestHandlers map/);

  const noStore = toolServer(new InMemoryTaskStore());
  delete (noStore.server as unknown as Record<string, unknown>)._taskStore;
  assert.throws(() => reporter.instrument(noStore), /not shaped like 1\.32\.2.*answers tasks\/result but keeps no _taskStore/);

  const low = new Server({ name: "shape-low", version: "1" }, { capabilities: { tools: {} } });
  (low as unknown as Record<string, unknown>)._requestHandlers = new Map();
  assert.throws(() => reporter.instrument(low), /not shaped like 1\.32\.2.*no initialize handler/);

  // A low-level Server without a tools/call handler is the caller's order, not the SDK's shape.
  assert.throws(
    () => reporter.instrument(new Server({ name: "shape-low", version: "1" }, { capabilities: { tools: {} } })),
    { message: "ToolFailureReporter.instrument: the server has no tools/call handler yet; register a tool first" },
  );
});
