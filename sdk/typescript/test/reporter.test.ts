// ToolFailureReporter and callToolWithPolicy against a live toolfailure
// service (started here, on the embedded store), through the SDK's own
// McpServer and Client.
import assert from "node:assert/strict";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";

import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

import { FailureService } from "../src/gen/toolfailure/v1/failure_service_pb.js";
import {
  EXTENSION_VERSION,
  TOOL_FAILURE_KEY,
  ToolFailureReporter,
  callToolWithPolicy,
  parseToolFailure,
  withResultType,
} from "../src/index.js";
import { CORRELATION_ID, startService, type Service } from "./service.js";
import { OWN_ID, createTestServer } from "./ts-server.js";

async function connect(server: McpServer): Promise<Client> {
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await server.connect(serverEnd);
  const client = new Client({ name: "test", version: "1" });
  await client.connect(clientEnd);
  return client;
}

function failure(res: CallToolResult): Record<string, unknown> {
  const tf = res._meta?.[TOOL_FAILURE_KEY];
  assert.ok(tf && typeof tf === "object", `no toolFailure in ${JSON.stringify(res)}`);
  return tf as Record<string, unknown>;
}

describe("with a live service", () => {
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

  it("instrument: the extension is advertised under the configured key, beside the server's own", async () => {
    for (const key of [TOOL_FAILURE_KEY, "com.example/toolFailure"]) {
      const reporter = new ToolFailureReporter({ baseUrl: svc.url, apiKey: svc.reportKey, budgetMs: 5000, metaKey: key });
      const server = new McpServer({ name: "ext", version: "1" }, { capabilities: { extensions: { "io.example/own": { on: true } } } });
      server.registerTool("fails", { description: "Always fails." }, async () => ({
        content: [{ type: "text", text: "upstream returned HTTP 503" }],
        isError: true,
      }));
      reporter.instrument(server);
      const client = await connect(server);
      try {
        const ext = client.getServerCapabilities()?.extensions ?? {};
        assert.deepEqual(ext[key], { version: EXTENSION_VERSION }, `${key}: ${JSON.stringify(ext)}`);
        assert.deepEqual(ext["io.example/own"], { on: true }, "the server's own extension is kept");
        assert.equal(Object.keys(ext).length, 2, `only the configured name: ${JSON.stringify(ext)}`);
        const res = (await client.callTool({ name: "fails", arguments: {} })) as CallToolResult;
        const tf = res._meta?.[key] as Record<string, unknown> | undefined;
        assert.match(String(tf?.correlationId), CORRELATION_ID, `${key}: ${JSON.stringify(res._meta)}`);
        assert.equal(Object.keys(res._meta ?? {}).length, 1, `only under ${key}: ${JSON.stringify(res._meta)}`);
        assert.equal("resultType" in res, false, "no resultType on protocol 2025-11-25 and earlier");
      } finally {
        await client.close();
      }
    }
    assert.throws(() => new ToolFailureReporter({ baseUrl: svc.url, metaKey: "toolFailure" }), /not a prefixed _meta key/);
  });

  it("instrument: every failed result gains the key, the rest stays as it was", async () => {
    const reporter = new ToolFailureReporter({ baseUrl: svc.url, apiKey: svc.reportKey, server: "ts-test", budgetMs: 5000 });
    const client = await connect(createTestServer(reporter).server);
    try {
      const call = async (name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>) =>
        (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as CallToolResult;

      const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
      const email = failure(await call("send_email", {}, { traceparent: `00-${traceId}-00f067aa0ba902b7-01` }));
      assert.equal(email.class, "reliability");
      assert.notEqual(email.retryable, true, "send_email is not idempotent (read from tools/list), so not retryable");
      assert.match(String(email.correlationId), CORRELATION_ID);
      const rec = await lookup(String(email.correlationId));
      assert.equal(rec.failure?.tool, "send_email");
      assert.equal(rec.failure?.server, "ts-test");
      assert.equal(rec.failure?.error?.type, "ECONNRESET");
      assert.equal(rec.failure?.traceId, traceId, "the trace context comes from params._meta.traceparent");

      const search = failure(await call("search"));
      assert.equal(search.class, "reliability");
      assert.equal(search.retryable, true, "an idempotent tool's 503 is retryable");
      assert.ok(Number.isInteger(search.retryNotBefore), `retryNotBefore ${String(search.retryNotBefore)}`);

      const repo = failure(await call("get_repo"));
      assert.deepEqual([repo.class, repo.code], ["capability", "resource_not_found"]);

      const deploy = await call("deploy");
      assert.deepEqual([failure(deploy).class, failure(deploy).code], ["governance", "user_action_required"]);
      assert.equal(deploy._meta?.["com.example/requestId"], "req-42", "the server's own _meta keys survive");

      const badArgs = await call("count", { n: "many" });
      assert.equal(badArgs.isError, true);
      assert.match(String(failure(badArgs).correlationId), CORRELATION_ID, "the SDK's own error result (invalid arguments) is classified too");

      const own = await call("self_tagged");
      assert.deepEqual(own._meta, { [TOOL_FAILURE_KEY]: { class: "governance", code: "policy_blocked", correlationId: OWN_ID, agentGuidance: "Ask an admin." } });
      const bad = await call("badly_tagged");
      assert.deepEqual(bad._meta, { [TOOL_FAILURE_KEY]: { class: "transient" } }, "a malformed key is passed on untouched");
      assert.ok(parseToolFailure(bad).present && "malformed" in parseToolFailure(bad));

      assert.deepEqual(await call("ok"), { content: [{ type: "text", text: "fine" }], _meta: { "com.example/source": "station-7" } });
      assert.deepEqual(reporter.stats(), { failed: 7, classified: 5, alreadyTagged: 2, missed: 0, missedTimeout: 0 });
    } finally {
      await client.close();
    }
  });

  it("instrument before the tools are registered: later tools are covered, thrown facts kept", async () => {
    const reporter = new ToolFailureReporter({ baseUrl: svc.url, apiKey: svc.reportKey, budgetMs: 5000 });
    const server = new McpServer({ name: "late", version: "1" });
    reporter.instrument(server);
    assert.throws(() => reporter.instrument(server), /instrumented already/);
    server.registerTool("fetch_page", { description: "404 as an HTTP client reports it" }, async () => {
      // The message alone does not say 404: only the thrown error's status does.
      throw Object.assign(new Error("request failed"), { status: 404 });
    });
    const client = await connect(server);
    try {
      const res = (await client.callTool({ name: "fetch_page", arguments: {} })) as CallToolResult;
      assert.deepEqual([failure(res).class, failure(res).code], ["capability", "resource_not_found"]);
      assert.equal((await lookup(String(failure(res).correlationId))).failure?.error?.httpStatus, 404);
    } finally {
      await client.close();
    }
  });

  it("wrap: a thrown error becomes a classified error result", async () => {
    const reporter = new ToolFailureReporter({ baseUrl: svc.url, apiKey: svc.reportKey, budgetMs: 5000 });
    const handler = reporter.wrap("get_thing", { idempotentHint: true }, async (_extra: { _meta?: Record<string, unknown> }): Promise<CallToolResult> => {
      throw Object.assign(new Error("404 Not Found"), { status: 404 });
    });
    const res = await handler({});
    assert.equal(res.isError, true);
    assert.deepEqual(res.content, [{ type: "text", text: "404 Not Found" }]);
    assert.equal(failure(res).class, "capability");
  });

  it("callToolWithPolicy retries a service-classified 503 no sooner than retryNotBefore", async () => {
    const reporter = new ToolFailureReporter({ baseUrl: svc.url, apiKey: svc.reportKey, budgetMs: 5000 });
    const { server, calls } = createTestServer(reporter);
    const client = await connect(server);
    try {
      const retries: number[] = [];
      const start = Date.now();
      const { result, report, error } = await callToolWithPolicy(
        client,
        { name: "search", arguments: {} },
        { trusted: true, onRetry: (r) => retries.push(r.waitMs) },
      );
      assert.equal(error, undefined);
      assert.equal(result?.isError, undefined);
      assert.equal(report.action, "retried", report.reason);
      assert.equal(report.attempts, 3);
      assert.equal(calls.get("search"), 3);
      assert.equal(report.idempotent, true);
      assert.equal(report.correlationIds.length, 2);
      assert.ok(Date.now() - start >= 1900, `three attempts with Retry-After: 1 took ${Date.now() - start} ms`);
      assert.deepEqual(retries, report.waitsMs);
      for (const id of report.correlationIds) {
        assert.equal((await lookup(id)).failure?.tool, "search");
      }

      const governance = await callToolWithPolicy(client, { name: "deploy", arguments: {} }, { trusted: true });
      assert.equal(governance.report.action, "ask_user");
      assert.equal(governance.report.code, "user_action_required");
      assert.match(governance.report.correlationId, CORRELATION_ID);
      assert.ok(governance.report.agentGuidance.length > 0);

      const email = await callToolWithPolicy(client, { name: "send_email", arguments: {} }, { trusted: true });
      assert.equal(email.report.action, "stopped");
      assert.equal(email.report.attempts, 1);
      assert.equal(calls.get("send_email"), 1);
    } finally {
      await client.close();
    }
  });
});

describe("fail-open: a service that is down, slow or answers garbage", () => {
  const servers: HttpServer[] = [];
  after(() => {
    for (const s of servers) {
      s.closeAllConnections();
      s.close();
    }
  });
  async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
    const s = createServer(handler);
    servers.push(s);
    await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  }
  const failed: CallToolResult = { content: [{ type: "text", text: "boom" }], isError: true, _meta: { "com.example/x": 1 } };
  const secret = "tfk_secret_never_shown";

  for (const c of [
    { name: "never answers", url: () => serve(() => {}), timeout: true },
    { name: "answers HTML", url: () => serve((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<html>oops</html>")) },
    {
      name: "answers a malformed toolFailure object",
      url: () =>
        serve((_req, res) =>
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ meta: { [TOOL_FAILURE_KEY]: { class: "oops", correlationId: "x" } } })),
        ),
    },
    { name: "answers 500", url: () => serve((_req, res) => res.writeHead(500).end()) },
    { name: "is down", url: async () => { const u = await serve(() => {}); servers.pop()!.close(); return u; } },
  ]) {
    it(`${c.name}: the result goes out unchanged within the budget`, async () => {
      const misses: unknown[] = [];
      const reporter = new ToolFailureReporter({ baseUrl: await c.url(), apiKey: secret, budgetMs: 200, onMiss: (_t, r) => misses.push(r) });
      const start = Date.now();
      const out = await reporter.annotate("t", failed);
      const elapsed = Date.now() - start;
      assert.equal(out, failed);
      assert.deepEqual(failed._meta, { "com.example/x": 1 }, "the input is not modified");
      // Bounded by the budget, with room for a loaded machine: a hang would never end.
      assert.ok(elapsed < 2000, `took ${elapsed} ms with a 200 ms budget`);
      assert.equal(misses.length, 1);
      assert.ok(!String(misses[0]).includes(secret), "a miss never shows the key");
      const stats = reporter.stats();
      assert.equal(stats.missed, 1);
      assert.equal(stats.missedTimeout, c.timeout ? 1 : 0);
    });
  }

  it("without a key: unchanged, one miss", async () => {
    const misses: unknown[] = [];
    const reporter = new ToolFailureReporter({ baseUrl: "http://127.0.0.1:9", apiKey: "", onMiss: (_t, r) => misses.push(r) });
    assert.equal(await reporter.annotate("t", failed), failed);
    assert.equal(misses.length, 1);
  });

  it("refuses a budget that is not a positive number", () => {
    assert.throws(() => new ToolFailureReporter({ baseUrl: "http://127.0.0.1:9", budgetMs: -1 }), /budgetMs/);
  });
});

// The TypeScript SDK in use negotiates 2025-11-25 at most, so the version
// that needs resultType cannot be reached through it; the rule itself:
describe("withResultType", () => {
  it("adds resultType from 2026-07-28 on, and nowhere else", () => {
    const res: CallToolResult = { content: [{ type: "text", text: "x" }], isError: true };
    assert.equal(withResultType(res, "2025-11-25"), res);
    assert.deepEqual(withResultType(res, "2026-07-28"), { ...res, resultType: "complete" });
    const own = { ...res, resultType: "complete" };
    assert.equal(withResultType(own, "2026-07-28"), own);
  });
});
