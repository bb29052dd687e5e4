// A balancer's severity level, one word for how bad it is now: the divergence severity while non-uniform
// (era-split, drift, region-split), else flapping, else degraded (nodes unavailable), else uniform. A change of
// level between two snapshots is a `balancer.severity_changed` event; moves into and out of divergence are
// already `balancer.diverged` and `balancer.converged`, so those two carry them instead.
import type { BalancerSnapshot } from './types';

export const SEVERITY_LEVELS = [
  'era-split',
  'drift',
  'region-split',
  'flapping',
  'degraded',
  'uniform',
] as const;
export type SeverityLevel = (typeof SEVERITY_LEVELS)[number];

const DEGRADED_STATUSES: ReadonlySet<string> = new Set(['down', 'auth-gated', 'degraded']);

/** The level of a snapshot, or null when nothing was probed (no node, no answer: nothing to compare). */
export function severityLevel(s: BalancerSnapshot): SeverityLevel | null {
  if (s.state === 'non-uniform' && s.severity !== null) return s.severity;
  if (s.flapping.length > 0) return 'flapping';
  if (DEGRADED_STATUSES.has(s.displayStatus) || s.nodes.some((n) => !n.available)) return 'degraded';
  if (s.state === 'uniform') return 'uniform';
  return null;
}

/** The `{ from, to }` of a severity change between two snapshots, or null when the level did not change. */
export function severityChange(
  prev: BalancerSnapshot | null,
  next: BalancerSnapshot,
): { from: SeverityLevel; to: SeverityLevel } | null {
  if (prev === null) return null;
  const from = severityLevel(prev);
  const to = severityLevel(next);
  if (from === null || to === null || from === to) return null;
  return { from, to };
}
