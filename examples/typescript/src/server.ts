/**
 * An MCP server on the official TypeScript SDK whose failed tool results
 * carry the toolFailure key, through the @omcp/toolfailure package: the
 * tools are registered as usual, and one line, reporter.instrument(server),
 * is the whole change.
 *
 *   TOOLFAILURE_KEY=tfk_… node dist/src/server.js      # stdio
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { pathToFileURL } from "node:url";
import { z } from "zod";

import { ToolFailureReporter, type ReporterOptions } from "@omcp/toolfailure";

/** An error as an HTTP client library reports one. */
class HttpError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "HttpError";
  }
}

export function createExampleServer(opts: ReporterOptions = {}): McpServer {
  const server = new McpServer({ name: "typescript-example", version: "1.0.0" });

  const readOnly: ToolAnnotations = { readOnlyHint: true, idempotentHint: true };
  server.registerTool(
    "get_weather",
    { description: "Current weather for a city (always succeeds).", inputSchema: { city: z.string() }, annotations: readOnly },
    async ({ city }) => ({
      content: [{ type: "text", text: `${city}: 21 °C, sunny` }],
      structuredContent: { city, celsius: 21 },
      _meta: { "com.example/source": "station-7" },
    }),
  );

  const notIdempotent: ToolAnnotations = { idempotentHint: false };
  server.registerTool(
    "send_email",
    { description: "Send an email (the SMTP relay resets the connection).", inputSchema: { to: z.string() }, annotations: notIdempotent },
    async () => {
      throw Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET", errno: -104, syscall: "read" });
    },
  );

  server.registerTool(
    "search",
    { description: "Search (the backend is overloaded).", inputSchema: { q: z.string() }, annotations: readOnly },
    async () => {
      throw new HttpError("503 Service Unavailable: search backend overloaded", 503, { "Retry-After": "2" });
    },
  );

  server.registerTool(
    "get_repo",
    { description: "Fetch a repository (it does not exist).", inputSchema: { name: z.string() }, annotations: readOnly },
    async ({ name }) => {
      throw new HttpError(`404 Not Found: no repository ${name}`, 404);
    },
  );

  server.registerTool(
    "deploy",
    { description: "Deploy to production (needs a person's confirmation)." },
    async () => ({
      content: [{ type: "text", text: "The deploy needs explicit confirmation for production." }],
      structuredContent: {
        reason_code: "explicit_production_confirmation_required",
        execution: { status: "awaiting_confirmation" },
      },
      _meta: { "com.example/requestId": "req-42" },
      isError: true,
    }),
  );
  new ToolFailureReporter({ server: "typescript-example", ...opts }).instrument(server);
  return server;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = createExampleServer();
  await server.connect(new StdioServerTransport());
  console.error("typescript-example MCP server: on stdio");
}
