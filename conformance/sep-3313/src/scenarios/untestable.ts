/**
 * Stand-in for the suite's src/scenarios/untestable.ts (not exported by the
 * published package): the same two helpers, unchanged, for the SEP-3313
 * scenarios. Not part of the contribution.
 *
 * A check whose prerequisite is missing (here: a fixture tool the server
 * does not list) fails, naming the prerequisite, rather than reading as
 * SKIPPED, which every consumer counts as green.
 */

import type { ConformanceCheck, SpecReference } from '../types';

export function notTestable(reason: string): string {
  return `Not testable: ${reason}`;
}

export function untestableCheck(
  id: string,
  name: string,
  description: string,
  reason: string,
  specReferences: SpecReference[],
  severity: 'FAILURE' | 'WARNING' = 'FAILURE'
): ConformanceCheck {
  return {
    id,
    name,
    description,
    status: severity,
    timestamp: new Date().toISOString(),
    errorMessage: notTestable(reason),
    specReferences,
    details: { untestable: true, reason }
  };
}
