/**
 * A minimal runner for the SEP-3313 scenarios, standing in for the suite's
 * own `server` and `client` commands, which cannot load a scenario from
 * outside their bundle (the published package exports nothing). It takes
 * the same options:
 *
 *   server --url URL [--scenario NAME] [--spec-version V] [-o DIR]
 *   client --command CMD [--scenario NAME] [--spec-version V] [-o DIR] [--timeout MS]
 *
 * and, like the suite, runs a client command with the scenario server's URL
 * as its last argument and MCP_CONFORMANCE_SCENARIO and
 * MCP_CONFORMANCE_PROTOCOL_VERSION in its environment. It prints the same
 * report (the checks, then "=== SUMMARY ===" with one line per scenario),
 * writes each scenario's checks.json where the suite does
 * (DIR/{server,client}-NAME-TIMESTAMP/checks.json), so that the published
 * package's `traceability --results DIR` reads them, and exits 1 when a
 * check failed.
 */

import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { connectFor, type RunContext } from '../src/connection';
import {
  DRAFT_PROTOCOL_VERSION,
  LATEST_SPEC_VERSION,
  type ClientScenario,
  type ConformanceCheck,
  type Scenario,
  type SpecVersion
} from '../src/types';
import type { ScenarioContext } from '../src/mock-server';
import { ToolFailureScenario } from '../src/scenarios/server/tool-failure';
import { ToolFailureRetryScenario } from '../src/scenarios/client/tool-failure-retry';

// What upstream registers in src/scenarios/index.ts.
const serverScenarios: ClientScenario[] = [new ToolFailureScenario()];
const clientScenarios: Scenario[] = [new ToolFailureRetryScenario()];

const ICON: Record<string, string> = {
  SUCCESS: '✓',
  FAILURE: '✗',
  WARNING: '⚠',
  SKIPPED: '-',
  INFO: 'i'
};

function resolveSpecVersion(v: string | undefined): SpecVersion {
  if (v === undefined) return LATEST_SPEC_VERSION;
  if (v === 'draft') return DRAFT_PROTOCOL_VERSION;
  if (v === LATEST_SPEC_VERSION || v === DRAFT_PROTOCOL_VERSION) return v;
  console.error(
    `Unknown spec version: ${v} (this runner speaks ${LATEST_SPEC_VERSION} and ${DRAFT_PROTOCOL_VERSION})`
  );
  process.exit(2);
}

function printChecks(checks: ConformanceCheck[], verbose: boolean | undefined) {
  if (verbose) {
    console.log(JSON.stringify(checks, null, 2));
    return;
  }
  console.log('Checks:');
  for (const c of checks) {
    console.log(
      `  ${ICON[c.status] ?? '?'} ${c.id} [${c.status}]${c.errorMessage ? `: ${c.errorMessage}` : ''}`
    );
  }
}

function save(
  output: string | undefined,
  side: string,
  scenario: string,
  checks: ConformanceCheck[]
) {
  if (!output) return;
  const dir = path.join(
    output,
    `${side}-${scenario}-${new Date().toISOString().replace(/[:.]/g, '-')}`
  );
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'checks.json'), JSON.stringify(checks, null, 2));
  console.log(`Results saved to ${dir}`);
}

/** Runs the client command until it exits, or kills it at the timeout. */
function runClient(
  command: string,
  url: string,
  scenario: string,
  specVersion: SpecVersion,
  timeoutMs: number
): Promise<void> {
  const [executable, ...args] = command.split(' ').filter((a) => a !== '');
  return new Promise((resolve) => {
    const child = spawn(executable, [...args, url], {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: {
        ...process.env,
        MCP_CONFORMANCE_SCENARIO: scenario,
        MCP_CONFORMANCE_PROTOCOL_VERSION: specVersion
      }
    });
    const timer = setTimeout(() => {
      console.log(`Client timed out after ${timeoutMs} ms; killing it`);
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (e) => {
      console.log(`Client failed to start: ${e.message}`);
      clearTimeout(timer);
      resolve();
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      console.log(`Client exited with ${signal ?? code}`);
      resolve();
    });
  });
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      command: { type: 'string' },
      scenario: { type: 'string' },
      'spec-version': { type: 'string' },
      output: { type: 'string', short: 'o' },
      timeout: { type: 'string' },
      verbose: { type: 'boolean' }
    }
  });
  const side = positionals[0];
  if (
    !(
      (side === 'server' && values.url) ||
      (side === 'client' && values.command)
    )
  ) {
    console.error(
      'usage: run.ts server --url URL | client --command CMD [--scenario NAME] [--spec-version V] [-o DIR] [--timeout MS] [--verbose]'
    );
    return 2;
  }
  const specVersion = resolveSpecVersion(values['spec-version']);
  const known: { name: string }[] =
    side === 'server' ? serverScenarios : clientScenarios;
  const selected = values.scenario
    ? known.filter((s) => s.name === values.scenario)
    : known;
  if (selected.length === 0) {
    console.error(
      `Unknown ${side} scenario: ${values.scenario} (known: ${known.map((s) => s.name).join(', ')})`
    );
    return 2;
  }

  const results: { scenario: string; checks: ConformanceCheck[] }[] = [];
  for (const s of selected) {
    let checks: ConformanceCheck[];
    if (side === 'server') {
      const scenario = s as ClientScenario;
      console.log(
        `Running client scenario '${scenario.name}' against server: ${values.url} (spec version ${specVersion})`
      );
      const ctx: RunContext = {
        serverUrl: values.url!,
        specVersion,
        connect: (opts) => connectFor(specVersion)(values.url!, opts)
      };
      checks = await scenario.run(ctx);
    } else {
      const scenario = s as Scenario;
      const ctx: ScenarioContext = {
        specVersion,
        createServer: () =>
          Promise.reject(new Error('this runner has no shared mock server'))
      };
      const urls = await scenario.start(ctx);
      console.log(
        `Running server scenario '${scenario.name}' for client: ${values.command} (spec version ${specVersion})`
      );
      try {
        await runClient(
          values.command!,
          urls.serverUrl,
          scenario.name,
          specVersion,
          Number(values.timeout ?? 30_000)
        );
      } finally {
        await scenario.stop();
      }
      checks = scenario.getChecks();
    }
    results.push({ scenario: s.name, checks });
    save(values.output, side, s.name, checks);
    printChecks(checks, values.verbose);
  }

  console.log('\n\n=== SUMMARY ===');
  let failed = 0;
  for (const r of results) {
    const p = r.checks.filter((c) => c.status === 'SUCCESS').length;
    const f = r.checks.filter((c) => c.status === 'FAILURE').length;
    const w = r.checks.filter((c) => c.status === 'WARNING').length;
    failed += f;
    console.log(
      `${f === 0 ? '✓' : '✗'} ${r.scenario}: ${p} passed, ${f} failed${w > 0 ? `, ${w} warnings` : ''}`
    );
  }
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  }
);
