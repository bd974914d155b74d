// Tests of the helper against a running toolfailure service. The Go test in
// examples/ starts one and sets TOOLFAILURE_SERVER, TOOLFAILURE_KEY (report
// scope) and TOOLFAILURE_LOOKUP_KEY (lookup scope); run by hand, point them
// at any service.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";

import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

import { FailureService } from "../src/gen/toolfailure/v1/failure_service_pb.js";
import { TOOL_FAILURE_KEY, ToolFailureReporter } from "../src/toolfailure.js";
import { CORRELATION_ID } from "./helpers.js";

const service = process.env.TOOLFAILURE_SERVER ?? "";
const key = process.env.TOOLFAILURE_KEY ?? "";
const lookupKey = process.env.TOOLFAILURE_LOOKUP_KEY ?? "";
const needsService = !service || !key ? "set TOOLFAILURE_SERVER and TOOLFAILURE_KEY to a running service" : false;


function failure(result: CallToolResult): Record<string, unknown> {
  const tf = result._meta?.[TOOL_FAILURE_KEY];
  assert.ok(tf && typeof tf === "object", `no toolFailure in ${JSON.stringify(result)}`);
  return tf as Record<string, unknown>;
}

async function lookup(id: string) {
  const transport = createConnectTransport({
    baseUrl: service,
    httpVersion: "1.1",
    interceptors: [(next) => (req) => (req.header.set("Authorization", `Bearer ${lookupKey}`), next(req))],
  });
  return createClient(FailureService, transport).getFailure({ correlationId: id });
}

describe("ToolFailureReporter", { skip: needsService }, () => {
  const reporter = new ToolFailureReporter({ server: "ts-helper-test" });

  it("classifies a thrown network error and the ID can be looked up", async () => {
    const error = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    const result: CallToolResult = { content: [{ type: "text", text: error.message }], isError: true, _meta: { "com.example/x": 1 } };
    const out = await reporter.annotate("send_email", result, { error, annotations: { idempotentHint: false } });
    const tf = failure(out);
    assert.equal(tf.class, "reliability");
    assert.notEqual(tf.retryable, true, "a non-idempotent tool's failure is not retryable");
    assert.match(String(tf.correlationId), CORRELATION_ID);
    assert.equal(out._meta?.["com.example/x"], 1, "other _meta keys survive");
    assert.equal(result._meta?.[TOOL_FAILURE_KEY], undefined, "the input result is not modified");
    if (lookupKey) {
      const rec = await lookup(String(tf.correlationId));
      assert.equal(rec.failure?.tool, "send_email");
      assert.equal(rec.failure?.server, "ts-helper-test");
      assert.equal(rec.failure?.error?.type, "ECONNRESET");
    }
  });

  it("gives an idempotent tool's 503 a retry time as an integer", async () => {
    const error = Object.assign(new Error("503 Service Unavailable"), { status: 503, headers: { "retry-after": "2" } });
    const result: CallToolResult = { content: [{ type: "text", text: error.message }], isError: true };
    const tf = failure(await reporter.annotate("search", result, { error, annotations: { idempotentHint: true, readOnlyHint: true } }));
    assert.equal(tf.class, "reliability");
    assert.equal(tf.retryable, true);
    assert.ok(Number.isInteger(tf.retryNotBefore), `retryNotBefore ${String(tf.retryNotBefore)} is an integer`);
    assert.ok(JSON.stringify(tf).includes(`"retryNotBefore":${String(tf.retryNotBefore)}`), "serialized as a JSON integer");
  });

  it("classifies a vendor's awaiting_confirmation as user_action_required", async () => {
    const result: CallToolResult = {
      content: [{ type: "text", text: "The deploy needs explicit confirmation." }],
      structuredContent: { reason_code: "explicit_production_confirmation_required", execution: { status: "awaiting_confirmation" } },
      isError: true,
    };
    const tf = failure(await reporter.annotate("deploy", result));
    assert.equal(tf.class, "governance");
    assert.equal(tf.code, "user_action_required");
  });

  it("leaves successes and already classified failures alone", async () => {
    const ok: CallToolResult = { content: [{ type: "text", text: "fine" }] };
    assert.equal(await reporter.annotate("t", ok), ok);
    const tagged: CallToolResult = {
      content: [{ type: "text", text: "busy" }],
      isError: true,
      _meta: { [TOOL_FAILURE_KEY]: { class: "capability", code: "invalid_input", correlationId: "tf_SERVERS_OWN" } },
    };
    assert.equal(await reporter.annotate("t", tagged), tagged);
  });
});

describe("ToolFailureReporter when the service is away", () => {
  it("returns the result unchanged within the budget", async () => {
    // A service that accepts the connection and never answers.
    const hang: Server = createServer(() => {});
    await new Promise<void>((resolve) => hang.listen(0, "127.0.0.1", resolve));
    try {
      const misses: unknown[] = [];
      const reporter = new ToolFailureReporter({
        baseUrl: `http://127.0.0.1:${(hang.address() as AddressInfo).port}`,
        apiKey: "tfk_unused",
        budgetMs: 200,
        onMiss: (_tool, reason) => misses.push(reason),
      });
      const result: CallToolResult = { content: [{ type: "text", text: "boom" }], isError: true };
      const start = Date.now();
      const out = await reporter.annotate("t", result);
      const elapsed = Date.now() - start;
      assert.equal(out, result);
      assert.equal(misses.length, 1);
      assert.ok(elapsed < 2000, `took ${elapsed} ms with a 200 ms budget`);
    } finally {
      hang.closeAllConnections();
      hang.close();
    }
  });

  it("returns the result unchanged without a key", async () => {
    const misses: unknown[] = [];
    const reporter = new ToolFailureReporter({ baseUrl: "http://127.0.0.1:9", apiKey: "", onMiss: (_t, r) => misses.push(r) });
    const result: CallToolResult = { content: [{ type: "text", text: "boom" }], isError: true };
    assert.equal(await reporter.annotate("t", result), result);
    assert.equal(misses.length, 1);
  });
});
