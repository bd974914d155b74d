/**
 * Tool failure (SEP-3313) test scenario for MCP servers
 *
 * Calls tools that fail in each class and one that succeeds, and checks the
 * `_meta["io.modelcontextprotocol/toolFailure"]` object on every error result
 * of tools/call: the closed class set, the code, retryable and retryNotBefore,
 * the correlationId, that other `_meta` keys survive, that a successful result
 * and a JSON-RPC error never carry the key, and that an object already on a
 * result is passed on unchanged (the intermediary rules, for proxies and
 * gateways placed in front of a fixture server).
 */

import { isDeepStrictEqual } from 'node:util';
import { ClientScenario, ConformanceCheck } from '../../types';
import {
  JsonRpcError,
  type Connection,
  type RunContext
} from '../../connection';
import { untestableCheck } from '../untestable';
import { DRAFT_PROTOCOL_VERSION } from '../../types';

const TOOL_FAILURE_KEY = 'io.modelcontextprotocol/toolFailure';
const OTHER_META_KEY = 'com.example.conformance/requestId';

const SPEC_REFS = [
  {
    id: 'SEP-3313',
    url: 'https://github.com/modelcontextprotocol/modelcontextprotocol/pull/3313'
  }
];

const CLASSES = ['capability', 'reliability', 'governance'];

const FIELDS = [
  'class',
  'code',
  'retryable',
  'retryNotBefore',
  'correlationId',
  'agentGuidance'
];

// The baseline vocabulary: each code with the class the proposal gives it.
const BASELINE_CLASS: Record<string, string> = {
  capability_unsupported: 'capability',
  resource_not_found: 'capability',
  invalid_input: 'capability',
  retryable_transient_error: 'reliability',
  auth_required: 'governance',
  permission_denied: 'governance',
  policy_blocked: 'governance',
  user_action_required: 'governance'
};

// The fixture tools the server under test provides.
const SUCCESS_TOOL = 'test_simple_text';
const CAPABILITY_TOOL = 'test_tool_failure_capability';
const RELIABILITY_TOOL = 'test_tool_failure_reliability';
const GOVERNANCE_TOOL = 'test_tool_failure_governance';
const OTHER_META_TOOL = 'test_tool_failure_other_meta';
const PRECLASSIFIED_TOOL = 'test_tool_failure_preclassified';
// Runs as a task when the server runs tool calls as tasks; not in
// FAILING_TOOLS, which are called directly.
const TASK_TOOL = 'test_tool_failure_task';
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const FAILING_TOOLS = [
  CAPABILITY_TOOL,
  RELIABILITY_TOOL,
  GOVERNANCE_TOOL,
  OTHER_META_TOOL,
  PRECLASSIFIED_TOOL
];

type Json = Record<string, unknown>;

/**
 * What a tools/call run as a task came back with: the task handle, the
 * task as a poll saw it last, the task's result, or why the run stopped
 * (\`skipped\`: the server does not run tool calls as tasks;
 * \`untestable\`: a prerequisite is missing).
 */
interface TaskOutcome {
  handle?: Json;
  task?: Json;
  result?: Json;
  skipped?: string;
  untestable?: string;
  failure?: string;
}

/** What one tools/call came back with: a result or a JSON-RPC error. */
interface Outcome {
  tool: string;
  result?: Json;
  error?: { code: number; message: string; data?: unknown };
  failure?: string;
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function toolFailureOf(result: Json | undefined): unknown {
  const meta = result?._meta;
  return isObject(meta) ? meta[TOOL_FAILURE_KEY] : undefined;
}

function hasKey(result: Json | undefined): boolean {
  const meta = result?._meta;
  return isObject(meta) && TOOL_FAILURE_KEY in meta;
}

function randomToken(): string {
  return Math.random().toString(36).slice(2, 12).toUpperCase();
}

function check(
  id: string,
  name: string,
  description: string,
  errors: string[],
  details: Json,
  severity: 'FAILURE' | 'WARNING' = 'FAILURE'
): ConformanceCheck {
  return {
    id,
    name,
    description,
    status: errors.length === 0 ? 'SUCCESS' : severity,
    timestamp: new Date().toISOString(),
    errorMessage: errors.length > 0 ? errors.join('; ') : undefined,
    specReferences: SPEC_REFS,
    details
  };
}

function skipped(
  id: string,
  name: string,
  description: string,
  reason: string
): ConformanceCheck {
  return {
    id,
    name,
    description,
    status: 'SKIPPED',
    timestamp: new Date().toISOString(),
    errorMessage: reason,
    specReferences: SPEC_REFS
  };
}

export class ToolFailureScenario implements ClientScenario {
  name = 'tool-failure';
  readonly source = {
    extensionId: 'io.modelcontextprotocol/toolFailure'
  } as const;
  description = `Test the toolFailure object on failed tool results (SEP-3313).

**Server Implementation Requirements:**

Every \`tools/call\` result with \`isError: true\` that carries \`_meta["${TOOL_FAILURE_KEY}"]\`:
- \`class\` is one of \`capability\`, \`reliability\`, \`governance\`; \`code\` is a non-empty string
- \`retryable\` is a boolean, \`true\` only for class \`reliability\`
- \`retryNotBefore\` is an integer (Unix epoch milliseconds), present only when \`retryable\` is \`true\`
- \`correlationId\` is a string starting with \`tf_\`, at most 64 characters
- \`agentGuidance\`, when present, is a string under 500 characters; no other fields
- the text content that explains the failure and every other \`_meta\` key are kept

A successful result and a JSON-RPC error never carry the key. An intermediary passes
an object already on a result on unchanged and turns no tool error into a protocol error.

**Required server fixtures (\`tools/list\` MUST include all):**
- \`${SUCCESS_TOOL}\` — succeeds.
- \`${CAPABILITY_TOOL}\` — fails in a way that no retry can fix (the thing it names does not exist).
- \`${RELIABILITY_TOOL}\` — fails transiently (its backend answers 503 with \`Retry-After: 30\`);
  annotated \`readOnlyHint: true\`, \`idempotentHint: true\`.
- \`${GOVERNANCE_TOOL}\` — fails because the caller lacks a permission.
- \`${OTHER_META_TOOL}\` — fails, and its result's \`_meta\` carries \`${OTHER_META_KEY}\`
  equal to its \`requestId\` argument.
- \`${PRECLASSIFIED_TOOL}\` — fails, and its result's \`_meta\` carries its \`toolFailure\`
  argument, verbatim, as \`${TOOL_FAILURE_KEY}\` (an upstream that classified the failure itself).

**Optional fixture, for a server that runs tool calls as tasks** (\`tasks.requests.tools.call\` on
2025-11-25, the \`${TASKS_EXTENSION}\` extension on 2026-07-28):
- \`${TASK_TOOL}\` — runs as a task that ends \`completed\` with a failed result. The key rides
  inside the task's result (\`tasks/result\`; from 2026-07-28 the \`result\` of the completed
  task in \`tasks/get\`), never on the task itself.`;

  async run(ctx: RunContext): Promise<ConformanceCheck[]> {
    const checks: ConformanceCheck[] = [];

    let conn: Connection;
    let tools: Json[];
    try {
      conn = await ctx.connect();
      const listed = await conn.request<{ tools?: Json[] }>('tools/list');
      tools = Array.isArray(listed.tools) ? listed.tools : [];
    } catch (error) {
      checks.push({
        id: 'sep-3313-tool-failure-connection',
        name: 'ToolFailureConnection',
        description: 'Connect to the server and list its tools',
        status: 'FAILURE',
        timestamp: new Date().toISOString(),
        errorMessage: `Connection failed: ${error instanceof Error ? error.message : String(error)}`,
        specReferences: SPEC_REFS
      });
      return checks;
    }

    const listedNames = new Set(tools.map((t) => t.name));
    const annotationsOf = (name: string): Json => {
      const tool = tools.find((t) => t.name === name);
      return isObject(tool?.annotations) ? tool.annotations : {};
    };
    const missing = [SUCCESS_TOOL, ...FAILING_TOOLS].filter(
      (name) => !listedNames.has(name)
    );

    const call = async (tool: string, args: Json = {}): Promise<Outcome> => {
      try {
        const result = await conn.request<Json>('tools/call', {
          name: tool,
          arguments: args
        });
        return { tool, result };
      } catch (error) {
        if (error instanceof JsonRpcError) {
          return {
            tool,
            error: {
              code: error.code,
              message: error.message,
              data: error.data
            }
          };
        }
        return {
          tool,
          failure: error instanceof Error ? error.message : String(error)
        };
      }
    };

    // A fresh request ID and correlation ID per run, so that a server cannot
    // pass by echoing constants.
    const requestId = `req-${randomToken()}`;
    const preclassified: Json = {
      class: 'governance',
      code: 'user_action_required',
      correlationId: `tf_UPSTREAM${randomToken()}`,
      agentGuidance: 'Ask the user to confirm, then call again.'
    };

    const outcomes: Outcome[] = [];
    const byTool = new Map<string, Outcome>();
    for (const [tool, args] of [
      [SUCCESS_TOOL, {}],
      [CAPABILITY_TOOL, {}],
      [RELIABILITY_TOOL, {}],
      [GOVERNANCE_TOOL, {}],
      [OTHER_META_TOOL, { requestId }],
      [PRECLASSIFIED_TOOL, { toolFailure: preclassified }]
    ] as const) {
      if (!listedNames.has(tool)) continue;
      const outcome = await call(tool, args);
      outcomes.push(outcome);
      byTool.set(tool, outcome);
    }
    // A tool no server has: a protocol error, which must not carry the key.
    const unknown = await call(`sep_3313_no_such_tool_${randomToken()}`);
    outcomes.push(unknown);

    const taskRun = await runAsTask(
      conn,
      ctx.specVersion === DRAFT_PROTOCOL_VERSION,
      listedNames.has(TASK_TOOL)
    );

    await conn.close();

    const keyed = outcomes.filter(
      (o) => o.result?.isError === true && hasKey(o.result)
    );
    // The objects the server made itself; the preclassified fixture's object
    // is the scenario's own, echoed back, and proves nothing about the server.
    const classified = keyed.filter((o) => o.tool !== PRECLASSIFIED_TOOL);
    const objects = classified.map((o) => ({
      tool: o.tool,
      value: toolFailureOf(o.result)
    }));
    const fields = objects
      .filter((o) => isObject(o.value))
      .map((o) => ({ tool: o.tool, tf: o.value as Json }));
    const observed = {
      keyedResults: keyed.map((o) => o.tool),
      missingFixtures: missing
    };
    // The rows about the object need a failure of each class to carry it. A
    // fixture that came back as a JSON-RPC error is
    // sep-3313-relay-no-error-conversion's finding, not a missing prerequisite.
    const unexercised = [CAPABILITY_TOOL, RELIABILITY_TOOL, GOVERNANCE_TOOL]
      .map((tool) => {
        const o = byTool.get(tool);
        if (!o) return `the server does not list ${tool}`;
        if (o.error) return undefined;
        if (o.result?.isError !== true) return `${tool} did not fail`;
        if (!hasKey(o.result))
          return `${tool} failed without ${TOOL_FAILURE_KEY}`;
        return undefined;
      })
      .filter((why): why is string => why !== undefined);
    const notExercised =
      unexercised.length > 0
        ? unexercised.join('; ')
        : objects.length === 0
          ? `no error result of tools/call carried ${TOOL_FAILURE_KEY}`
          : undefined;

    // Each per-object requirement: untestable when the failures of each
    // class did not all carry the key, since then the requirement was not
    // exercised on what the server sends.
    const perObject = (
      id: string,
      name: string,
      description: string,
      validate: (tf: Json) => string | undefined,
      severity: 'FAILURE' | 'WARNING' = 'FAILURE'
    ) => {
      if (notExercised) {
        checks.push(
          untestableCheck(
            id,
            name,
            description,
            notExercised,
            SPEC_REFS,
            severity
          )
        );
        return;
      }
      const errors: string[] = [];
      for (const o of objects) {
        if (!isObject(o.value)) {
          errors.push(`${o.tool}: the toolFailure value is not an object`);
          continue;
        }
        const why = validate(o.value);
        if (why) errors.push(`${o.tool}: ${why}`);
      }
      checks.push(
        check(
          id,
          name,
          description,
          errors,
          {
            ...observed,
            objects: objects.map((o) => ({
              tool: o.tool,
              toolFailure: o.value
            }))
          },
          severity
        )
      );
    };

    // 1. class is in the closed set.
    perObject(
      'sep-3313-class-closed-set',
      'ToolFailureClassClosedSet',
      'class is capability, reliability or governance',
      (tf) =>
        CLASSES.includes(tf.class as string)
          ? undefined
          : `class ${JSON.stringify(tf.class)} is not one of ${CLASSES.join(', ')}`
    );

    // 2. code is a non-empty string.
    perObject(
      'sep-3313-code-non-empty-string',
      'ToolFailureCode',
      'code is a non-empty string',
      (tf) =>
        typeof tf.code === 'string' && tf.code !== ''
          ? undefined
          : `code is ${JSON.stringify(tf.code)}, expected a non-empty string`
    );

    // 3. retryable is a boolean, true only for reliability.
    perObject(
      'sep-3313-retryable-only-reliability',
      'ToolFailureRetryableOnlyReliability',
      'retryable is absent or a boolean, and true only when class is reliability',
      (tf) => {
        if (!('retryable' in tf)) return undefined;
        if (typeof tf.retryable !== 'boolean') {
          return `retryable is ${JSON.stringify(tf.retryable)}, expected a boolean`;
        }
        if (tf.retryable && tf.class !== 'reliability') {
          return `retryable is true on class ${JSON.stringify(tf.class)}`;
        }
        return undefined;
      }
    );

    // 4. retryNotBefore is an integer of epoch milliseconds. Optional, so
    // not applicable when no result sent one.
    {
      const id = 'sep-3313-retry-not-before-epoch-ms';
      const name = 'ToolFailureRetryNotBeforeEpochMs';
      const description =
        'retryNotBefore is a JSON integer (Unix epoch milliseconds), not a string or a date';
      if (!notExercised && !fields.some((f) => 'retryNotBefore' in f.tf)) {
        checks.push(
          skipped(
            id,
            name,
            description,
            'no error result carried retryNotBefore (it is optional)'
          )
        );
      } else {
        perObject(id, name, description, (tf) => {
          if (!('retryNotBefore' in tf)) return undefined;
          const v = tf.retryNotBefore;
          return typeof v === 'number' && Number.isInteger(v) && v >= 0
            ? undefined
            : `retryNotBefore is ${JSON.stringify(v)} (${typeof v}), expected a non-negative integer of epoch milliseconds`;
        });
      }
    }

    // 5. retryNotBefore only with retryable: true.
    perObject(
      'sep-3313-retry-not-before-only-when-retryable',
      'ToolFailureRetryNotBeforeOnlyWhenRetryable',
      'retryNotBefore is present only when retryable is true',
      (tf) =>
        'retryNotBefore' in tf && tf.retryable !== true
          ? `retryNotBefore is present with retryable ${JSON.stringify(tf.retryable)}`
          : undefined
    );

    // 6. correlationId: present, a string, tf_, at most 64 characters.
    perObject(
      'sep-3313-correlation-id',
      'ToolFailureCorrelationId',
      'correlationId is present: a string that starts with tf_, at most 64 characters',
      (tf) => {
        const v = tf.correlationId;
        if (v === undefined) return 'correlationId is missing';
        if (typeof v !== 'string')
          return `correlationId is ${typeof v}, expected a string`;
        if (!v.startsWith('tf_'))
          return `correlationId ${JSON.stringify(v)} does not start with tf_`;
        if (v.length > 64)
          return `correlationId is ${v.length} characters, at most 64 allowed`;
        return undefined;
      }
    );

    // 7. agentGuidance, when present: a string under 500 characters.
    perObject(
      'sep-3313-agent-guidance',
      'ToolFailureAgentGuidance',
      'agentGuidance, when present, is a string under 500 characters',
      (tf) => {
        if (!('agentGuidance' in tf)) return undefined;
        const v = tf.agentGuidance;
        if (typeof v !== 'string')
          return `agentGuidance is ${typeof v}, expected a string`;
        return v.length < 500
          ? undefined
          : `agentGuidance is ${v.length} characters, expected under 500`;
      }
    );

    // 8. No other fields in the object.
    perObject(
      'sep-3313-no-other-fields',
      'ToolFailureNoOtherFields',
      `the object has no fields other than ${FIELDS.join(', ')}`,
      (tf) => {
        const extra = Object.keys(tf).filter((k) => !FIELDS.includes(k));
        return extra.length === 0
          ? undefined
          : `unexpected fields: ${extra.join(', ')}`;
      }
    );

    // 9. A baseline code goes with its baseline class (SHOULD).
    perObject(
      'sep-3313-baseline-code-class',
      'ToolFailureBaselineCodeClass',
      'a baseline code is used with the class the baseline vocabulary gives it',
      (tf) => {
        const want = BASELINE_CLASS[tf.code as string];
        // A class outside the set is sep-3313-class-closed-set's failure.
        return want === undefined ||
          want === tf.class ||
          !CLASSES.includes(tf.class as string)
          ? undefined
          : `baseline code ${JSON.stringify(tf.code)} is used with class ${JSON.stringify(tf.class)}, expected ${want}`;
      },
      'WARNING'
    );

    // 10. The key only on error results: the successful call has none.
    {
      const id = 'sep-3313-key-only-on-error';
      const name = 'ToolFailureKeyOnlyOnError';
      const description = `a successful tools/call result carries no ${TOOL_FAILURE_KEY}`;
      const success = byTool.get(SUCCESS_TOOL);
      if (!success?.result || success.result.isError === true) {
        checks.push(
          untestableCheck(
            id,
            name,
            description,
            success
              ? `${SUCCESS_TOOL} did not succeed: ${JSON.stringify(success.error ?? success.failure ?? success.result)}`
              : `the server does not list ${SUCCESS_TOOL}`,
            SPEC_REFS
          )
        );
      } else {
        const errors = outcomes
          .filter(
            (o) => o.result && o.result.isError !== true && hasKey(o.result)
          )
          .map(
            (o) => `${o.tool}: a result without isError: true carries the key`
          );
        checks.push(
          check(id, name, description, errors, {
            successes: outcomes
              .filter((o) => o.result && o.result.isError !== true)
              .map((o) => o.tool)
          })
        );
      }
    }

    // 11. No key in a JSON-RPC error's data.
    {
      const id = 'sep-3313-no-key-in-jsonrpc-error';
      const name = 'ToolFailureNoKeyInJsonRpcError';
      const description = `a JSON-RPC error from tools/call carries no ${TOOL_FAILURE_KEY} in its data`;
      const rpcErrors = outcomes.filter((o) => o.error);
      if (rpcErrors.length === 0) {
        checks.push(
          skipped(
            id,
            name,
            description,
            'no tools/call ended in a JSON-RPC error (the unknown tool was answered with a result)'
          )
        );
      } else {
        const errors: string[] = [];
        for (const o of rpcErrors) {
          const data = o.error!.data;
          const meta = isObject(data) ? data._meta : undefined;
          if (
            (isObject(data) && TOOL_FAILURE_KEY in data) ||
            (isObject(meta) && TOOL_FAILURE_KEY in meta)
          ) {
            errors.push(
              `${o.tool}: JSON-RPC error ${o.error!.code} carries the key in its data`
            );
          }
        }
        checks.push(
          check(id, name, description, errors, {
            errors: rpcErrors.map((o) => ({ tool: o.tool, error: o.error }))
          })
        );
      }
    }

    // 12. The failing fixtures keep their explanatory text.
    {
      const id = 'sep-3313-keeps-text-content';
      const name = 'ToolFailureKeepsTextContent';
      const description =
        'an error result carrying the key still explains the failure in text content';
      if (notExercised) {
        checks.push(
          untestableCheck(id, name, description, notExercised, SPEC_REFS)
        );
      } else {
        const errors = keyed
          .filter((o) => {
            const content = o.result!.content;
            return !(
              Array.isArray(content) &&
              content.some(
                (c) =>
                  isObject(c) &&
                  c.type === 'text' &&
                  typeof c.text === 'string' &&
                  c.text.trim() !== ''
              )
            );
          })
          .map((o) => `${o.tool}: no non-empty text content`);
        checks.push(check(id, name, description, errors, observed));
      }
    }

    // 13. Other _meta keys are kept beside the key.
    {
      const id = 'sep-3313-keeps-other-meta';
      const name = 'ToolFailureKeepsOtherMeta';
      const description = `an error result keeps its other _meta keys (${OTHER_META_KEY}) beside the key`;
      const o = byTool.get(OTHER_META_TOOL);
      if (!o) {
        checks.push(
          untestableCheck(
            id,
            name,
            description,
            `the server does not list ${OTHER_META_TOOL}`,
            SPEC_REFS
          )
        );
      } else if (!o.result || o.result.isError !== true || !hasKey(o.result)) {
        checks.push(
          untestableCheck(
            id,
            name,
            description,
            `${OTHER_META_TOOL} returned no error result carrying the key`,
            SPEC_REFS
          )
        );
      } else {
        const meta = o.result._meta as Json;
        const errors =
          meta[OTHER_META_KEY] === requestId
            ? []
            : [
                `_meta[${JSON.stringify(OTHER_META_KEY)}] is ${JSON.stringify(meta[OTHER_META_KEY])}, expected ${JSON.stringify(requestId)}`
              ];
        checks.push(
          check(id, name, description, errors, { sent: requestId, meta })
        );
      }
    }

    // 14. An object already on a result is passed on unchanged.
    {
      const id = 'sep-3313-relay-passes-object-unchanged';
      const name = 'ToolFailureRelayPassesObjectUnchanged';
      const description =
        'an existing toolFailure object, with its correlationId, reaches the client unchanged';
      const o = byTool.get(PRECLASSIFIED_TOOL);
      if (!o) {
        checks.push(
          untestableCheck(
            id,
            name,
            description,
            `the server does not list ${PRECLASSIFIED_TOOL}`,
            SPEC_REFS
          )
        );
      } else if (!o.result) {
        checks.push(
          check(
            id,
            name,
            description,
            [`${PRECLASSIFIED_TOOL} ended in a JSON-RPC error, not a result`],
            { outcome: o }
          )
        );
      } else {
        const got = toolFailureOf(o.result);
        // Member order is not part of the object: a relay may re-encode it.
        const errors = isDeepStrictEqual(got, preclassified)
          ? []
          : [
              `the object arrived as ${JSON.stringify(got)}, sent ${JSON.stringify(preclassified)}`
            ];
        checks.push(
          check(id, name, description, errors, {
            sent: preclassified,
            received: got
          })
        );
      }
    }

    // 15. Tool errors stay results (with isError), never protocol errors.
    {
      const id = 'sep-3313-relay-no-error-conversion';
      const name = 'ToolFailureRelayNoErrorConversion';
      const description =
        'a failed tool call comes back as a result with isError: true, not as a JSON-RPC error';
      const failing = outcomes.filter((o) => FAILING_TOOLS.includes(o.tool));
      if (failing.length === 0) {
        checks.push(
          untestableCheck(
            id,
            name,
            description,
            `the server lists none of ${FAILING_TOOLS.join(', ')}`,
            SPEC_REFS
          )
        );
      } else {
        const errors = failing
          .filter((o) => o.result?.isError !== true)
          .map((o) =>
            o.error
              ? `${o.tool}: a tool error came back as JSON-RPC error ${o.error.code}`
              : `${o.tool}: ${o.failure ?? 'the result does not have isError: true'}`
          );
        checks.push(
          check(id, name, description, errors, {
            calls: failing.map((o) => o.tool)
          })
        );
      }
    }

    // 16. A read-only tool that may be retried also says idempotentHint (SHOULD).
    {
      const id = 'sep-3313-read-only-idempotent-hint';
      const name = 'ToolFailureReadOnlyIdempotentHint';
      const description =
        'a read-only tool whose failure is retryable also sets idempotentHint: true';
      const readOnlyRetryable = fields.filter(
        (f) =>
          f.tf.retryable === true && annotationsOf(f.tool).readOnlyHint === true
      );
      if (notExercised) {
        checks.push(
          untestableCheck(
            id,
            name,
            description,
            notExercised,
            SPEC_REFS,
            'WARNING'
          )
        );
      } else if (readOnlyRetryable.length === 0) {
        checks.push(
          skipped(
            id,
            name,
            description,
            'no read-only tool returned a retryable failure'
          )
        );
      } else {
        const errors = readOnlyRetryable
          .filter((f) => annotationsOf(f.tool).idempotentHint !== true)
          .map(
            (f) =>
              `${f.tool}: readOnlyHint is true and the failure retryable, but idempotentHint is ${JSON.stringify(annotationsOf(f.tool).idempotentHint)}`
          );
        checks.push(
          check(
            id,
            name,
            description,
            errors,
            {
              tools: readOnlyRetryable.map((f) => ({
                tool: f.tool,
                annotations: annotationsOf(f.tool)
              }))
            },
            'WARNING'
          )
        );
      }
    }

    // 17. A tool call run as a task: the key rides inside the task's result.
    {
      const id = 'sep-3313-task-result-carries-key';
      const name = 'ToolFailureTaskResultCarriesKey';
      const description =
        "a failed tool call run as a task carries the key inside the task's result; the key is not on the task, and (2026-07-28) the task is completed, not failed";
      if (taskRun.skipped) {
        checks.push(skipped(id, name, description, taskRun.skipped));
      } else if (taskRun.untestable) {
        checks.push(
          untestableCheck(id, name, description, taskRun.untestable, SPEC_REFS)
        );
      } else {
        const errors: string[] = [];
        if (taskRun.failure) errors.push(taskRun.failure);
        // The key belongs to the result: not to the task handle, nor to
        // the task object around the result.
        for (const [what, obj] of [
          ['the task handle', taskRun.handle],
          ['the task', taskRun.task]
        ] as const) {
          if (hasKey(obj) || (isObject(obj) && TOOL_FAILURE_KEY in obj)) {
            errors.push(`${what} carries ${TOOL_FAILURE_KEY}`);
          }
        }
        const result = taskRun.result;
        let notKeyed = false;
        if (!taskRun.failure && result) {
          if (result.isError !== true) {
            errors.push("the task's result does not have isError: true");
          } else if (!hasKey(result)) {
            // Misplaced (on the task) is a failure; absent everywhere, the
            // rule was not exercised.
            errors.push(`the task's result carries no ${TOOL_FAILURE_KEY}`);
            if (errors.length === 1) notKeyed = true;
          } else {
            const tf = toolFailureOf(result);
            if (!isObject(tf)) {
              errors.push('the toolFailure value is not an object');
            } else {
              if (!CLASSES.includes(tf.class as string))
                errors.push(
                  `class ${JSON.stringify(tf.class)} is not in the set`
                );
              const cid = tf.correlationId;
              if (
                typeof cid !== 'string' ||
                !cid.startsWith('tf_') ||
                cid.length > 64
              )
                errors.push(
                  `correlationId ${JSON.stringify(cid)} is not a tf_ ID of at most 64 characters`
                );
            }
          }
        }
        if (
          ctx.specVersion === DRAFT_PROTOCOL_VERSION &&
          isObject(taskRun.task) &&
          taskRun.task.status !== 'completed'
        ) {
          errors.push(
            `the task is ${JSON.stringify(taskRun.task.status)}: a tool error leaves it completed (failed is for JSON-RPC errors)`
          );
        }
        checks.push(
          notKeyed && errors.length === 1
            ? untestableCheck(
                id,
                name,
                description,
                `${TASK_TOOL}'s task result carries no ${TOOL_FAILURE_KEY}`,
                SPEC_REFS
              )
            : check(id, name, description, errors, {
                taskId: taskRun.handle ? taskIdOf(taskRun.handle) : undefined,
                status: isObject(taskRun.task)
                  ? taskRun.task.status
                  : undefined,
                toolFailure: toolFailureOf(result)
              })
        );
      }
    }

    return checks;
  }
}

function taskIdOf(handle: Json): string | undefined {
  // 2026-07-28: the task's members are the handle's; 2025-11-25: its "task".
  const task = isObject(handle.task) ? handle.task : handle;
  return typeof task.taskId === 'string' ? task.taskId : undefined;
}

/**
 * Calls the task fixture as a task and follows the task to its end: on
 * 2025-11-25 with params.task, then tasks/result for the result and tasks/get
 * for the status; on 2026-07-28 with the tasks extension in the request's
 * capabilities, then tasks/get until the task is terminal, its result inlined.
 */
async function runAsTask(
  conn: Connection,
  draft: boolean,
  listed: boolean
): Promise<TaskOutcome> {
  const discovered = await conn.discover();
  const caps = isObject(discovered.capabilities) ? discovered.capabilities : {};
  const extensions = isObject(caps.extensions) ? caps.extensions : {};
  const tasks = isObject(caps.tasks) ? caps.tasks : {};
  const requests = isObject(tasks.requests) ? tasks.requests : {};
  const runsTasks = draft
    ? TASKS_EXTENSION in extensions
    : isObject(requests.tools) && isObject(requests.tools.call);
  if (!runsTasks) {
    return {
      skipped: draft
        ? `the server does not run tool calls as tasks (no ${TASKS_EXTENSION} extension)`
        : 'the server does not run tool calls as tasks (no tasks.requests.tools.call capability)'
    };
  }
  if (!listed) {
    return {
      untestable: `the server runs tasks but does not list ${TASK_TOOL}`
    };
  }
  const out: TaskOutcome = {};
  try {
    const params: Json = draft
      ? {
          name: TASK_TOOL,
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/clientCapabilities': {
              extensions: { [TASKS_EXTENSION]: {} }
            }
          }
        }
      : { name: TASK_TOOL, arguments: {}, task: { ttl: 60_000 } };
    out.handle = await conn.request<Json>('tools/call', params);
    const taskId = taskIdOf(out.handle);
    if (!taskId) {
      // The server may answer any call directly; this one it did not run
      // as a task, so the rule was not exercised.
      return {
        untestable: `${TASK_TOOL} was answered without a task: ${JSON.stringify(out.handle).slice(0, 200)}`
      };
    }
    if (draft) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        out.task = await conn.request<Json>('tasks/get', { taskId });
        const status = out.task.status;
        if (
          status === 'completed' ||
          status === 'failed' ||
          status === 'cancelled'
        )
          break;
        if (Date.now() > deadline) {
          out.failure = `the task is still ${JSON.stringify(status)} after 10 s`;
          return out;
        }
        const wait =
          typeof out.task.pollIntervalMs === 'number'
            ? out.task.pollIntervalMs
            : 100;
        await new Promise((r) =>
          setTimeout(r, Math.min(Math.max(wait, 10), 500))
        );
      }
      out.result = isObject(out.task.result) ? out.task.result : undefined;
      if (!out.result) {
        out.failure = `the ${JSON.stringify(out.task.status)} task has no result: a tool error is a result of a completed task`;
      }
    } else {
      // tasks/result waits for the task to end.
      out.result = await conn.request<Json>('tasks/result', { taskId });
      out.task = await conn.request<Json>('tasks/get', { taskId });
    }
  } catch (error) {
    out.failure =
      error instanceof JsonRpcError
        ? `JSON-RPC error ${error.code}: ${error.message}`
        : error instanceof Error
          ? error.message
          : String(error);
  }
  return out;
}
