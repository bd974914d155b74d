#!/usr/bin/env node

/**
 * SEP-3313 Negative Test Server
 *
 * Serves the tool-failure scenario's fixture tools, answering each failure
 * with a hand-written toolFailure object, on one path per defect:
 *
 *   /mcp            conformant (the control: every check passes)
 *   /<defect>/mcp   breaks exactly one requirement (see DEFECTS)
 *
 * The tool-failure scenario should emit FAILURE (WARNING for a SHOULD) for
 * the check each defect names, and pass the others. It speaks both
 * lifecycles with plain JSON responses: initialize (2025-11-25) and
 * per-request `_meta` with server/discover (2026-07-28, SEP-2575), and runs
 * `test_tool_failure_task` as a task in the form of each: params.task,
 * tasks/get and tasks/result (2025-11-25); the tasks extension's
 * resultType "task" and the result inlined in tasks/get (2026-07-28).
 */

import express from 'express';

const KEY = 'io.modelcontextprotocol/toolFailure';
const OTHER_META_KEY = 'com.example.conformance/requestId';

type Json = Record<string, unknown>;

/** Each defect, by path, and the check it must fail. */
export const DEFECTS: Record<string, string> = {
  'class-outside-set': 'sep-3313-class-closed-set',
  'code-empty': 'sep-3313-code-non-empty-string',
  'retryable-on-governance': 'sep-3313-retryable-only-reliability',
  'retry-not-before-string': 'sep-3313-retry-not-before-epoch-ms',
  'retry-not-before-without-retryable':
    'sep-3313-retry-not-before-only-when-retryable',
  'correlation-id-missing': 'sep-3313-correlation-id',
  'agent-guidance-too-long': 'sep-3313-agent-guidance',
  'extra-field': 'sep-3313-no-other-fields',
  'baseline-code-wrong-class': 'sep-3313-baseline-code-class',
  'key-on-success': 'sep-3313-key-only-on-error',
  'key-in-jsonrpc-error': 'sep-3313-no-key-in-jsonrpc-error',
  'text-content-dropped': 'sep-3313-keeps-text-content',
  'other-meta-dropped': 'sep-3313-keeps-other-meta',
  'object-rewritten': 'sep-3313-relay-passes-object-unchanged',
  'tool-error-as-protocol-error': 'sep-3313-relay-no-error-conversion',
  'read-only-without-idempotent-hint': 'sep-3313-read-only-idempotent-hint',
  'task-key-outside-result': 'sep-3313-task-result-carries-key'
};

const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

let nextId = 0;
function correlationId(): string {
  return `tf_FIXTURE${String(++nextId).padStart(19, '0')}`;
}

function tools(defect: string): Json[] {
  return [
    { name: 'test_simple_text', inputSchema: { type: 'object' } },
    { name: 'test_tool_failure_capability', inputSchema: { type: 'object' } },
    {
      name: 'test_tool_failure_reliability',
      inputSchema: { type: 'object' },
      annotations:
        defect === 'read-only-without-idempotent-hint'
          ? { readOnlyHint: true }
          : { readOnlyHint: true, idempotentHint: true }
    },
    { name: 'test_tool_failure_governance', inputSchema: { type: 'object' } },
    { name: 'test_tool_failure_other_meta', inputSchema: { type: 'object' } },
    {
      name: 'test_tool_failure_preclassified',
      inputSchema: { type: 'object' }
    },
    {
      name: 'test_tool_failure_task',
      inputSchema: { type: 'object' },
      execution: { taskSupport: 'optional' }
    }
  ];
}

function failed(
  text: string,
  toolFailure: Json | undefined,
  meta: Json = {}
): Json {
  return {
    content: [{ type: 'text', text }],
    isError: true,
    _meta: toolFailure ? { ...meta, [KEY]: toolFailure } : meta
  };
}

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown
  ) {
    super(message);
  }
}

function callTool(defect: string, name: string, args: Json): Json {
  switch (name) {
    case 'test_simple_text': {
      const result: Json = {
        content: [
          { type: 'text', text: 'This is a simple text response for testing.' }
        ]
      };
      if (defect === 'key-on-success') {
        result._meta = {
          [KEY]: {
            class: 'capability',
            code: 'invalid_input',
            correlationId: correlationId()
          }
        };
      }
      return result;
    }
    case 'test_tool_failure_capability': {
      if (defect === 'tool-error-as-protocol-error') {
        throw new RpcError(-32603, 'Invoice INV-0 does not exist.');
      }
      const tf: Json = {
        class: defect === 'class-outside-set' ? 'transient' : 'capability',
        code: defect === 'code-empty' ? '' : 'resource_not_found',
        correlationId: correlationId(),
        agentGuidance:
          defect === 'agent-guidance-too-long'
            ? 'Check the invoice number. '.repeat(40)
            : 'Check the invoice number; this one does not exist.'
      };
      if (defect === 'extra-field') tf.severity = 'high';
      if (defect === 'baseline-code-wrong-class') tf.code = 'permission_denied';
      return failed(
        defect === 'text-content-dropped'
          ? ''
          : 'Invoice INV-0 does not exist.',
        tf
      );
    }
    case 'test_tool_failure_reliability': {
      const tf: Json = {
        class: 'reliability',
        code: 'retryable_transient_error',
        retryable: true,
        retryNotBefore:
          defect === 'retry-not-before-string'
            ? new Date(Date.now() + 30_000).toISOString()
            : Date.now() + 30_000,
        correlationId: correlationId(),
        agentGuidance: 'Wait 30 seconds, then retry the same call once.'
      };
      return failed('Backend unavailable (HTTP 503), retry after 30 s.', tf);
    }
    case 'test_tool_failure_governance': {
      const tf: Json = {
        class: 'governance',
        code: 'permission_denied',
        correlationId: correlationId(),
        agentGuidance: 'Tell the user they lack the permission for this.'
      };
      if (defect === 'correlation-id-missing') delete tf.correlationId;
      if (defect === 'retryable-on-governance') tf.retryable = true;
      if (defect === 'retry-not-before-without-retryable')
        tf.retryNotBefore = Date.now() + 30_000;
      return failed('Permission denied: reports.read is required.', tf);
    }
    case 'test_tool_failure_other_meta': {
      const tf = {
        class: 'capability',
        code: 'invalid_input',
        correlationId: correlationId()
      };
      const meta =
        defect === 'other-meta-dropped'
          ? {}
          : { [OTHER_META_KEY]: args.requestId };
      return failed("Invalid arguments: 'due' must be a date.", tf, meta);
    }
    case 'test_tool_failure_preclassified': {
      const given = args.toolFailure as Json | undefined;
      const tf =
        defect === 'object-rewritten' && given
          ? { ...given, correlationId: correlationId() }
          : given;
      return failed(
        'Not sent: the production list needs explicit confirmation.',
        tf
      );
    }
    default:
      throw new RpcError(
        -32602,
        `Unknown tool: ${name}`,
        defect === 'key-in-jsonrpc-error'
          ? {
              [KEY]: {
                class: 'capability',
                code: 'capability_unsupported',
                correlationId: correlationId()
              }
            }
          : undefined
      );
  }
}

/** The tasks test_tool_failure_task created, by ID: each already ended. */
const tasks = new Map<string, { defect: string; result: Json }>();

function taskFields(taskId: string): Json {
  const at = new Date().toISOString();
  return { taskId, createdAt: at, lastUpdatedAt: at };
}

/** The failed result of test_tool_failure_task, with the key unless the defect moves it. */
function taskToolResult(defect: string): Json {
  return failed(
    'Permission denied: exports.run is required.',
    defect === 'task-key-outside-result'
      ? undefined
      : {
          class: 'governance',
          code: 'permission_denied',
          correlationId: correlationId(),
          agentGuidance: 'Tell the user they lack the permission for this.'
        }
  );
}

/** Runs test_tool_failure_task as a task, which ends completed with a failed result. */
function startTask(defect: string, draft: boolean): Json {
  const taskId = `task-${Math.random().toString(36).slice(2, 12)}`;
  tasks.set(taskId, { defect, result: taskToolResult(defect) });
  const fields = { ...taskFields(taskId), status: 'working' };
  return draft
    ? { resultType: 'task', ...fields, ttlMs: 60_000, pollIntervalMs: 10 }
    : { task: { ...fields, ttl: 60_000, pollInterval: 10 } };
}

function taskOf(params: Json): { defect: string; result: Json } {
  const task = tasks.get(String(params.taskId));
  if (!task) {
    throw new RpcError(-32602, 'Failed to retrieve task: Task not found');
  }
  return task;
}

/**
 * The task as tasks/get answers it: completed; on 2026-07-28 (a request
 * with `_meta`) with its result inlined. The defect puts the key on the
 * task instead.
 */
function getTask(params: Json): Json {
  const { defect, result } = taskOf(params);
  const draft = '_meta' in params;
  const task: Json = {
    ...(draft ? { resultType: 'complete' } : {}),
    ...taskFields(String(params.taskId)),
    status: 'completed',
    ...(draft ? { ttlMs: 60_000, result } : { ttl: 60_000 })
  };
  if (defect === 'task-key-outside-result') {
    task._meta = {
      [KEY]: {
        class: 'governance',
        code: 'permission_denied',
        correlationId: correlationId()
      }
    };
  }
  return task;
}

function declaresTasks(params: Json): boolean {
  const meta = params._meta as Json | undefined;
  const caps = meta?.['io.modelcontextprotocol/clientCapabilities'] as
    | Json
    | undefined;
  const extensions = caps?.extensions as Json | undefined;
  return extensions !== undefined && TASKS_EXTENSION in extensions;
}

const capabilities = {
  tools: {},
  tasks: { requests: { tools: { call: {} } } },
  extensions: { [KEY]: { version: '2026-07-28' }, [TASKS_EXTENSION]: {} }
};
const serverInfo = { name: 'sep-3313-broken-server', version: '1.0.0' };
// Fields the 2026-07-28 wire requires on results; older clients ignore them.
const draftFields = { resultType: 'complete', ttlMs: 0, cacheScope: 'private' };

function handle(defect: string, method: string, params: Json): Json {
  switch (method) {
    case 'initialize':
      return {
        protocolVersion:
          params.protocolVersion === '2025-06-18' ? '2025-06-18' : '2025-11-25',
        capabilities,
        serverInfo
      };
    case 'server/discover':
      return {
        ...draftFields,
        supportedVersions: ['2026-07-28'],
        capabilities,
        serverInfo
      };
    case 'ping':
      return {};
    case 'tools/list':
      return { ...draftFields, tools: tools(defect) };
    case 'tools/call':
      if (params.name === 'test_tool_failure_task') {
        if (params.task !== undefined) return startTask(defect, false);
        if (declaresTasks(params)) return startTask(defect, true);
        // A client that cannot take a task gets the result at once.
        return { resultType: 'complete', ...taskToolResult(defect) };
      }
      return {
        resultType: 'complete',
        ...callTool(
          defect,
          String(params.name),
          (params.arguments as Json) ?? {}
        )
      };
    case 'tasks/get':
      return getTask(params);
    case 'tasks/result':
      return taskOf(params).result;
    default:
      throw new RpcError(-32601, 'Method not found');
  }
}

const app = express();
app.use(express.json());

app.post(['/mcp', '/:defect/mcp'], (req, res) => {
  const defect = String(req.params.defect ?? 'none');
  if (defect !== 'none' && !(defect in DEFECTS)) {
    res.status(404).json({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: `no defect ${defect}` }
    });
    return;
  }
  const body = (req.body ?? {}) as Json;
  if (body.id === undefined) {
    res.status(202).end(); // a notification
    return;
  }
  try {
    const result = handle(
      defect,
      String(body.method),
      (body.params as Json) ?? {}
    );
    res.json({ jsonrpc: '2.0', id: body.id, result });
  } catch (e) {
    const err = e instanceof RpcError ? e : new RpcError(-32603, String(e));
    res.json({
      jsonrpc: '2.0',
      id: body.id,
      error: {
        code: err.code,
        message: err.message,
        ...(err.data ? { data: err.data } : {})
      }
    });
  }
});
// No standalone SSE stream and no sessions to end.
app.all(['/mcp', '/:defect/mcp'], (_req, res) => {
  res.status(405).end();
});

const PORT = parseInt(process.env.PORT || '3313', 10);
const listener = app.listen(PORT, '127.0.0.1', () => {
  const address = listener.address();
  const port = typeof address === 'object' && address ? address.port : PORT;
  // On stderr, where the Go test that starts it waits for the line.
  console.error(
    `SEP-3313 negative test server running on http://127.0.0.1:${port}/mcp`
  );
});
process.on('SIGINT', () => listener.close(() => process.exit(0)));
process.on('SIGTERM', () => listener.close(() => process.exit(0)));
