/**
 * An agent on the official TypeScript SDK that follows the toolFailure
 * proposal's client rules through callToolWithPolicy: it calls every tool of
 * the example server and prints what it decided, and why.
 *
 *   TOOLFAILURE_KEY=tfk_… node dist/src/agent.js
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { callToolWithPolicy, type PolicyReport, type ReporterOptions } from "@omcp/toolfailure";
import { pathToFileURL } from "node:url";

import { createExampleServer } from "./server.js";

export const calls = [
  { name: "get_weather", arguments: { city: "Oslo" } },
  { name: "search", arguments: { q: "mcp" } },
  { name: "send_email", arguments: { to: "a@example.com" } },
  { name: "get_repo", arguments: { name: "acme/nope" } },
  { name: "deploy", arguments: {} },
];

/** Runs every call against a fresh example server; one report per call. */
export async function runAgent(server: ReporterOptions = {}): Promise<PolicyReport[]> {
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await createExampleServer(server).connect(serverEnd);
  const client = new Client({ name: "typescript-agent", version: "1.0.0" });
  await client.connect(clientEnd);
  try {
    const reports: PolicyReport[] = [];
    for (const params of calls) {
      // The example server is ours, so its annotations are trusted.
      const { report } = await callToolWithPolicy(client, params, { trusted: true, maxElapsedMs: 10_000 });
      reports.push(report);
    }
    return reports;
  } finally {
    await client.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await runAgent()) {
    const what = r.class ? `${r.class}/${r.code}` : "ok";
    console.log(`${r.tool}: ${r.action} after ${r.attempts} attempt(s) [${what}] ${r.correlationIds.join(" ")}\n  ${r.reason}`);
  }
}
