// Shared by the tests; not a test file itself: an McpServer whose tools fail
// in each class of the proposal, with a ToolFailureReporter installed. The
// node tests use it in-process; the Go tests start it over stdio
// (node dist/test/ts-server.js, with TOOLFAILURE_SERVER and TOOLFAILURE_KEY)
// and drive it with the Go Dispatcher.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { pathToFileURL } from "node:url";
import { z } from "zod";

import { TOOL_FAILURE_KEY, ToolFailureReporter } from "../src/index.js";

/** An error as an HTTP client library reports one. */
export class HttpError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "HttpError";
  }
}

/** The ID of the tool that classifies its own failure. */
export const OWN_ID = "tf_0000000000000000000000000Z";

export function createTestServer(reporter: ToolFailureReporter): { server: McpServer; calls: Map<string, number> } {
  const server = new McpServer({ name: "ts-test-tools", version: "1.0.0" });
  const calls = new Map<string, number>();
  const called = (tool: string) => {
    const n = (calls.get(tool) ?? 0) + 1;
    calls.set(tool, n);
    return n;
  };
  const idempotent: ToolAnnotations = { readOnlyHint: true, idempotentHint: true };

  server.registerTool("ok", { description: "Succeeds.", annotations: idempotent }, async () => {
    called("ok");
    return { content: [{ type: "text", text: "fine" }], _meta: { "com.example/source": "station-7" } };
  });
  server.registerTool("search", { description: "503 with Retry-After: 1 twice, then succeeds.", annotations: idempotent }, async () => {
    if (called("search") <= 2) {
      throw new HttpError("503 Service Unavailable: search backend overloaded", 503, { "Retry-After": "1" });
    }
    return { content: [{ type: "text", text: "3 results" }] };
  });
  server.registerTool("send_email", { description: "The SMTP relay resets the connection.", annotations: { idempotentHint: false } }, async () => {
    called("send_email");
    throw Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET", errno: -104, syscall: "read" });
  });
  server.registerTool("get_repo", { description: "404.", annotations: idempotent }, async () => {
    called("get_repo");
    throw new HttpError("404 Not Found: no repository acme/nope", 404);
  });
  server.registerTool("deploy", { description: "Needs a person's confirmation." }, async () => {
    called("deploy");
    return {
      content: [{ type: "text", text: "The deploy needs explicit confirmation for production." }],
      structuredContent: { reason_code: "explicit_production_confirmation_required", execution: { status: "awaiting_confirmation" } },
      _meta: { "com.example/requestId": "req-42" },
      isError: true,
    };
  });
  server.registerTool("count", { description: "n must be a number.", inputSchema: { n: z.number() }, annotations: idempotent }, async ({ n }) => {
    called("count");
    return { content: [{ type: "text", text: `counted ${n}` }] };
  });
  server.registerTool("self_tagged", { description: "Classifies its own failure." }, async () => {
    called("self_tagged");
    return {
      content: [{ type: "text", text: "quota exceeded" }],
      isError: true,
      _meta: { [TOOL_FAILURE_KEY]: { class: "governance", code: "policy_blocked", correlationId: OWN_ID, agentGuidance: "Ask an admin." } },
    };
  });
  server.registerTool("badly_tagged", { description: "Carries a malformed key of its own." }, async () => {
    called("badly_tagged");
    return { content: [{ type: "text", text: "busy" }], isError: true, _meta: { [TOOL_FAILURE_KEY]: { class: "transient" } } };
  });
  reporter.instrument(server);
  return { server, calls };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { server } = createTestServer(new ToolFailureReporter({ server: "ts-test-tools", budgetMs: 5000 }));
  await server.connect(new StdioServerTransport());
  console.error("ts-test-tools MCP server: on stdio");
}
