// Rollout windows: a declared target and deadline. Inside one, divergence is progress; past the
// deadline, a balancer still not uniform on the target is stuck.
import { ValidationError } from '@/lib/errors';
import { SERVED_ERA_LABELS } from './labels';
import { plural } from './text';
import type { Fingerprint, RolloutTarget, RolloutWindowInput, WindowProgress, WindowStatus } from './types';

/** A window opened at `now` must end later: a ValidationError on `deadline` otherwise. */
export function checkWindowDeadline(deadline: number, now: number): void {
  if (deadline <= now) throw new ValidationError([{ path: 'deadline', message: 'must be in the future' }]);
}

/** Alerts expected while a declared rollout runs: held until the window closes (dropped) or overruns (sent). */
export const HELD_DURING_ROLLOUT: readonly string[] = [
  'balancer.diverged',
  'node.era_changed',
  'node.catalog_changed',
];

/** Whether an alert of `type` raised at `at` is held by the balancer's open window (none: null). */
export function heldByWindow(type: string, at: number, open: { deadline: number } | null): boolean {
  return open !== null && open.deadline > at && HELD_DURING_ROLLOUT.includes(type);
}

/**
 * What becomes of a held alert at `now`: its window closed by the deadline means the rollout finished as
 * declared, so it is dropped (`suppress`); a window past its deadline, or gone with its balancer, sends it
 * (`release`); else it stays held.
 */
export function settleHeldAlert(
  window: { closedAt: number | null; deadline: number | null },
  now: number,
): 'release' | 'suppress' | 'hold' {
  if (window.deadline === null) return 'release';
  if (window.closedAt !== null && window.closedAt <= window.deadline) return 'suppress';
  return now >= window.deadline ? 'release' : 'hold';
}

export function matchesTarget(fp: Fingerprint, key: string, target: RolloutTarget): boolean {
  if (target.era !== undefined && fp.era !== target.era) return false;
  if (target.negotiatedVersion !== undefined && fp.negotiatedVersion !== target.negotiatedVersion)
    return false;
  if (target.servedEras !== undefined && fp.servedEras !== target.servedEras) return false;
  if (target.supportedIncludes !== undefined && !fp.supported.includes(target.supportedIncludes))
    return false;
  if (target.fingerprintKey !== undefined && key !== target.fingerprintKey) return false;
  return true;
}

/** "2026-07-28", "modern · dual-era", "serving 2026-07-28", "fingerprint fp_…". */
export function describeTarget(target: RolloutTarget): string {
  const parts: string[] = [];
  if (target.negotiatedVersion !== undefined) {
    parts.push(target.era ? `${target.era} ${target.negotiatedVersion}` : target.negotiatedVersion);
  } else if (target.era !== undefined) {
    parts.push(target.era);
  }
  if (target.servedEras !== undefined) parts.push(SERVED_ERA_LABELS[target.servedEras].toLowerCase());
  if (target.supportedIncludes !== undefined) parts.push(`serving ${target.supportedIncludes}`);
  if (target.fingerprintKey !== undefined) parts.push(`fingerprint ${target.fingerprintKey}`);
  return parts.join(' · ');
}

/** One probed member (node or sample): its fingerprint, or null when unavailable. */
export interface KeyedMember {
  keyed: { key: string; fingerprint: Fingerprint } | null;
}

export interface WindowFacts {
  at: number;
  nodes: KeyedMember[];
  samples: KeyedMember[];
  /** The single fingerprint when the balancer is uniform, else null. */
  uniformFingerprint: { key: string; fingerprint: Fingerprint } | null;
  /** The window was flagged stuck by an earlier cycle. */
  alreadyStuck: boolean;
}

/**
 * Progress counts nodes (or samples, for a balancer probed only through its public URL); an
 * unavailable member is not on target. Complete means uniform on target, whatever the clock says;
 * unavailable nodes do not hold it back (they are reported as degraded, not as divergence).
 */
export function computeWindowProgress(window: RolloutWindowInput, facts: WindowFacts): WindowProgress {
  const unit = facts.nodes.length > 0 || facts.samples.length === 0 ? 'nodes' : 'samples';
  const members = unit === 'nodes' ? facts.nodes : facts.samples;
  const onTarget = members.filter(
    (m) => m.keyed !== null && matchesTarget(m.keyed.fingerprint, m.keyed.key, window.target),
  ).length;
  const total = members.length;
  const uniform = facts.uniformFingerprint;
  const complete = uniform !== null && matchesTarget(uniform.fingerprint, uniform.key, window.target);

  let status: WindowStatus;
  if (complete) status = 'complete';
  else if (facts.at < window.openedAt) status = 'scheduled';
  else if (facts.at > window.deadline || facts.alreadyStuck) status = 'stuck';
  else status = 'open';

  const targetLabel = describeTarget(window.target);
  const counted = unit === 'nodes' ? plural(total, 'node', 'nodes') : plural(total, 'sample', 'samples');
  return {
    windowId: window.id,
    status,
    onTarget,
    total,
    unit,
    label: `${onTarget} of ${counted} on ${targetLabel}`,
    targetLabel,
    deadline: window.deadline,
    stuck: status === 'stuck' || (complete && facts.alreadyStuck),
  };
}
