#!/usr/bin/env node

/**
 * SEP-3313 Example Server: the TypeScript reporter
 *
 * The tool-failure scenario's fixture tools on the official TypeScript SDK's
 * McpServer, with `@omcp/toolfailure`'s ToolFailureReporter installed: the
 * tools fail as their backends would make them fail (a thrown HTTP error, a
 * returned error result), and the reporter classifies each failure through
 * the toolfailure service (TOOLFAILURE_SERVER, TOOLFAILURE_KEY) and attaches
 * the key. `test_tool_failure_task` runs as a task (the SDK's experimental
 * task support, protocol 2025-11-25) and ends `completed` with a failed
 * CallToolResult, which the SDK delivers from its task store in the answer to
 * `tasks/result`, past the tools/call handler; the reporter wraps the store,
 * so the result carries the key as a direct failure would. Nothing here
 * writes a toolFailure object; every check of the scenario passes against it.
 *
 *   TOOLFAILURE_SERVER=… TOOLFAILURE_KEY=… PORT=0 tsx sep-3313-reporter-server.ts
 *
 * Streamable HTTP at /mcp, one McpServer per session, all sessions sharing
 * one task store (which keeps each session's tasks to that session).
 */

import { randomUUID } from 'node:crypto';
import express from 'express';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  isInitializeRequest,
  type CallToolResult
} from '@modelcontextprotocol/sdk/types.js';
import { ToolFailureReporter } from '@omcp/toolfailure';
import { z } from 'zod';

const OTHER_META_KEY = 'com.example.conformance/requestId';

/** An error as an HTTP client library reports one: the reporter reads status and headers. */
class HttpError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly headers: Record<string, string> = {}
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

// One reporter for every session's server. The budget is the default's
// twentyfold: a classification that misses it leaves a result without the
// key, which the scenario fails as not testable, and a shared CI machine can
// be that slow; production keeps the default.
const reporter = new ToolFailureReporter({
  server: 'sep-3313-reporter-server',
  budgetMs: 5000
});

const tasks = new InMemoryTaskStore();

function createServer(): McpServer {
  const server = new McpServer(
    { name: 'sep-3313-reporter-server', version: '1.0.0' },
    {
      capabilities: { tasks: { requests: { tools: { call: {} } } } },
      taskStore: tasks
    }
  );
  server.registerTool(
    'test_simple_text',
    { description: 'Returns one text block' },
    async () => ({
      content: [
        { type: 'text', text: 'This is a simple text response for testing.' }
      ]
    })
  );
  server.registerTool(
    'test_tool_failure_capability',
    { description: 'Fails: the invoice it names does not exist' },
    async () => {
      throw new HttpError('Invoice INV-0 does not exist.', 404);
    }
  );
  server.registerTool(
    'test_tool_failure_reliability',
    {
      description: 'Fails: its backend is unavailable for 30 s',
      annotations: { readOnlyHint: true, idempotentHint: true }
    },
    async () => {
      throw new HttpError('Backend unavailable (HTTP 503).', 503, {
        'Retry-After': '30'
      });
    }
  );
  server.registerTool(
    'test_tool_failure_governance',
    { description: 'Fails: the caller lacks a permission' },
    async () => {
      throw new HttpError('Permission denied: reports.read is required.', 403);
    }
  );
  server.registerTool(
    'test_tool_failure_other_meta',
    {
      description: 'Fails, with another _meta key on its result',
      inputSchema: { requestId: z.string() }
    },
    async ({ requestId }) => ({
      content: [
        { type: 'text', text: "Invalid arguments: 'due' must be a date." }
      ],
      isError: true,
      _meta: { [OTHER_META_KEY]: requestId }
    })
  );
  server.registerTool(
    'test_tool_failure_preclassified',
    {
      description: 'Fails, with a toolFailure object already on its result',
      inputSchema: { toolFailure: z.record(z.string(), z.unknown()) }
    },
    async ({ toolFailure }) => ({
      content: [
        {
          type: 'text',
          text: 'Not sent: the production list needs explicit confirmation.'
        }
      ],
      isError: true,
      _meta: { [reporter.metaKey]: toolFailure }
    })
  );
  server.experimental.tasks.registerToolTask(
    'test_tool_failure_task',
    {
      description: 'Runs as a task, which ends completed with a failed result',
      execution: { taskSupport: 'required' }
    },
    {
      async createTask({ taskStore, taskRequestedTtl }) {
        const task = await taskStore.createTask({
          ttl: taskRequestedTtl ?? 60_000
        });
        // The work ends after the task handle is answered, as real work
        // would; a backend's refusal becomes the task's failed result.
        setImmediate(() => {
          taskStore
            .storeTaskResult(task.taskId, 'completed', {
              content: [
                {
                  type: 'text',
                  text: 'Permission denied: exports.run is required (HTTP 403).'
                }
              ],
              isError: true
            })
            .catch((e: unknown) => console.error(e));
        });
        return { task };
      },
      async getTask({ taskId, taskStore }) {
        return await taskStore.getTask(taskId);
      },
      async getTaskResult({ taskId, taskStore }) {
        return (await taskStore.getTaskResult(taskId)) as CallToolResult;
      }
    }
  );
  reporter.instrument(server);
  return server;
}

const sessions = new Map<string, StreamableHTTPServerTransport>();

const app = express();
app.use(express.json());

app.post('/mcp', async (req, res) => {
  const id = req.header('mcp-session-id');
  let transport = id ? sessions.get(id) : undefined;
  if (!transport) {
    if (id || !isInitializeRequest(req.body)) {
      res.status(id ? 404 : 400).json({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: 'No session: send initialize first' }
      });
      return;
    }
    const created = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        sessions.set(sid, created);
      }
    });
    created.onclose = () => {
      if (created.sessionId) sessions.delete(created.sessionId);
    };
    await createServer().connect(created);
    transport = created;
  }
  await transport.handleRequest(req, res, req.body);
});

// The standalone SSE stream (GET) and the end of a session (DELETE).
app.all('/mcp', async (req, res) => {
  const transport = sessions.get(req.header('mcp-session-id') ?? '');
  if (!transport) {
    res.status(req.method === 'GET' || req.method === 'DELETE' ? 404 : 405);
    res.end();
    return;
  }
  await transport.handleRequest(req, res);
});

const PORT = parseInt(process.env.PORT || '3313', 10);
const listener = app.listen(PORT, '127.0.0.1', () => {
  const address = listener.address();
  const port = typeof address === 'object' && address ? address.port : PORT;
  // On stderr, where the Go test that starts it waits for the line.
  console.error(
    `SEP-3313 reporter task server running on http://127.0.0.1:${port}/mcp`
  );
});
// A session's standalone SSE stream stays open until its client goes: end
// those too, so that a stop does not wait for them.
const stop = () => {
  listener.close(() => process.exit(0));
  listener.closeAllConnections();
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
