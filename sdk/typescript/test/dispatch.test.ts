// callToolWithPolicy on the real clock and at its edges: an abort during a
// real wait, the tool-list cache, bad options, the retry budget across
// calls, and a transport failure re-issued as a retry. The decisions
// themselves are in the shared vectors (vectors.test.ts).
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type JSONRPCMessage, type Tool } from "@modelcontextprotocol/sdk/types.js";

import { RetryBudget, retryBudgetOf, type Clock } from "../src/dispatch.js";
import { TOOL_FAILURE_KEY, callToolWithPolicy } from "../src/index.js";

const advertised = { extensions: { [TOOL_FAILURE_KEY]: { version: "draft-2026-12" } } };

/** A clock whose waits pass at once, by exactly the wait. */
function virtualClock(): Clock & { waited: number[] } {
  let t = 1_764_460_000_000;
  const waited: number[] = [];
  return {
    waited,
    now: () => t,
    sleep: async (ms) => {
      waited.push(ms);
      t += ms;
    },
  };
}

/**
 * A server whose tool t runs (counted) and answers from answers, in order,
 * over an in-memory transport whose client end loses the response of the
 * tools/call attempts in lose (1-based): the request reaches the server and
 * the tool runs, then sending fails as a dropped connection does.
 */
async function lossy(answers: CallToolResult[], lose: number[], tools: Tool[] = [{ name: "t", inputSchema: { type: "object" }, annotations: { idempotentHint: true } }]) {
  const server = new Server({ name: "lossy", version: "1" }, { capabilities: { tools: {}, ...advertised } });
  let runs = 0;
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async () => answers[Math.min(runs++, answers.length - 1)]!);
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await server.connect(serverEnd);
  let calls = 0;
  const send = clientEnd.send.bind(clientEnd);
  clientEnd.send = async (message: JSONRPCMessage, options) => {
    await send(message, options);
    if ("method" in message && message.method === "tools/call" && lose.includes(++calls)) {
      throw new TypeError("fetch failed: socket hang up");
    }
  };
  const client = new Client({ name: "lossy-client", version: "1" });
  client.onerror = () => {}; // the late response of a lost call has no request left to answer
  await client.connect(clientEnd);
  return { client, runs: () => runs };
}

const done: CallToolResult = { content: [{ type: "text", text: "done" }] };

/** A server whose tool t always fails retryably, retryNotBefore 10 s out; it pages its tool list. */
async function setup(tools: Tool[] = [{ name: "t", inputSchema: { type: "object" }, annotations: { idempotentHint: true } }]) {
  const server = new Server({ name: "edge", version: "1" }, { capabilities: { tools: {}, ...advertised } });
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

  it("re-issues a call the transport failed, as a retry paid for at the timeout cost", async () => {
    const { client, runs } = await lossy([done], [1]);
    try {
      const clock = virtualClock();
      const budget = new RetryBudget({ capacity: 30 });
      const { result, report, error } = await callToolWithPolicy(client, { name: "t", arguments: {} }, { trusted: true, jitter: -1, clock, budget });
      assert.equal(error, undefined);
      assert.equal(result?.isError, undefined);
      assert.equal(report.action, "retried");
      assert.equal(report.attempts, 2);
      assert.equal(report.reissues, 1);
      assert.deepEqual(report.waitsMs, [200], "the transient backoff");
      assert.equal(runs(), 2, "the lost attempt ran on the server too");
      assert.equal(budget.tokens, 30, "10 taken for the re-issue, 10 given back by its success");
    } finally {
      await client.close();
    }
  });

  it("does not re-issue for a tool that is not idempotent, an untrusted server, or an empty budget", async () => {
    const cases: { name: string; tools?: Tool[]; trusted: boolean; budget: RetryBudget; reason: string }[] = [
      { name: "not idempotent", tools: [{ name: "t", inputSchema: { type: "object" } }], trusted: true, budget: new RetryBudget(), reason: "idempotentHint is not true" },
      { name: "untrusted", trusted: false, budget: new RetryBudget(), reason: "not trusted" },
      { name: "budget", trusted: true, budget: new RetryBudget({ capacity: 9 }), reason: "retry budget is spent (9 tokens left, the retry costs 10)" },
    ];
    for (const c of cases) {
      const { client, runs } = await lossy([done], [1], c.tools);
      try {
        const { report, error } = await callToolWithPolicy(client, { name: "t", arguments: {} }, { trusted: c.trusted, clock: virtualClock(), budget: c.budget });
        assert.equal(report.action, "stopped", c.name);
        assert.ok(report.reason.startsWith("call failed: fetch failed: socket hang up; not re-issued:"), `${c.name}: ${report.reason}`);
        assert.ok(report.reason.includes(c.reason), `${c.name}: ${report.reason}`);
        assert.equal(report.attempts, 1, c.name);
        assert.equal((error as Error).message, "fetch failed: socket hang up", c.name);
        assert.equal(runs(), 1, c.name);
      } finally {
        await client.close();
      }
    }
  });

  it("keeps one budget per client across calls: a failing server is not retried once it is spent, and successes earn it back", async () => {
    const busy: CallToolResult = {
      content: [{ type: "text", text: "busy" }],
      isError: true,
      _meta: { [TOOL_FAILURE_KEY]: { class: "reliability", code: "retryable_transient_error", retryable: true, correlationId: "tf_0000000000000000000000000Z" } },
    };
    const { client, runs } = await lossy([busy, busy, busy, busy, busy, done], []);
    try {
      const budget = retryBudgetOf(client);
      // Shrink the default budget to two retries' worth, as if a failing
      // server had already spent the rest.
      budget.take(budget.tokens - 10);
      const opts = { trusted: true, jitter: -1, maxAttempts: 10, clock: virtualClock() };
      const first = await callToolWithPolicy(client, { name: "t", arguments: {} }, opts);
      assert.equal(first.report.attempts, 3, "two retries paid for, the third refused");
      assert.match(first.report.reason, /retry budget is spent \(0 tokens left/);
      const second = await callToolWithPolicy(client, { name: "t", arguments: {} }, opts);
      assert.equal(second.report.attempts, 1, "no retry on an empty budget");
      assert.equal(runs(), 4);
      const third = await callToolWithPolicy(client, { name: "t", arguments: {} }, opts);
      assert.equal(third.report.attempts, 1, "still spent");
      const fourth = await callToolWithPolicy(client, { name: "t", arguments: {} }, opts);
      assert.equal(fourth.report.action, "none");
      assert.equal(budget.tokens, 1, "a first-attempt success refunds 1");
    } finally {
      await client.close();
    }
  });
});
