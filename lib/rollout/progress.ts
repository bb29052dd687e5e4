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

type Matches = (key: string, fp: Fingerprint) => boolean;

/** Each node's spans, oldest first. */
function spansByNode(spans: readonly ProgressSpan[]): Map<string, ProgressSpan[]> {
  const byNode = new Map<string, ProgressSpan[]>();
  for (const s of spans) {
    const list = byNode.get(s.nodeId) ?? [];
    list.push(s);
    byNode.set(s.nodeId, list);
  }
  for (const list of byNode.values()) list.sort((a, b) => a.startedAt - b.startedAt);
  return byNode;
}

/** The revision the target stands for: the window's, else the target group's, else the largest group's. */
function targetRevisionOf(
  input: ProgressInput,
  matches: Matches,
): { targetRevision: string | null; servingTargetRevision: number } {
  const { partition, window } = input;
  const targetGroup = partition.find((g) => matches(g.key, g.fingerprint)) ?? null;
  const targetRevision =
    (window ? (window.target.negotiatedVersion ?? window.target.supportedIncludes) : undefined) ??
    targetGroup?.fingerprint.negotiatedVersion ??
    partition[0]?.fingerprint.negotiatedVersion ??
    null;
  const servingTargetRevision =
    targetRevision === null
      ? 0
      : partition
          .filter((g) => g.fingerprint.supported.includes(targetRevision))
          .reduce((n, g) => n + g.nodeIds.length, 0);
  return { targetRevision, servingTargetRevision };
}

/** The change of the on-target count over the last 10 minutes and hour, read from the spans. */
function changesOf(
  input: ProgressInput,
  byNode: ReadonlyMap<string, ProgressSpan[]>,
  isOn: (s: ProgressSpan) => boolean,
  onTarget: number,
) {
  const { now } = input;
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
  return { change10m, change1h, trend, baseline };
}

/** The last time a node moved onto or off the target (an outage is not a move). */
function lastMoveOf(byNode: ReadonlyMap<string, ProgressSpan[]>, isOn: (s: ProgressSpan) => boolean) {
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
  return lastMoveAt;
}

/** Inside an open window and not complete: the estimate to uniform at the current rate, or stalled. */
function estimateOf(
  input: ProgressInput,
  p: {
    remaining: number;
    change10m: number | null;
    change1h: number | null;
    lastMoveAt: number | null;
    baseline: (periodMs: number) => number;
  },
): { etaAt: number | null; stalled: boolean } {
  const { now, window } = input;
  if (!window) return { etaAt: null, stalled: false };
  const stallCycles = input.stallCycles ?? DEFAULT_STALL_CYCLES;
  const elapsed = (periodMs: number) => Math.max(1, now - p.baseline(periodMs));
  const rate =
    p.change10m !== null && p.change10m > 0
      ? p.change10m / elapsed(TEN_MINUTES_MS)
      : p.change1h !== null && p.change1h > 0
        ? p.change1h / elapsed(HOUR_MS)
        : 0;
  const quietSince = Math.max(p.lastMoveAt ?? window.openedAt, window.openedAt);
  const stalled = now - quietSince >= stallCycles * input.intervalMs;
  const etaAt = !stalled && rate > 0 && p.remaining > 0 ? Math.round(now + p.remaining / rate) : null;
  return { etaAt, stalled };
}

export function computeProgress(input: ProgressInput): BalancerProgress {
  const { partition, window } = input;
  const known = new Map(partition.map((g) => [g.key, g.fingerprint]));
  const largest = partition[0] ?? null;
  const matches: Matches = (key, fp) =>
    window ? matchesTarget(fp, key, window.target) : largest !== null && key === largest.key;

  const available = partition.reduce((n, g) => n + g.nodeIds.length, 0);
  const onTarget = partition
    .filter((g) => matches(g.key, g.fingerprint))
    .reduce((n, g) => n + g.nodeIds.length, 0);
  const complete = available > 0 && partition.length === 1 && onTarget === available;

  const byNode = spansByNode(input.spans);
  const isOn = (s: ProgressSpan) =>
    s.clientEra !== 'unavailable' && matches(s.fingerprintKey, spanFingerprint(s, known));
  const { change10m, change1h, trend, baseline } = changesOf(input, byNode, isOn, onTarget);
  const lastMoveAt = lastMoveOf(byNode, isOn);
  const { etaAt, stalled } = complete
    ? { etaAt: null, stalled: false }
    : estimateOf(input, { remaining: available - onTarget, change10m, change1h, lastMoveAt, baseline });

  return {
    basis: window ? 'window' : 'largest-group',
    targetLabel: window ? window.targetLabel : 'largest group',
    onTarget,
    available,
    share: available === 0 ? 0 : onTarget / available,
    complete,
    ...targetRevisionOf(input, matches),
    change10m,
    change1h,
    trend,
    etaAt,
    stalled,
    lastMoveAt,
    offerWindow: window === null && !complete && available > 0,
  };
}
