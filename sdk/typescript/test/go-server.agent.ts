// A TypeScript agent against the Go package's tool server (with the Go
// Annotator installed), over streamable HTTP. The Go test
// TestTypeScriptAgentAgainstGoServer (mcpfailure/typescript_test.go) starts
// the server and the service and runs this file with node --test; on its own
// it is skipped.
import assert from "node:assert/strict";
import { it } from "node:test";

import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";

import { FailureService } from "../src/gen/toolfailure/v1/failure_service_pb.js";
import { callToolWithPolicy } from "../src/index.js";
import { CORRELATION_ID } from "./service.js";

const url = process.env.TOOLFAILURE_GO_MCP_URL;

it("follows the client rules against the Go server", { skip: url ? false : "run by the Go test TestTypeScriptAgentAgainstGoServer" }, async () => {
  const failures = createClient(
    FailureService,
    createConnectTransport({
      baseUrl: process.env.TOOLFAILURE_SERVER!,
      httpVersion: "1.1",
      interceptors: [(next) => (req) => (req.header.set("Authorization", `Bearer ${process.env.TOOLFAILURE_LOOKUP_KEY}`), next(req))],
    }),
  );
  const client = new Client({ name: "ts-agent", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url!)));
  try {
    // Classified by the service: HTTP 503 with Retry-After: 1.
    const flaky = await callToolWithPolicy(client, { name: "flaky", arguments: {} }, { trusted: true });
    assert.equal(flaky.report.action, "retried", flaky.report.reason);
    assert.equal(flaky.report.attempts, 3);
    assert.equal(flaky.report.correlationIds.length, 2);
    for (const id of flaky.report.correlationIds) {
      assert.match(id, CORRELATION_ID);
      assert.equal((await failures.getFailure({ correlationId: id })).failure?.tool, "flaky");
    }

    // The tool's own object, retryNotBefore 300 ms out.
    const own = await callToolWithPolicy(client, { name: "self_tagged", arguments: {} }, { trusted: true });
    assert.equal(own.report.action, "retried", own.report.reason);
    assert.equal(own.report.attempts, 3);

    const unsafe = await callToolWithPolicy(client, { name: "self_tagged_unsafe", arguments: {} }, { trusted: true });
    assert.equal(unsafe.report.action, "stopped");
    assert.match(unsafe.report.reason, /idempotentHint is not true/);

    const auth = await callToolWithPolicy(client, { name: "needs_auth", arguments: {} }, { trusted: true });
    assert.equal(auth.report.action, "ask_user");
    assert.deepEqual([auth.report.class, auth.report.code], ["governance", "auth_required"]);
    assert.match(auth.report.correlationId, CORRELATION_ID);

    const missing = await callToolWithPolicy(client, { name: "missing", arguments: {} }, { trusted: true });
    assert.equal(missing.report.action, "stopped");
    assert.deepEqual([missing.report.class, missing.report.code], ["capability", "resource_not_found"]);

    // A JSON-RPC error with a retry hint, twice, then success.
    const limited = await callToolWithPolicy(client, { name: "rate_limited", arguments: {} }, { trusted: true });
    assert.equal(limited.report.action, "retried", limited.report.reason);
    assert.equal(limited.report.attempts, 3);

    const badParams = await callToolWithPolicy(client, { name: "bad_params", arguments: {} }, { trusted: true });
    assert.ok(badParams.error instanceof McpError, String(badParams.error));
    assert.equal(badParams.report.protocolError?.code, -32602);
    assert.deepEqual([badParams.report.class, badParams.report.code, badParams.report.action], ["capability", "invalid_input", "stopped"]);
  } finally {
    await client.close();
  }
});
