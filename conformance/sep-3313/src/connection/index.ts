/**
 * Stand-in for the suite's src/connection (not exported by the published
 * package): the `Connection`/`RunContext` surface that server scenarios are
 * written against, with the two lifecycles the runner picks by spec version.
 * Not part of the contribution.
 *
 * - 2025-x: stateful, driven by the SDK's Client (initialize handshake,
 *   session id), as the suite's connectStateful does.
 * - 2026-x: stateless (SEP-2575), raw fetch: no handshake, `_meta` and the
 *   standard headers on every request, as the suite's connectStateless does.
 *
 * The suite also validates every wire message against the spec's JSON
 * schema; that part is not reproduced here.
 */

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { DRAFT_PROTOCOL_VERSION, type SpecVersion } from '../types';

export interface ConnectOptions {
  capabilities?: Record<string, unknown>;
  clientInfo?: { name: string; version: string };
}

export interface Connection {
  request<R = unknown>(
    method: string,
    params?: Record<string, unknown>
  ): Promise<R>;
  discover(): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export interface RunContext {
  serverUrl: string;
  specVersion: SpecVersion;
  connect(opts?: ConnectOptions): Promise<Connection>;
}

export class JsonRpcError extends Error {
  constructor(
    public readonly code: number,
    message: string,
    public readonly data?: unknown
  ) {
    super(message);
    this.name = 'JsonRpcError';
  }
}

export const CONFORMANCE_CLIENT_INFO = {
  name: 'conformance-test-client',
  version: '1.0.0'
} as const;

export const DEFAULT_CLIENT_CAPABILITIES = {
  sampling: {},
  elicitation: {},
  roots: { listChanged: true }
} as const;

export function isStateless(specVersion: SpecVersion): boolean {
  return specVersion === DRAFT_PROTOCOL_VERSION;
}

export function connectFor(
  specVersion: SpecVersion
): (serverUrl: string, opts?: ConnectOptions) => Promise<Connection> {
  return isStateless(specVersion)
    ? (url, opts) => connectStateless(url, specVersion, opts)
    : (url, opts) => connectStateful(url, opts ?? {}, specVersion);
}

export async function connectStateful(
  serverUrl: string,
  opts: ConnectOptions,
  _specVersion: SpecVersion
): Promise<Connection> {
  const client = new Client(opts.clientInfo ?? CONFORMANCE_CLIENT_INFO, {
    capabilities: opts.capabilities ?? DEFAULT_CLIENT_CAPABILITIES
  });
  const transport = new StreamableHTTPClientTransport(new URL(serverUrl));
  await client.connect(transport);
  return {
    async discover() {
      return {
        capabilities: client.getServerCapabilities() ?? {},
        serverInfo: client.getServerVersion() ?? {},
        instructions: client.getInstructions()
      };
    },
    async request<R>(method: string, params: Record<string, unknown> = {}) {
      try {
        return (await client.request({ method, params }, ResultSchema)) as R;
      } catch (e) {
        // Scenarios see JsonRpcError whichever lifecycle is in use.
        if (e instanceof McpError) {
          throw new JsonRpcError(
            e.code,
            e.message.replace(/^MCP error -?\d+: /, ''),
            e.data
          );
        }
        throw e;
      }
    },
    async close() {
      await transport.terminateSession().catch(() => {});
      await client.close();
    }
  };
}

interface JsonRpcResponse {
  jsonrpc: '2.0';
  id: number | string | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

let nextRequestId = 1;

export async function connectStateless(
  serverUrl: string,
  specVersion: SpecVersion = DRAFT_PROTOCOL_VERSION,
  opts: ConnectOptions = {}
): Promise<Connection> {
  async function request<R>(
    method: string,
    params: Record<string, unknown> = {}
  ): Promise<R> {
    const id = nextRequestId++;
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': specVersion,
      'Mcp-Method': method
    };
    if (
      (method === 'tools/call' || method === 'prompts/get') &&
      typeof params.name === 'string'
    ) {
      headers['Mcp-Name'] = params.name;
    }
    // The tasks extension routes a task's requests by its ID.
    if (
      (method === 'tasks/get' ||
        method === 'tasks/update' ||
        method === 'tasks/cancel') &&
      typeof params.taskId === 'string'
    ) {
      headers['Mcp-Name'] = params.taskId;
    }
    const body = {
      jsonrpc: '2.0',
      id,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': specVersion,
          'io.modelcontextprotocol/clientInfo':
            opts.clientInfo ?? CONFORMANCE_CLIENT_INFO,
          'io.modelcontextprotocol/clientCapabilities':
            opts.capabilities ?? DEFAULT_CLIENT_CAPABILITIES,
          ...(params._meta as Record<string, unknown> | undefined)
        }
      }
    };
    const res = await fetch(serverUrl, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000)
    });
    const text = await res.text();
    let message: JsonRpcResponse | undefined;
    if (res.headers.get('content-type')?.includes('text/event-stream')) {
      for (const line of text.split(/\r?\n/)) {
        if (!line.startsWith('data:')) continue;
        const event = JSON.parse(line.slice(5)) as JsonRpcResponse;
        if (event.id === id) message = event;
      }
    } else if (text) {
      message = JSON.parse(text) as JsonRpcResponse;
    }
    if (message?.error && typeof message.error.code === 'number') {
      throw new JsonRpcError(
        message.error.code,
        message.error.message,
        message.error.data
      );
    }
    if (message?.result === undefined) {
      throw new Error(
        `HTTP ${res.status}: expected a JSON-RPC result for '${method}'`
      );
    }
    return message.result as R;
  }
  let discovered: Promise<Record<string, unknown>> | undefined;
  return {
    request,
    discover: () => (discovered ??= request('server/discover')),
    close: async () => {}
  };
}
