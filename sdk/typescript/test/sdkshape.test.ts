// The reporter reads three things the SDK keeps private (see sdkInternals in
// src/reporter.ts): Protocol's _requestHandlers map, McpServer's
// _registeredTools record and its setToolRequestHandlers method. This test
// names the installed SDK release when any of them moves, so that an SDK
// upgrade fails here first, with the reason, rather than in a user's server;
// and it holds instrument() to failing loudly on such an SDK.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { it } from "node:test";

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolRequestSchema } from "@modelcontextprotocol/sdk/types.js";

import { ToolFailureReporter } from "../src/index.js";
import { sdkInternals } from "../src/reporter.js";
import { repoRoot } from "./service.js";

const sdkVersion = (JSON.parse(readFileSync(join(repoRoot, "sdk", "typescript", "node_modules", "@modelcontextprotocol", "sdk", "package.json"), "utf8")) as { version: string }).version;
const moved = (what: string) => `@modelcontextprotocol/sdk ${sdkVersion}: ${what}; adapt sdkInternals in src/reporter.ts to this release`;

function toolServer(): McpServer {
  const server = new McpServer({ name: "shape", version: "1" });
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
  const low = new Server({ name: "shape-low", version: "1" }, { capabilities: { tools: {} } });
  low.setRequestHandler(CallToolRequestSchema, async () => ({ content: [] }));
  assert.doesNotThrow(() => sdkInternals(low), (err: unknown) => assert.fail(moved(String(err))));
});

it("instrument() refuses, naming the tested release, an SDK without those internals", () => {
  const reporter = new ToolFailureReporter({ baseUrl: "http://127.0.0.1:9", apiKey: "tfk_unused" });
  const noTools = toolServer();
  delete (noTools as unknown as Record<string, unknown>)._registeredTools;
  assert.throws(() => reporter.instrument(noTools), /not shaped like 1\.32\.2.*McpServer keeps no _registeredTools record/);

  const noHandlers = toolServer();
  (noHandlers.server as unknown as Record<string, unknown>)._requestHandlers = {};
  assert.throws(() => reporter.instrument(noHandlers), /not shaped like 1\.32\.2.*Server keeps no _requestHandlers map/);

  const low = new Server({ name: "shape-low", version: "1" }, { capabilities: { tools: {} } });
  (low as unknown as Record<string, unknown>)._requestHandlers = new Map();
  assert.throws(() => reporter.instrument(low), /not shaped like 1\.32\.2.*no initialize handler/);

  // A low-level Server without a tools/call handler is the caller's order, not the SDK's shape.
  assert.throws(
    () => reporter.instrument(new Server({ name: "shape-low", version: "1" }, { capabilities: { tools: {} } })),
    { message: "ToolFailureReporter.instrument: the server has no tools/call handler yet; register a tool first" },
  );
});
