/**
 * Tool failure (SEP-3313) retry scenario for MCP clients
 *
 * A server whose tools fail in each class counts the tools/call requests the
 * client under test re-issues, and when: capability and governance failures,
 * reliability failures that are not retryable or whose tool is not declared
 * idempotent, and a malformed object must not be retried; an allowed retry
 * must not start before retryNotBefore; retries of a failure that never
 * passes should stop.
 *
 * The server is a small JSON-RPC endpoint of its own rather than
 * `ctx.createServer()`: it must advertise the extension in its initialize
 * result, and the checks need each request's arrival time, neither of which
 * the shared mock server provides.
 */

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ScenarioContext } from '../../mock-server';
import type { ConformanceCheck, Scenario, ScenarioUrls } from '../../types';

const TOOL_FAILURE_KEY = 'io.modelcontextprotocol/toolFailure';

const SPEC_REFS = [
  {
    id: 'SEP-3313',
    url: 'https://github.com/modelcontextprotocol/modelcontextprotocol/pull/3313'
  }
];

// How long the retry_after tool asks the client to wait. Long enough that a
// client ignoring it retries measurably earlier, short enough for CI.
const RETRY_DELAY_MS = 1500;

// A client that retries a never-passing failure this often has no bound.
const UNBOUNDED_ATTEMPTS = 10;

type Json = Record<string, unknown>;

interface Call {
  tool: string;
  at: number;
}

/** One fixture tool: its annotations and what attempt n (from 1) answers. */
interface Fixture {
  idempotentHint?: boolean;
  answer(attempt: number, now: number): Json;
}

let serial = 0;
function failure(text: string, toolFailure: Json): Json {
  return {
    content: [{ type: 'text', text }],
    isError: true,
    _meta: {
      [TOOL_FAILURE_KEY]: {
        correlationId: `tf_RETRYSCENARIO${String(++serial).padStart(13, '0')}`,
        ...toolFailure
      }
    }
  };
}

function ok(text: string): Json {
  return { content: [{ type: 'text', text }] };
}

const FIXTURES: Record<string, Fixture> = {
  // capability and governance: idempotent, so only the class forbids a retry.
  capability_failure: {
    idempotentHint: true,
    answer: (n) =>
      n === 1
        ? failure('Invoice INV-0 does not exist.', {
            class: 'capability',
            code: 'resource_not_found'
          })
        : ok('retried')
  },
  governance_failure: {
    idempotentHint: true,
    answer: (n) =>
      n === 1
        ? failure('Permission denied: reports.read is required.', {
            class: 'governance',
            code: 'permission_denied'
          })
        : ok('retried')
  },
  reliability_not_retryable: {
    idempotentHint: true,
    answer: (n) =>
      n === 1
        ? failure('The upstream rejected the request for good.', {
            class: 'reliability',
            code: 'retryable_transient_error',
            retryable: false
          })
        : ok('retried')
  },
  // Retryable, but the tool does not say it is idempotent.
  reliability_not_idempotent: {
    answer: (n, now) =>
      n === 1
        ? failure('Mail backend unavailable (HTTP 503).', {
            class: 'reliability',
            code: 'retryable_transient_error',
            retryable: true,
            retryNotBefore: now + 100
          })
        : ok('retried')
  },
  // The one failure a client may retry: it passes on the second attempt.
  reliability_retry_after: {
    idempotentHint: true,
    answer: (n, now) =>
      n === 1
        ? failure('Search backend unavailable (HTTP 503).', {
            class: 'reliability',
            code: 'retryable_transient_error',
            retryable: true,
            retryNotBefore: now + RETRY_DELAY_MS
          })
        : ok('3 results')
  },
  // Retryable every time: a client that keeps retrying never stops.
  reliability_never_passes: {
    idempotentHint: true,
    answer: (_n, now) =>
      failure('Search backend unavailable (HTTP 503).', {
        class: 'reliability',
        code: 'retryable_transient_error',
        retryable: true,
        retryNotBefore: now + 50
      })
  },
  // Retryable and idempotent, but the object is malformed (a class outside
  // the closed set): it must be ignored as a whole, so nothing allows a retry.
  malformed_failure: {
    idempotentHint: true,
    answer: (n, now) =>
      n === 1
        ? failure('Search backend unavailable (HTTP 503).', {
            class: 'transient',
            code: 'retryable_transient_error',
            retryable: true,
            retryNotBefore: now + 50
          })
        : ok('retried')
  }
};

export class ToolFailureRetryScenario implements Scenario {
  name = 'tool-failure-retry';
  readonly source = {
    extensionId: 'io.modelcontextprotocol/toolFailure'
  } as const;
  description = `Test that a client follows the toolFailure retry rules (SEP-3313).

**Client Implementation Requirements:**

The client connects, lists the tools (their \`idempotentHint\` annotations come from this
server, which the client is configured to trust), calls each tool once through its retry policy,
and exits. The server advertises \`capabilities.extensions["${TOOL_FAILURE_KEY}"]\`.

- capability and governance failures MUST NOT be retried automatically
- a reliability failure MAY be retried only when \`retryable\` is \`true\`, the tool's
  \`idempotentHint\` is \`true\`, and no earlier than \`retryNotBefore\`
- an object that breaks the MUST rules is ignored as a whole
- retries SHOULD be bounded`;

  private server: http.Server | null = null;
  private calls: Call[] = [];
  private listed = false;

  async start(_ctx: ScenarioContext): Promise<ScenarioUrls> {
    this.calls = [];
    this.listed = false;
    const attempts = new Map<string, number>();
    this.server = http.createServer((req, res) => {
      if (req.method !== 'POST') {
        res.writeHead(405).end();
        return;
      }
      let raw = '';
      req.on('data', (chunk) => (raw += chunk));
      req.on('end', () => {
        const now = Date.now();
        let msg: Json;
        try {
          msg = JSON.parse(raw) as Json;
        } catch {
          res.writeHead(400).end();
          return;
        }
        if (msg.id === undefined) {
          res.writeHead(202).end();
          return;
        }
        const reply = (body: Json) => {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...body }));
        };
        const params = (msg.params ?? {}) as Json;
        switch (msg.method) {
          case 'initialize':
            return reply({
              result: {
                protocolVersion: '2025-11-25',
                capabilities: {
                  tools: {},
                  extensions: { [TOOL_FAILURE_KEY]: {} }
                },
                serverInfo: {
                  name: 'sep-3313-retry-scenario',
                  version: '1.0.0'
                }
              }
            });
          case 'ping':
            return reply({ result: {} });
          case 'tools/list':
            this.listed = true;
            return reply({
              result: {
                tools: Object.entries(FIXTURES).map(([name, f]) => ({
                  name,
                  inputSchema: { type: 'object' },
                  annotations: {
                    readOnlyHint: false,
                    idempotentHint: f.idempotentHint === true
                  }
                }))
              }
            });
          case 'tools/call': {
            const tool = String(params.name);
            const fixture = FIXTURES[tool];
            if (!fixture) {
              return reply({
                error: { code: -32602, message: `Unknown tool: ${tool}` }
              });
            }
            this.calls.push({ tool, at: now });
            const n = (attempts.get(tool) ?? 0) + 1;
            attempts.set(tool, n);
            return reply({ result: fixture.answer(n, now) });
          }
          default:
            return reply({
              error: { code: -32601, message: 'Method not found' }
            });
        }
      });
    });
    await new Promise<void>((resolve) =>
      this.server!.listen(0, '127.0.0.1', resolve)
    );
    const { port } = this.server.address() as AddressInfo;
    return { serverUrl: `http://127.0.0.1:${port}/mcp` };
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  getChecks(): ConformanceCheck[] {
    const callsOf = (tool: string) => this.calls.filter((c) => c.tool === tool);
    const checks: ConformanceCheck[] = [];
    const push = (
      id: string,
      name: string,
      description: string,
      errors: string[],
      details: Json,
      severity: 'FAILURE' | 'WARNING' = 'FAILURE'
    ) =>
      checks.push({
        id,
        name,
        description,
        status: errors.length === 0 ? 'SUCCESS' : severity,
        timestamp: new Date().toISOString(),
        errorMessage: errors.length > 0 ? errors.join('; ') : undefined,
        specReferences: SPEC_REFS,
        details
      });

    // A tool the client never called tells nothing: every row that depends
    // on it fails as not testable rather than passing by default.
    const calledOnce = (
      id: string,
      name: string,
      description: string,
      tool: string,
      why: string
    ) => {
      const calls = callsOf(tool);
      const errors =
        calls.length === 0
          ? [`Not testable: the client never called ${tool}`]
          : calls.length > 1
            ? [`${tool} was called ${calls.length} times: ${why}`]
            : [];
      push(id, name, description, errors, {
        tool,
        calls: calls.length,
        listed: this.listed
      });
    };

    calledOnce(
      'sep-3313-client-no-retry-capability',
      'ToolFailureClientNoRetryCapability',
      'a capability failure is not retried automatically',
      'capability_failure',
      'a capability failure was retried'
    );
    calledOnce(
      'sep-3313-client-no-retry-governance',
      'ToolFailureClientNoRetryGovernance',
      'a governance failure is not retried automatically',
      'governance_failure',
      'a governance failure was retried'
    );
    calledOnce(
      'sep-3313-client-retry-requires-retryable',
      'ToolFailureClientRetryRequiresRetryable',
      'a reliability failure with retryable false is not retried',
      'reliability_not_retryable',
      'a failure with retryable false was retried'
    );
    calledOnce(
      'sep-3313-client-retry-requires-idempotent-hint',
      'ToolFailureClientRetryRequiresIdempotentHint',
      'a retryable failure of a tool without idempotentHint: true is not retried',
      'reliability_not_idempotent',
      'a tool without idempotentHint was retried'
    );
    calledOnce(
      'sep-3313-client-ignore-malformed',
      'ToolFailureClientIgnoreMalformed',
      'a malformed toolFailure object (a class outside the closed set) is ignored: it allows no retry',
      'malformed_failure',
      'a failure whose object is malformed was retried'
    );

    // No retry before retryNotBefore. Retrying is allowed, not required: a
    // client that does not retry passes, and says so in the details.
    {
      const calls = callsOf('reliability_retry_after');
      const errors: string[] = [];
      if (calls.length === 0) {
        errors.push(
          'Not testable: the client never called reliability_retry_after'
        );
      } else if (calls.length > 1) {
        const gap = calls[1].at - calls[0].at;
        if (gap < RETRY_DELAY_MS) {
          errors.push(
            `the retry started ${gap} ms after the failure, before retryNotBefore (${RETRY_DELAY_MS} ms)`
          );
        }
      }
      push(
        'sep-3313-client-retry-not-before',
        'ToolFailureClientRetryNotBefore',
        'a retry starts no earlier than retryNotBefore',
        errors,
        {
          calls: calls.length,
          retried: calls.length > 1,
          gapsMs: calls.slice(1).map((c, i) => c.at - calls[i].at),
          retryNotBeforeMs: RETRY_DELAY_MS
        }
      );
    }

    // Retries of a failure that never passes stop (SHOULD).
    {
      const calls = callsOf('reliability_never_passes');
      const errors =
        calls.length === 0
          ? ['Not testable: the client never called reliability_never_passes']
          : calls.length >= UNBOUNDED_ATTEMPTS
            ? [
                `reliability_never_passes was called ${calls.length} times; retries are not bounded`
              ]
            : [];
      push(
        'sep-3313-client-retry-bounded',
        'ToolFailureClientRetryBounded',
        `retries of a failure that never passes stop (fewer than ${UNBOUNDED_ATTEMPTS} attempts)`,
        errors,
        { calls: calls.length },
        'WARNING'
      );
    }

    return checks;
  }
}
