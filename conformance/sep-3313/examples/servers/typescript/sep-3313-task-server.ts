#!/usr/bin/env node

/**
 * SEP-3313 Example Server: tool calls as tasks, behind a relay
 *
 * The tool-failure scenario's fixture tools on the official TypeScript SDK's
 * McpServer, over stdio, knowing nothing of toolFailure: its tools fail with
 * a sentence of text, as most servers do today. `test_tool_failure_task`
 * runs as a task (the SDK's experimental task support, protocol 2025-11-25)
 * and fails; as the tasks extension of 2026-07-28 requires, its task is
 * `completed` and the failed CallToolResult is the task's result.
 *
 * It is meant to run behind a relay that adds the key, such as
 * `toolfailure proxy --listen ADDR -- tsx sep-3313-task-server.ts`: then
 * every check passes, including sep-3313-task-result-carries-key, whose key
 * the relay must put inside the task's result. On its own it carries no key,
 * and the checks about the object fail as not testable.
 */

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import { z } from 'zod';

const KEY = 'io.modelcontextprotocol/toolFailure';
const OTHER_META_KEY = 'com.example.conformance/requestId';

const server = new McpServer(
  { name: 'sep-3313-task-server', version: '1.0.0' },
  {
    capabilities: { tasks: { requests: { tools: { call: {} } } } },
    taskStore: new InMemoryTaskStore()
  }
);

const failed = (text: string, meta?: Record<string, unknown>) => ({
  content: [{ type: 'text' as const, text }],
  isError: true,
  ...(meta ? { _meta: meta } : {})
});

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
  async () => failed('404 Not Found: invoice INV-0 does not exist.')
);
server.registerTool(
  'test_tool_failure_reliability',
  {
    description: 'Fails: its backend is unavailable for 30 s',
    annotations: { readOnlyHint: true, idempotentHint: true }
  },
  async () =>
    failed(
      '503 Service Unavailable: the invoice backend is overloaded; Retry-After: 30'
    )
);
server.registerTool(
  'test_tool_failure_governance',
  { description: 'Fails: the caller lacks a permission' },
  async () => failed('403 Forbidden: the reports.read permission is required.')
);
server.registerTool(
  'test_tool_failure_other_meta',
  {
    description: 'Fails, with another _meta key on its result',
    inputSchema: { requestId: z.string() }
  },
  async ({ requestId }) =>
    failed("Invalid arguments: 'due' must be a date.", {
      [OTHER_META_KEY]: requestId
    })
);
server.registerTool(
  'test_tool_failure_preclassified',
  {
    description: 'Fails, with a toolFailure object already on its result',
    inputSchema: { toolFailure: z.record(z.string(), z.unknown()) }
  },
  async ({ toolFailure }) =>
    failed('Not sent: the production list needs explicit confirmation.', {
      [KEY]: toolFailure
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
      // The work ends after the task handle is answered, as real work would.
      setImmediate(() => {
        taskStore
          .storeTaskResult(
            task.taskId,
            'completed',
            failed('403 Forbidden: the exports.run permission is required.')
          )
          .catch((e: unknown) => console.error(e));
      });
      return { task };
    },
    async getTask({ taskId, taskStore }) {
      return await taskStore.getTask(taskId);
    },
    async getTaskResult({ taskId, taskStore }) {
      return (await taskStore.getTaskResult(taskId)) as ReturnType<
        typeof failed
      >;
    }
  }
);

await server.connect(new StdioServerTransport());
