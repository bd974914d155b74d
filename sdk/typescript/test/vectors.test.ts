// The shared decision vectors of conformance/testdata/dispatch, run through
// callToolWithPolicy against the SDK's own Server and Client over its
// in-memory transport, on a virtual clock. The Go Dispatcher's tests run the
// same files (mcpfailure/dispatchvectors_test.go).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";

import { RetryBudget } from "../src/dispatch.js";
import { callToolWithPolicy, type Clock } from "../src/index.js";
import { repoRoot } from "./service.js";

interface Vector {
  description: string;
  rule: string;
  startMs: number;
  config: {
    trusted: boolean;
    maxAttempts: number;
    maxElapsedMs: number;
    initialBackoffMs: number;
    maxBackoffMs: number;
    jitter: number;
    throttleInitialBackoffMs?: number;
    throttleMaxBackoffMs?: number;
    metaKey?: string;
    budget?: { capacity: number; retryCost: number; timeoutRetryCost: number; successRefund: number };
  };
  /** What the server advertises in capabilities.extensions. */
  serverExtensions: Record<string, Record<string, unknown>>;
  deadlineMs?: number;
  abortAtMs?: number;
  tools: Tool[];
  listToolsError?: { code: number; message: string };
  call: { name: string; arguments?: Record<string, unknown> };
  steps: { takesMs?: number; result?: CallToolResult; error?: { code: number; message: string; data?: unknown } }[];
  expect: {
    action: string;
    reasonContains?: string[];
    attempts: number;
    callsAtMs?: number[];
    waitsMs?: number[];
    waitsBetweenMs?: [number, number][];
    elapsedMs?: number;
    class: string;
    code: string;
    retryable: boolean;
    retryNotBefore?: number;
    correlationId: string;
    agentGuidance?: string;
    correlationIds: string[];
    idempotent: boolean;
    malformed: boolean;
    protocolError?: number;
    advertised: boolean;
    throttled?: boolean;
    budgetTokens?: number;
    error: string;
    result: "success" | "error" | "none";
    resultText?: string;
  };
}

/**
 * A clock that moves only when someone waits on it, by exactly the wait, as
 * Go's synctest bubble does when every goroutine is blocked. An abort
 * scheduled inside a wait fires at its own instant and ends the wait there.
 */
class VirtualClock implements Clock {
  private aborts: { at: number; controller: AbortController }[] = [];
  constructor(private t: number) {}
  now(): number {
    return this.t;
  }
  abortAt(at: number, controller: AbortController) {
    this.aborts.push({ at, controller });
  }
  advance(ms: number) {
    this.t += ms;
  }
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    const end = this.t + ms;
    const due = this.aborts.filter((a) => a.at <= end).sort((a, b) => a.at - b.at)[0];
    if (due) {
      this.aborts = this.aborts.filter((a) => a !== due);
      this.t = Math.max(this.t, due.at);
      due.controller.abort(new Error("aborted by the vector"));
    }
    if (signal?.aborted) {
      throw signal.reason;
    }
    this.t = end;
  }
}

const dir = join(repoRoot, "conformance", "testdata", "dispatch");
const files = readdirSync(dir).filter((f) => f.endsWith(".json")).sort();

describe("shared dispatch vectors", () => {
  it("has at least 40 vectors", () => assert.ok(files.length >= 40, `${files.length} vectors`));
  for (const file of files) {
    const v = JSON.parse(readFileSync(join(dir, file), "utf8")) as Vector;
    it(`${file.replace(/\.json$/, "")} (${v.rule})`, () => runVector(v));
  }
});

async function runVector(v: Vector) {
  const clock = new VirtualClock(v.startMs);
  const callsAt: number[] = [];
  const server = new Server({ name: "vector", version: "1" }, { capabilities: { tools: {}, extensions: v.serverExtensions } });
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    if (v.listToolsError) {
      throw wireError(v.listToolsError);
    }
    return { tools: v.tools.map((t) => ({ ...t, inputSchema: t.inputSchema ?? { type: "object" as const } })) };
  });
  server.setRequestHandler(CallToolRequestSchema, async () => {
    const n = callsAt.length;
    callsAt.push(clock.now() - v.startMs);
    const step = v.steps[n];
    assert.ok(step, `attempt ${n + 1}, but the vector has ${v.steps.length} steps`);
    clock.advance(step.takesMs ?? 0);
    if (step.error) {
      throw wireError(step.error);
    }
    return step.result as CallToolResult;
  });
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await server.connect(serverEnd);
  const client = new Client({ name: "vector-client", version: "1" });
  await client.connect(clientEnd);
  try {
    const controller = new AbortController();
    if (v.abortAtMs !== undefined) {
      clock.abortAt(v.startMs + v.abortAtMs, controller);
    }
    const { budget: budgetConfig, ...config } = v.config;
    const budget = new RetryBudget(budgetConfig);
    const { result, report, error } = await callToolWithPolicy(client, v.call, {
      ...config,
      budget,
      clock,
      signal: controller.signal,
      deadline: v.deadlineMs === undefined ? undefined : v.startMs + v.deadlineMs,
    });
    const e = v.expect;
    const why = `reason: ${report.reason}`;
    assert.equal(report.action, e.action, why);
    for (const want of e.reasonContains ?? []) {
      assert.ok(report.reason.includes(want), `reason ${JSON.stringify(report.reason)} lacks ${JSON.stringify(want)}`);
    }
    assert.equal(report.attempts, e.attempts, why);
    if (e.callsAtMs) assert.deepEqual(callsAt, e.callsAtMs, "calls at");
    if (e.waitsBetweenMs) {
      assert.equal(report.waitsMs.length, e.waitsBetweenMs.length, `waits ${report.waitsMs}`);
      e.waitsBetweenMs.forEach(([lo, hi], i) =>
        assert.ok(report.waitsMs[i]! >= lo && report.waitsMs[i]! <= hi, `wait ${i + 1} is ${report.waitsMs[i]}, want ${lo}..${hi}`),
      );
    } else {
      assert.deepEqual(report.waitsMs, e.waitsMs ?? [], "waits");
    }
    if (e.elapsedMs !== undefined) assert.equal(report.elapsedMs, e.elapsedMs, "elapsed");
    assert.deepEqual(
      { class: report.class, code: report.code, retryable: report.retryable, correlationId: report.correlationId, retryNotBefore: report.retryNotBefore },
      { class: e.class, code: e.code, retryable: e.retryable, correlationId: e.correlationId, retryNotBefore: e.retryNotBefore },
    );
    if (e.agentGuidance !== undefined) assert.equal(report.agentGuidance, e.agentGuidance);
    assert.deepEqual(report.correlationIds, e.correlationIds);
    assert.equal(report.idempotent, e.idempotent, "idempotent");
    assert.equal(report.malformed !== undefined, e.malformed, `malformed: ${report.malformed}`);
    assert.equal(report.protocolError?.code, e.protocolError, "protocol error");
    assert.equal(report.advertised, e.advertised, "advertised");
    if (e.throttled !== undefined) assert.equal(report.throttled, e.throttled, "throttled");
    if (e.budgetTokens !== undefined) assert.equal(budget.tokens, e.budgetTokens, "budget tokens after the call");
    const kind =
      error === undefined ? "" : error instanceof McpError ? "protocol" : controller.signal.aborted && error === controller.signal.reason ? "aborted" : `other: ${String(error)}`;
    assert.equal(kind, e.error, "error");
    assert.equal(result === undefined ? "none" : result.isError ? "error" : "success", e.result, "final result");
    if (e.resultText) {
      assert.ok(JSON.stringify(result?.content).includes(e.resultText), `result ${JSON.stringify(result)}`);
    }
  } finally {
    await client.close();
  }
}

/** An error the SDK sends with exactly this code, message and data. */
function wireError(e: { code: number; message: string; data?: unknown }) {
  return Object.assign(new Error(e.message), { code: e.code, data: e.data });
}
