/**
 * Stand-in for the suite's src/types.ts, which the published package
 * (a single bundled CLI) does not export. It declares, with the suite's own
 * shapes, only what the SEP-3313 scenarios use. It is not part of the
 * contribution: upstream, the scenarios import the real module, to which the
 * contribution adds one line, the extension's id in EXTENSION_IDS.
 */

import type { ScenarioContext } from './mock-server';

export type CheckStatus =
  | 'SUCCESS'
  | 'FAILURE'
  | 'WARNING'
  | 'SKIPPED'
  | 'INFO';

export interface SpecReference {
  id: string;
  url?: string;
}

export interface ConformanceCheck {
  id: string;
  name: string;
  description: string;
  status: CheckStatus;
  timestamp: string;
  specReferences?: SpecReference[];
  source?: ScenarioSource;
  details?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  errorMessage?: string;
  logs?: string[];
}

export const DATED_SPEC_VERSIONS = [
  '2025-03-26',
  '2025-06-18',
  '2025-11-25'
] as const;
export type DatedSpecVersion = (typeof DATED_SPEC_VERSIONS)[number];
export const LATEST_SPEC_VERSION: DatedSpecVersion = '2025-11-25';
export const DRAFT_PROTOCOL_VERSION = '2026-07-28';
export type SpecVersion = DatedSpecVersion | typeof DRAFT_PROTOCOL_VERSION;

export const EXTENSION_IDS = [
  'io.modelcontextprotocol/oauth-client-credentials',
  'io.modelcontextprotocol/enterprise-managed-authorization',
  'io.modelcontextprotocol/auth/dpop',
  'io.modelcontextprotocol/auth/wif',
  'io.modelcontextprotocol/tasks',
  // The one line the contribution adds upstream.
  'io.modelcontextprotocol/toolFailure'
] as const;
export type ExtensionId = (typeof EXTENSION_IDS)[number];

export type ScenarioSource =
  | {
      introducedIn: DatedSpecVersion | typeof DRAFT_PROTOCOL_VERSION;
      removedIn?: DatedSpecVersion | typeof DRAFT_PROTOCOL_VERSION;
    }
  | { extensionId: ExtensionId };

export interface ScenarioUrls {
  serverUrl: string;
  authUrl?: string;
  context?: Record<string, unknown>;
}

export interface Scenario {
  name: string;
  description: string;
  source: ScenarioSource;
  allowClientError?: boolean;
  start(ctx: ScenarioContext): Promise<ScenarioUrls>;
  stop(): Promise<void>;
  getChecks(): ConformanceCheck[];
}

export interface ClientScenario {
  name: string;
  description: string;
  source: ScenarioSource;
  run(ctx: import('./connection').RunContext): Promise<ConformanceCheck[]>;
}
