// Progress toward one served set, per balancer. With an open rollout window the target is the window's: how
// many available nodes present a fingerprint that matches it. Without one there is no declared target, so the
// measure is the share of available nodes in the largest fingerprint group (never "done" while groups differ,
// even when every node serves the same revision). The trend comes from stored fingerprint spans (one row per
// change of a node's fingerprint): how many nodes were on target 10 minutes and an hour ago.
import { matchesTarget } from './window';
import type { ServedEra } from '@/lib/probe/types';
import type { AvailableEra, Fingerprint, PartitionGroup, RolloutTarget } from './types';

/** A node's fingerprint span, as stored in the subject history. */
export interface ProgressSpan {
  nodeId: string;
  fingerprintKey: string;
  clientEra: string;
  negotiatedVersion: string | null;
  servedEras: string;
  startedAt: number;
  /** null while the span is open. */
  endedAt: number | null;
}

export interface ProgressInput {
  now: number;
  /** The balancer's poll interval: "stalled" counts cycles of it. */
  intervalMs: number;
  /** The current partition, largest group first (available nodes only). */
  partition: readonly Pick<PartitionGroup, 'key' | 'fingerprint' | 'nodeIds'>[];
  window: { target: RolloutTarget; targetLabel: string; openedAt: number } | null;
  /** Spans of the balancer's nodes that were open at some point in the last hour. */
  spans: readonly ProgressSpan[];
  /** Cycles without movement after which an open window's rollout is stalled. */
  stallCycles?: number;
}

export const DEFAULT_STALL_CYCLES = 5;
export const TEN_MINUTES_MS = 10 * 60_000;
export const HOUR_MS = 60 * 60_000;

export type ProgressTrend = 'up' | 'down' | 'flat' | 'unknown';

export interface BalancerProgress {
  /** `window`: toward the open window's target; `largest-group`: no declared target. */
  basis: 'window' | 'largest-group';
  /** What the count is toward: the window's target ("2026-07-28"), or "largest group". */
  targetLabel: string;
  onTarget: number;
  available: number;
  /** onTarget / available, 0 when nothing is available. */
  share: number;
  /** Every available node presents one fingerprint, and (with a window) it is the target. */
  complete: boolean;
  /** The revision the target stands for, and how many available nodes serve it at all (supported includes it). */
  targetRevision: string | null;
  servingTargetRevision: number;
  /**
   * Change of `onTarget` against 10 minutes and an hour ago (or against the oldest history, when younger);
   * null without history.
   */
  change10m: number | null;
  change1h: number | null;
  trend: ProgressTrend;
  /** Inside an open window: when it reaches uniform at the current rate (null: no rate, or complete). */
  etaAt: number | null;
  /** Inside an open window, not complete, and no node moved toward or away from the target for N cycles. */
  stalled: boolean;
  /** When a node last moved onto or off the target, as far as the history reaches; null when unknown. */
  lastMoveAt: number | null;
  /** No window and not uniform: the UI offers to open one. */
  offerWindow: boolean;
}

function spanFingerprint(s: ProgressSpan, known: ReadonlyMap<string, Fingerprint>): Fingerprint {
  return (
    known.get(s.fingerprintKey) ?? {
      era: s.clientEra as AvailableEra,
      negotiatedVersion: s.negotiatedVersion,
      supported: s.negotiatedVersion ? [s.negotiatedVersion] : [],
      servedEras: s.servedEras as ServedEra,
      serverName: null,
      serverVersion: null,
    }
  );
}

export function computeProgress(input: ProgressInput): BalancerProgress {
  const { now, partition, window } = input;
  const stallCycles = input.stallCycles ?? DEFAULT_STALL_CYCLES;
  const known = new Map(partition.map((g) => [g.key, g.fingerprint]));
  const largest = partition[0] ?? null;
  const matches = (key: string, fp: Fingerprint): boolean =>
    window ? matchesTarget(fp, key, window.target) : largest !== null && key === largest.key;

  const available = partition.reduce((n, g) => n + g.nodeIds.length, 0);
  const onTarget = partition
    .filter((g) => matches(g.key, g.fingerprint))
    .reduce((n, g) => n + g.nodeIds.length, 0);
  const complete = available > 0 && partition.length === 1 && onTarget === available;

  const targetGroup = partition.find((g) => matches(g.key, g.fingerprint)) ?? null;
  const targetRevision =
    (window ? (window.target.negotiatedVersion ?? window.target.supportedIncludes) : undefined) ??
    targetGroup?.fingerprint.negotiatedVersion ??
    largest?.fingerprint.negotiatedVersion ??
    null;
  const servingTargetRevision =
    targetRevision === null
      ? 0
      : partition
          .filter((g) => g.fingerprint.supported.includes(targetRevision))
          .reduce((n, g) => n + g.nodeIds.length, 0);

  // Per node, its spans oldest first.
  const byNode = new Map<string, ProgressSpan[]>();
  for (const s of input.spans) {
    const list = byNode.get(s.nodeId) ?? [];
    list.push(s);
    byNode.set(s.nodeId, list);
  }
  for (const list of byNode.values()) list.sort((a, b) => a.startedAt - b.startedAt);
  const isOn = (s: ProgressSpan) =>
    s.clientEra !== 'unavailable' && matches(s.fingerprintKey, spanFingerprint(s, known));

  /** On-target count at `at`, or null when no node's history reaches back that far. */
  const onTargetAt = (at: number): number | null => {
    let seen = 0;
    let on = 0;
    for (const list of byNode.values()) {
      const span = list.find((s) => s.startedAt <= at && (s.endedAt === null || s.endedAt > at));
      if (!span) continue;
      seen++;
      if (isOn(span)) on++;
    }
    return seen === 0 ? null : on;
  };
  // History younger than the period (a new balancer, a new install) counts from where it begins.
  const earliest = input.spans.reduce((m, s) => Math.min(m, s.startedAt), Number.POSITIVE_INFINITY);
  const baseline = (periodMs: number) => Math.max(now - periodMs, earliest);
  const changeOver = (periodMs: number) => {
    const at = baseline(periodMs);
    const then = at <= now ? onTargetAt(at) : null;
    return then === null ? null : onTarget - then;
  };
  const change10m = changeOver(TEN_MINUTES_MS);
  const change1h = changeOver(HOUR_MS);
  const recent = change10m ?? change1h;
  const trend: ProgressTrend = recent === null ? 'unknown' : recent > 0 ? 'up' : recent < 0 ? 'down' : 'flat';

  // The last time a node moved onto or off the target (an outage is not a move).
  let lastMoveAt: number | null = null;
  for (const list of byNode.values()) {
    let prev: boolean | null = null;
    for (const s of list) {
      if (s.clientEra === 'unavailable') continue;
      const on = isOn(s);
      if (prev !== null && on !== prev && (lastMoveAt === null || s.startedAt > lastMoveAt))
        lastMoveAt = s.startedAt;
      prev = on;
    }
  }

  let etaAt: number | null = null;
  let stalled = false;
  if (window && !complete) {
    const remaining = available - onTarget;
    const elapsed = (periodMs: number) => Math.max(1, now - baseline(periodMs));
    const rate =
      change10m !== null && change10m > 0
        ? change10m / elapsed(TEN_MINUTES_MS)
        : change1h !== null && change1h > 0
          ? change1h / elapsed(HOUR_MS)
          : 0;
    if (rate > 0 && remaining > 0) etaAt = Math.round(now + remaining / rate);
    const quietSince = Math.max(lastMoveAt ?? window.openedAt, window.openedAt);
    stalled = now - quietSince >= stallCycles * input.intervalMs;
    if (stalled) etaAt = null;
  }

  return {
    basis: window ? 'window' : 'largest-group',
    targetLabel: window ? window.targetLabel : 'largest group',
    onTarget,
    available,
    share: available === 0 ? 0 : onTarget / available,
    complete,
    targetRevision,
    servingTargetRevision,
    change10m,
    change1h,
    trend,
    etaAt,
    stalled,
    lastMoveAt,
    offerWindow: window === null && !complete && available > 0,
  };
}
