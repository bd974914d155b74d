// callToolWithPolicy on the real clock and at its edges: an abort during a
// real wait, the tool-list cache, bad options. The decisions themselves are
// in the shared vectors (vectors.test.ts).
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";

import { TOOL_FAILURE_KEY, callToolWithPolicy } from "../src/index.js";

/** A server whose tool t always fails retryably, retryNotBefore 10 s out; it pages its tool list. */
async function setup(tools: Tool[] = [{ name: "t", inputSchema: { type: "object" }, annotations: { idempotentHint: true } }]) {
  const server = new Server({ name: "edge", version: "1" }, { capabilities: { tools: {} } });
  let lists = 0;
  server.setRequestHandler(ListToolsRequestSchema, async (req) => {
    lists++;
    // One tool per page, to exercise the cursor.
    const i = req.params?.cursor ? Number(req.params.cursor) : 0;
    return { tools: tools.slice(i, i + 1), ...(i + 1 < tools.length ? { nextCursor: String(i + 1) } : {}) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (): Promise<CallToolResult> => ({
    content: [{ type: "text", text: "busy" }],
    isError: true,
    _meta: { [TOOL_FAILURE_KEY]: { class: "reliability", code: "retryable_transient_error", retryable: true, retryNotBefore: Date.now() + 10_000, correlationId: "tf_0000000000000000000000000Z" } },
  }));
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await server.connect(serverEnd);
  const client = new Client({ name: "edge-client", version: "1" });
  await client.connect(clientEnd);
  return { client, lists: () => lists };
}

describe("callToolWithPolicy", () => {
  it("stops at once when the signal aborts during a real wait", async () => {
    const { client } = await setup();
    try {
      const controller = new AbortController();
      const start = Date.now();
      const { result, report, error } = await callToolWithPolicy(client, { name: "t", arguments: {} }, {
        trusted: true,
        signal: controller.signal,
        onRetry: () => controller.abort(new Error("user cancelled")),
      });
      const elapsed = Date.now() - start;
      assert.ok(elapsed < 2000, `stopped after ${elapsed} ms of a 10 s wait`);
      assert.equal(report.action, "stopped");
      assert.equal(report.reason, "context ended while waiting to retry");
      assert.equal(report.attempts, 1);
      assert.equal((error as Error).message, "user cancelled");
      assert.equal(result?.isError, true, "the last result comes back");
    } finally {
      await client.close();
    }
  });

  it("reads the tool list once, through every page, and again for a tool it does not know", async () => {
    const tools: Tool[] = [
      { name: "a", inputSchema: { type: "object" } },
      { name: "t", inputSchema: { type: "object" }, annotations: { idempotentHint: true } },
    ];
    const { client, lists } = await setup(tools);
    try {
      const opts = { trusted: true, maxAttempts: 1 };
      const first = await callToolWithPolicy(client, { name: "t", arguments: {} }, opts);
      assert.equal(first.report.idempotent, true, "t is on the second page");
      assert.equal(lists(), 2);
      await callToolWithPolicy(client, { name: "t", arguments: {} }, opts);
      assert.equal(lists(), 2, "cached");
      const unknown = await callToolWithPolicy(client, { name: "gone", arguments: {} }, opts);
      assert.equal(unknown.report.idempotent, false);
      assert.equal(lists(), 4, "a tool not in the cache makes it read the list again");
    } finally {
      await client.close();
    }
  });

  it("refuses options out of range before calling anything", async () => {
    const { client } = await setup();
    try {
      for (const bad of [{ maxAttempts: -1 }, { maxElapsedMs: Number.NaN }, { jitter: 1.5 }, { initialBackoffMs: -5 }]) {
        await assert.rejects(callToolWithPolicy(client, { name: "t", arguments: {} }, bad), RangeError, JSON.stringify(bad));
      }
    } finally {
      await client.close();
    }
  });
});
