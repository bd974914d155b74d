// The example servers, through the SDK's own client over an in-memory pair.
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  McpError,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";

import { runAgent } from "../src/agent.js";
import { createPlainServer } from "../src/plain-server.js";
import { createExampleServer } from "../src/server.js";
import { TOOL_FAILURE_KEY } from "@omcp/toolfailure";
import { CORRELATION_ID } from "./helpers.js";

const needsService =
  !process.env.TOOLFAILURE_SERVER || !process.env.TOOLFAILURE_KEY ? "set TOOLFAILURE_SERVER and TOOLFAILURE_KEY to a running service" : false;

// A generous budget: the machine running the tests is shared, and a slow
// run must not turn into a classification miss (the budget itself is
// tested in sdk/typescript).
const budgetMs = 10_000;

async function connect(server: { connect(t: InMemoryTransport): Promise<void> }, client = new Client({ name: "test", version: "1" })) {
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await server.connect(serverEnd);
  await client.connect(clientEnd);
  return client;
}

describe("example server (helper inside)", { skip: needsService }, () => {
  it("attaches a toolFailure to every failure and nothing to successes", async () => {
    const client = await connect(createExampleServer({ budgetMs }));
    try {
      const cases = [
        { tool: "send_email", args: { to: "a@example.com" }, cls: "reliability" },
        { tool: "search", args: { q: "x" }, cls: "reliability", retryable: true },
        { tool: "get_repo", args: { name: "acme/nope" }, cls: "capability", code: "resource_not_found" },
        { tool: "deploy", args: {}, cls: "governance", code: "user_action_required" },
      ];
      for (const c of cases) {
        const res = (await client.callTool({ name: c.tool, arguments: c.args })) as CallToolResult;
        assert.equal(res.isError, true, c.tool);
        const tf = res._meta?.[TOOL_FAILURE_KEY] as Record<string, unknown> | undefined;
        assert.ok(tf, `${c.tool}: no toolFailure in ${JSON.stringify(res)}`);
        assert.equal(tf.class, c.cls, `${c.tool}: ${JSON.stringify(tf)}`);
        if (c.code) assert.equal(tf.code, c.code, c.tool);
        if (c.retryable) assert.equal(tf.retryable, true, c.tool);
        assert.match(String(tf.correlationId), CORRELATION_ID);
      }
      const deploy = (await client.callTool({ name: "deploy", arguments: {} })) as CallToolResult;
      assert.equal(deploy._meta?.["com.example/requestId"], "req-42", "the server's own _meta keys survive");

      const ok = (await client.callTool({ name: "get_weather", arguments: { city: "Oslo" } })) as CallToolResult;
      assert.deepEqual(ok, {
        content: [{ type: "text", text: "Oslo: 21 °C, sunny" }],
        structuredContent: { city: "Oslo", celsius: 21 },
        _meta: { "com.example/source": "station-7" },
      });
    } finally {
      await client.close();
    }
  });
});

describe("agent (callToolWithPolicy) against the example server", { skip: needsService }, () => {
  it("decides per class: retries the overloaded search, stops or asks the user otherwise", async () => {
    const reports = new Map((await runAgent({ budgetMs })).map((r) => [r.tool, r]));
    assert.equal(reports.get("get_weather")?.action, "none");
    const search = reports.get("search")!;
    assert.equal(search.class, "reliability");
    assert.equal(search.action, "stopped", "the search backend never recovers; the retries stop at the bound");
    assert.ok(search.attempts > 1, `search: ${search.attempts} attempts (${search.reason})`);
    assert.equal(reports.get("send_email")?.attempts, 1, "send_email is not idempotent");
    assert.equal(reports.get("get_repo")?.class, "capability");
    assert.equal(reports.get("deploy")?.action, "ask_user");
    for (const r of reports.values()) {
      for (const id of r.correlationIds) assert.match(id, CORRELATION_ID);
    }
  });
});

describe("plain server (knows nothing about toolFailure)", () => {
  it("fails without the key, and carries progress, sampling, elicitation and protocol errors", async () => {
    const client = new Client({ name: "test", version: "1" }, { capabilities: { sampling: {}, elicitation: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: "assistant",
      model: "m",
      content: { type: "text", text: "hello back" },
    }));
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { color: "teal" } }));
    await connect(createPlainServer(), client);
    try {
      const failed = (await client.callTool({ name: "search", arguments: {} })) as CallToolResult;
      assert.equal(failed.isError, true);
      assert.equal(failed._meta, undefined);

      const progress: number[] = [];
      await client.callTool({ name: "count", arguments: {} }, undefined, { onprogress: (p) => progress.push(p.progress) });
      assert.deepEqual(progress, [1, 2, 3]);

      const asked = (await client.callTool({ name: "ask", arguments: {} })) as CallToolResult;
      assert.match(JSON.stringify(asked.content), /model: hello back; user: accept .*teal/);

      await assert.rejects(client.callTool({ name: "rate_limited", arguments: {} }), (err: unknown) => err instanceof McpError && err.code === -32001);
    } finally {
      await client.close();
    }
  });
});
