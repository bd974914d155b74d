// The floor for the reporter: the first failure of a fresh Node
// process carries the key with the default budget, 20 fresh starts out of
// 20. Each start is a real MCP server process (test/first-failure-server.ts)
// driven over stdio by the SDK's Client against a live service: a first
// failure that had to pay for connection set-up inside its budget would go
// out without the key.
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, it } from "node:test";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

import { TOOL_FAILURE_KEY } from "../src/index.js";
import { CORRELATION_ID, startService, type Service } from "./service.js";

const STARTS = 20;
const serverScript = join(dirname(fileURLToPath(import.meta.url)), "first-failure-server.js");

let svc: Service;
before(async () => {
  svc = await startService();
});
after(async () => {
  await svc?.stop();
});

it(`the first failure of a fresh process carries the key: ${STARTS} fresh starts, ${STARTS} keys`, async () => {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith("TOOLFAILURE_")) {
      env[k] = v;
    }
  }
  env.TOOLFAILURE_SERVER = svc.url;
  env.TOOLFAILURE_KEY = svc.reportKey;
  const missing: string[] = [];
  const ids = new Set<string>();
  for (let i = 0; i < STARTS; i++) {
    const transport = new StdioClientTransport({ command: process.execPath, args: [serverScript], env, stderr: "pipe" });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: "fresh-start", version: "1" });
    await client.connect(transport);
    try {
      const res = (await client.callTool({ name: "send_email", arguments: {} })) as CallToolResult;
      const tf = res._meta?.[TOOL_FAILURE_KEY] as { correlationId?: unknown; class?: unknown } | undefined;
      if (res.isError !== true || typeof tf?.correlationId !== "string" || !CORRELATION_ID.test(tf.correlationId)) {
        missing.push(`start ${i + 1}: ${JSON.stringify(res)}; server stderr: ${stderr.trim() || "(nothing)"}`);
      } else {
        ids.add(tf.correlationId);
        assert.equal(tf.class, "reliability", `start ${i + 1}: ${JSON.stringify(tf)}`);
      }
    } finally {
      await client.close();
    }
  }
  assert.deepEqual(missing, [], `${missing.length} of ${STARTS} first failures went out without the key`);
  assert.equal(ids.size, STARTS, "each start's failure has a correlation ID of its own");
});
