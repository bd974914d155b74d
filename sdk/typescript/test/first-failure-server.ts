// Shared by the tests; not a test file itself: the smallest reporter set-up
// a user writes, run as its own process over stdio (node
// dist/test/first-failure-server.js, with TOOLFAILURE_SERVER and
// TOOLFAILURE_KEY): one failing tool, instrument() with the default budget
// and no check() of its own, so that the first failure of a fresh process
// is the one start-up has to make room for.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

import { ToolFailureReporter } from "../src/index.js";

const server = new McpServer({ name: "first-failure", version: "1.0.0" });
server.registerTool("send_email", { description: "The relay is down." }, async () => {
  throw Object.assign(new Error("connect ECONNREFUSED 10.0.0.7:25"), { code: "ECONNREFUSED" });
});
new ToolFailureReporter({ server: "first-failure" }).instrument(server);
await server.connect(new StdioServerTransport());
