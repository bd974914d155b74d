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
 * per-request `_meta` with server/discover (2026-07-28, SEP-2575).
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
  'read-only-without-idempotent-hint': 'sep-3313-read-only-idempotent-hint'
};

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
    { name: 'test_tool_failure_preclassified', inputSchema: { type: 'object' } }
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

const capabilities = {
  tools: {},
  extensions: { [KEY]: { version: '2026-07-28' } }
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
      return {
        resultType: 'complete',
        ...callTool(
          defect,
          String(params.name),
          (params.arguments as Json) ?? {}
        )
      };
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
