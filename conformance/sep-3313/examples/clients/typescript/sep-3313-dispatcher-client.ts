#!/usr/bin/env node

/**
 * SEP-3313 Example Client: the TypeScript dispatcher
 *
 *   sep-3313-dispatcher-client.ts <server-url>
 *
 * Lists the tools and calls each once through `@omcp/toolfailure`'s
 * callToolWithPolicy, which follows the toolFailure client rules; the
 * decisions are the package's, nothing here retries. The scenario's server
 * is the client's own choice of server, so its annotations are trusted (an
 * untrusted server gets no retry at all, which would leave the rule about
 * retryNotBefore unexercised). Every check of the tool-failure-retry
 * scenario passes with it, and it makes the one retry the rules allow.
 */

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { callToolWithPolicy } from '@omcp/toolfailure';

const url = process.argv[process.argv.length - 1];
if (!url?.startsWith('http')) {
  console.error('usage: sep-3313-dispatcher-client.ts URL');
  process.exit(2);
}

const client = new Client({
  name: 'toolfailure-ts-dispatcher',
  version: '1.0.0'
});
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const { tools } = await client.listTools();
let failed = false;
for (const tool of tools) {
  const { report, error } = await callToolWithPolicy(
    client,
    { name: tool.name, arguments: {} },
    { trusted: true }
  );
  // A JSON-RPC error the rules mapped is an outcome; only a call the
  // transport lost is the client's own failure.
  if (report.transportError !== undefined) {
    console.error(`${tool.name}: ${String(error)}`);
    failed = true;
  }
  console.error(
    `ts-dispatcher: ${tool.name}: ${report.action} after ${report.attempts} attempts: ${report.reason}`
  );
}
await client.close();
process.exit(failed ? 1 : 0);
