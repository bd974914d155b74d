/**
 * An MCP server that knows nothing about toolFailure: it is what
 * "toolfailure proxy -- node dist/src/plain-server.js" fronts in the tests.
 * It uses the SDK's low-level Server, so that it can also answer a tool call
 * with a JSON-RPC error, as servers in the wild do, and it exercises what a
 * proxy must carry both ways: progress, sampling, elicitation, cancellation.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { pathToFileURL } from "node:url";

const object = { type: "object" as const, properties: {} };

const tools: Tool[] = [
  { name: "echo", description: "Echo the arguments (always succeeds).", inputSchema: object, annotations: { readOnlyHint: true, idempotentHint: true } },
  { name: "send_email", description: "Fails: the SMTP relay reset the connection.", inputSchema: object, annotations: { idempotentHint: false } },
  { name: "search", description: "Fails: the backend is overloaded.", inputSchema: object, annotations: { readOnlyHint: true, idempotentHint: true } },
  { name: "get_repo", description: "Fails: no such repository.", inputSchema: object, annotations: { readOnlyHint: true } },
  { name: "deploy", description: "Fails: needs a person's confirmation.", inputSchema: object },
  { name: "rate_limited", description: "Refused at the protocol level.", inputSchema: object },
  { name: "count", description: "Reports progress.", inputSchema: object },
  { name: "ask", description: "Asks the client's model and its user.", inputSchema: object },
  { name: "wait", description: "Waits until cancelled.", inputSchema: object },
  { name: "stats", description: "What the server saw.", inputSchema: object },
  { name: "crash", description: "Exits in the middle of the call.", inputSchema: object },
];

export function createPlainServer(): Server {
  const server = new Server({ name: "typescript-plain", version: "1.0.0" }, { capabilities: { tools: {} } });
  let cancelled = 0;

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const args = request.params.arguments ?? {};
    const failed = (text: string, more: Partial<CallToolResult> = {}): CallToolResult => ({
      content: [{ type: "text", text }],
      isError: true,
      ...more,
    });
    switch (request.params.name) {
      case "echo":
        return {
          content: [{ type: "text", text: `echo: ${JSON.stringify(args)} <&> ü` }],
          structuredContent: { args, n: 1.5, big: 12345678901 },
          _meta: { "com.example/echo": true, "com.example/at": "2026-01-01" },
        };
      case "send_email":
        return failed("Error: read ECONNRESET");
      case "search":
        return failed("503 Service Unavailable: search backend overloaded (Retry-After: 2)");
      case "get_repo":
        return failed("404 Not Found: no repository acme/nope");
      case "deploy":
        return failed("The deploy needs explicit confirmation for production.", {
          structuredContent: {
            reason_code: "explicit_production_confirmation_required",
            execution: { status: "awaiting_confirmation" },
          },
          _meta: { "com.example/requestId": "req-42", "com.example/region": "eu-west-1" },
        });
      case "rate_limited":
        throw new McpError(-32001, "rate limited", { code: "rate_limited", retryAfter: 30 });
      case "count": {
        const token = request.params._meta?.progressToken;
        for (let i = 1; i <= 3; i++) {
          if (token !== undefined) {
            await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: i, total: 3 } });
          }
        }
        return { content: [{ type: "text", text: "counted to 3" }] };
      }
      case "ask": {
        const sample = await extra.sendRequest(
          { method: "sampling/createMessage", params: { maxTokens: 10, messages: [{ role: "user", content: { type: "text", text: "hi" } }] } },
          CreateMessageResultSchema,
        );
        const answer = await extra.sendRequest(
          { method: "elicitation/create", params: { message: "Which color?", requestedSchema: { type: "object", properties: { color: { type: "string" } } } } },
          ElicitResultSchema,
        );
        const said = sample.content.type === "text" ? sample.content.text : sample.content.type;
        return { content: [{ type: "text", text: `model: ${said}; user: ${answer.action} ${JSON.stringify(answer.content)}` }] };
      }
      case "wait":
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 30_000);
          extra.signal.addEventListener("abort", () => {
            cancelled++;
            clearTimeout(timer);
            resolve();
          });
        });
        return { content: [{ type: "text", text: "waited" }] };
      case "stats":
        return { content: [{ type: "text", text: JSON.stringify({ cancelled }) }], structuredContent: { cancelled } };
      case "crash":
        console.error("typescript-plain MCP server: crashing on purpose");
        process.exit(3);
      default:
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    }
  });
  return server;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await createPlainServer().connect(new StdioServerTransport());
  console.error("typescript-plain MCP server: on stdio");
}
