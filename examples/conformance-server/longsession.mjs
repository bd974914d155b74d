// A client on the official TypeScript SDK that calls tools many times on
// one streamable HTTP session, alternating a tool that succeeds and one
// that fails, and prints one JSON line: the calls made, how many
// MaxListenersExceededWarning Node emitted, and the mean time per call.
//
//   node longsession.mjs URL [CALLS]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

let warnings = 0;
process.on("warning", (w) => {
  if (w.name === "MaxListenersExceededWarning") warnings++;
});
const url = process.argv[2];
const calls = Number(process.argv[3] ?? 1600);
const client = new Client({ name: "long-session", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const start = performance.now();
for (let i = 0; i < calls; i++) {
  await client.callTool({ name: i % 2 ? "test_error_handling" : "test_simple_text", arguments: {} });
}
const micros = ((performance.now() - start) * 1000) / calls;
await client.close();
console.log(JSON.stringify({ calls, warnings, microsPerCall: Math.round(micros) }));
