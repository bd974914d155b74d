// An MCP server on the official TypeScript SDK (1.32.2) whose tools run as
// tasks, with the SDK's experimental task support (protocol 2025-11-25:
// tools/call with params.task answers a CreateTaskResult, tasks/result
// answers the CallToolResult). It knows nothing of toolFailure: it is the
// upstream of the proxy's task tests (task_test.go), over stdio.
//
// Its argument names the SDK's package folder: the test finds an installed
// copy in the repository, and this file, outside any node_modules, imports
// it by path.

import path from 'node:path';
import { pathToFileURL } from 'node:url';

const sdk = process.argv[2];
if (!sdk) {
  console.error('usage: node taskserver.mjs SDK_PACKAGE_DIR');
  process.exit(2);
}
const load = (p) => import(pathToFileURL(path.join(sdk, 'dist', 'esm', p)).href);
const { McpServer } = await load('server/mcp.js');
const { StdioServerTransport } = await load('server/stdio.js');
const { InMemoryTaskStore } = await load('experimental/tasks/stores/in-memory.js');

const server = new McpServer(
  { name: 'ts-task-upstream', version: '1.0.0' },
  {
    capabilities: { tasks: { requests: { tools: { call: {} } }, list: {}, cancel: {} } },
    taskStore: new InMemoryTaskStore()
  }
);

// taskTool registers a tool that runs as a task and ends, once the task
// handle has been answered, with result; as the 2026-07-28 tasks extension
// requires (and as a relay must keep), a tool's failure leaves the task
// completed.
function taskTool(name, annotations, result) {
  server.experimental.tasks.registerToolTask(
    name,
    { description: name, annotations, execution: { taskSupport: 'required' } },
    {
      async createTask({ taskStore, taskRequestedTtl }) {
        const task = await taskStore.createTask({ ttl: taskRequestedTtl ?? 60_000 });
        // After the handle is answered, as real work would finish.
        setImmediate(() => {
          taskStore.storeTaskResult(task.taskId, 'completed', result).catch((e) => console.error(e));
        });
        return { task };
      },
      async getTask({ taskId, taskStore }) {
        return await taskStore.getTask(taskId);
      },
      async getTaskResult({ taskId, taskStore }) {
        return await taskStore.getTaskResult(taskId);
      }
    }
  );
}

taskTool('export_report', { readOnlyHint: true, idempotentHint: true }, {
  content: [{ type: 'text', text: '503 Service Unavailable: the report backend is overloaded, retry after 2 seconds' }],
  isError: true,
  _meta: { 'com.example/jobId': 'job-42' }
});
taskTool('delete_archive', undefined, {
  content: [{ type: 'text', text: '403 Forbidden: archives.delete permission is required' }],
  isError: true
});
taskTool('count_rows', { readOnlyHint: true }, {
  content: [{ type: 'text', text: 'counted 12 rows: <ok> & done' }],
  structuredContent: { rows: 12 },
  _meta: { 'com.example/jobId': 'job-7' }
});

await server.connect(new StdioServerTransport());
