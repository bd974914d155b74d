#!/usr/bin/env node

/**
 * SEP-3313 Negative Test Client
 *
 *   sep-3313-broken-client.ts <defect> <server-url>
 *
 * Lists the tools, then calls each once through a retry policy that follows
 * the toolFailure client rules, except for the one rule its defect breaks
 * (see DEFECTS). With defect "none" it breaks nothing: the control, which
 * passes every check of the tool-failure-retry scenario.
 */

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const KEY = 'io.modelcontextprotocol/toolFailure';
const CLASSES = ['capability', 'reliability', 'governance'];

/** Each defect and the check it must fail. */
export const DEFECTS: Record<string, string> = {
  'retry-capability': 'sep-3313-client-no-retry-capability',
  'retry-governance': 'sep-3313-client-no-retry-governance',
  'retry-not-retryable': 'sep-3313-client-retry-requires-retryable',
  'retry-not-idempotent': 'sep-3313-client-retry-requires-idempotent-hint',
  'retry-early': 'sep-3313-client-retry-not-before',
  'retry-unbounded': 'sep-3313-client-retry-bounded',
  'retry-malformed': 'sep-3313-client-ignore-malformed'
};

type Json = Record<string, unknown>;

const [defect, url] = process.argv.slice(2);
if (!url || (defect !== 'none' && !(defect in DEFECTS))) {
  console.error(
    `usage: sep-3313-broken-client.ts none|${Object.keys(DEFECTS).join('|')} URL`
  );
  process.exit(2);
}

/** The object, when well-formed enough to act on; else undefined. */
function toolFailure(result: Json): Json | undefined {
  const tf = (result._meta as Json | undefined)?.[KEY] as Json | undefined;
  if (!tf || typeof tf.correlationId !== 'string') return undefined;
  if (!CLASSES.includes(tf.class as string) && defect !== 'retry-malformed')
    return undefined;
  return tf;
}

/** How long to wait before retrying, or undefined for no retry. */
function retryIn(
  tf: Json | undefined,
  idempotent: boolean,
  attempt: number
): number | undefined {
  if (!tf) return undefined;
  const maxAttempts = defect === 'retry-unbounded' ? 12 : 3;
  if (attempt >= maxAttempts) return undefined;
  // A little later than retryNotBefore, never earlier: a timer may fire a
  // millisecond before the wall clock says it is due.
  const wait = () =>
    defect === 'retry-early'
      ? 0
      : Math.max(0, Number(tf.retryNotBefore ?? 0) - Date.now()) + 10;
  if (tf.class === 'capability')
    return defect === 'retry-capability' ? 0 : undefined;
  if (tf.class === 'governance')
    return defect === 'retry-governance' ? 0 : undefined;
  if (tf.retryable !== true && defect !== 'retry-not-retryable')
    return undefined;
  if (!idempotent && defect !== 'retry-not-idempotent') return undefined;
  return wait();
}

const client = new Client({ name: 'sep-3313-broken-client', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const { tools } = await client.listTools();
for (const tool of tools) {
  const idempotent = tool.annotations?.idempotentHint === true;
  for (let attempt = 1; ; attempt++) {
    const result = (await client.callTool({
      name: tool.name,
      arguments: {}
    })) as Json;
    const wait =
      result.isError === true
        ? retryIn(toolFailure(result), idempotent, attempt)
        : undefined;
    if (wait === undefined) break;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
await client.close();
