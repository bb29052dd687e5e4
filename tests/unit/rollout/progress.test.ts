import { describe, expect, it } from 'vitest';
import { computeProgress, type ProgressSpan } from '@/lib/rollout/progress';
import type { Fingerprint } from '@/lib/rollout/types';

const MIN = 60_000;
const NOW = 1_800_000_000_000;
const OLD: Fingerprint = {
  era: 'legacy',
  negotiatedVersion: '2025-06-18',
  supported: ['2025-06-18'],
  servedEras: 'legacy-only',
  serverName: 's',
  serverVersion: '1.9.0',
};
const DUAL: Fingerprint = {
  ...OLD,
  era: 'modern',
  negotiatedVersion: '2026-07-28',
  supported: ['2025-06-18', '2026-07-28'],
  servedEras: 'dual-era',
  serverVersion: '2.0.0',
};
const NEW: Fingerprint = {
  ...DUAL,
  supported: ['2026-07-28'],
  servedEras: 'modern-only',
  serverVersion: '2.1.0',
};
const FP = { old: OLD, dual: DUAL, new: NEW } as const;
type Kind = keyof typeof FP;

/**
 * A fleet of `n` nodes that starts on `old` and moves one node to `new` per cycle (one cycle a minute) from
 * `startAt`, for `moves` cycles; returns the spans and the partition now.
 */
function fleet(n: number, moves: number, startAt: number, from: Kind = 'old') {
  const spans: ProgressSpan[] = [];
  const now: Record<string, Kind> = {};
  for (let i = 0; i < n; i++) {
    const nodeId = `n${i}`;
    const movedAt = i < moves ? startAt + i * MIN : null;
    const span = (kind: Kind, s: number, e: number | null): ProgressSpan => ({
      nodeId,
      fingerprintKey: kind,
      clientEra: FP[kind].era,
      negotiatedVersion: FP[kind].negotiatedVersion,
      servedEras: FP[kind].servedEras,
      startedAt: s,
      endedAt: e,
    });
    spans.push(span(from, NOW - 3 * 60 * MIN, movedAt));
    if (movedAt !== null) spans.push(span('new', movedAt, null));
    now[nodeId] = movedAt === null ? from : 'new';
  }
  const groups = new Map<Kind, string[]>();
  for (const [id, k] of Object.entries(now)) groups.set(k, [...(groups.get(k) ?? []), id]);
  const partition = [...groups.entries()]
    .map(([key, nodeIds]) => ({ key, fingerprint: FP[key], nodeIds }))
    .sort((a, b) => b.nodeIds.length - a.nodeIds.length);
  return { spans, partition };
}

const window = {
  target: { servedEras: 'modern-only' as const },
  targetLabel: 'modern only',
  openedAt: NOW - 60 * MIN,
};

describe('computeProgress toward an open window', () => {
  it('a fleet moving one node per cycle: counts, trend and an estimate at that rate', () => {
    // 20 nodes; one moved each minute for the last 8 minutes (the 8th just now).
    const { spans, partition } = fleet(20, 8, NOW - 7 * MIN);
    const p = computeProgress({ now: NOW, intervalMs: MIN, partition, window, spans });
    expect(p).toMatchObject({
      basis: 'window',
      onTarget: 8,
      available: 20,
      complete: false,
      targetRevision: '2026-07-28',
      servingTargetRevision: 8,
      change10m: 8,
      change1h: 8,
      trend: 'up',
      stalled: false,
      lastMoveAt: NOW,
      offerWindow: false,
    });
    expect(p.share).toBeCloseTo(0.4);
    // 8 nodes in 10 minutes: the other 12 take 15 minutes.
    expect(p.etaAt).toBe(NOW + 15 * MIN);
  });

  it('a fleet that stopped moving is stalled, without an estimate', () => {
    // Three nodes moved 40 to 38 minutes ago, nothing since: 38 cycles without movement.
    const { spans, partition } = fleet(10, 3, NOW - 40 * MIN);
    const p = computeProgress({ now: NOW, intervalMs: MIN, partition, window, spans });
    expect(p).toMatchObject({
      onTarget: 3,
      change10m: 0,
      change1h: 3,
      trend: 'flat',
      stalled: true,
      etaAt: null,
    });
    expect(p.lastMoveAt).toBe(NOW - 38 * MIN);
    // Within N cycles of the last move it is not stalled yet.
    const fresh = computeProgress({
      now: NOW - 36 * MIN,
      intervalMs: MIN,
      partition,
      window,
      spans,
      stallCycles: 5,
    });
    expect(fresh.stalled).toBe(false);
  });

  it('a rollback shows as a downward trend', () => {
    const { partition, spans } = fleet(4, 0, NOW);
    // n0 went to the target 30 minutes ago and back 5 minutes ago.
    const s = spans.find((x) => x.nodeId === 'n0');
    if (!s) throw new Error('no span');
    s.startedAt = NOW - 5 * MIN;
    spans.push(
      { ...s, startedAt: NOW - 120 * MIN, endedAt: NOW - 30 * MIN },
      {
        nodeId: 'n0',
        fingerprintKey: 'new',
        clientEra: 'modern',
        negotiatedVersion: '2026-07-28',
        servedEras: 'modern-only',
        startedAt: NOW - 30 * MIN,
        endedAt: NOW - 5 * MIN,
      },
    );
    const p = computeProgress({ now: NOW, intervalMs: MIN, partition, window, spans });
    expect(p).toMatchObject({
      onTarget: 0,
      change10m: -1,
      change1h: 0,
      trend: 'down',
      lastMoveAt: NOW - 5 * MIN,
    });
  });

  it('complete only when every available node presents the target', () => {
    const { spans, partition } = fleet(3, 3, NOW - 2 * MIN);
    const p = computeProgress({ now: NOW, intervalMs: MIN, partition, window, spans });
    expect(p).toMatchObject({ onTarget: 3, available: 3, complete: true, stalled: false, etaAt: null });
  });
});

describe('computeProgress without a window', () => {
  it('counts the largest group, offers a window, and is never done while served sets differ', () => {
    // Every node serves 2026-07-28 (dual-era and modern-only), yet the served sets differ.
    const { spans, partition } = fleet(5, 2, NOW - 20 * MIN, 'dual');
    const p = computeProgress({ now: NOW, intervalMs: MIN, partition, window: null, spans });
    expect(p).toMatchObject({
      basis: 'largest-group',
      targetLabel: 'largest group',
      onTarget: 3,
      available: 5,
      complete: false,
      servingTargetRevision: 5,
      offerWindow: true,
      etaAt: null,
      stalled: false,
    });
  });

  it('no history: change and trend unknown', () => {
    const { partition } = fleet(2, 0, NOW);
    const p = computeProgress({ now: NOW, intervalMs: MIN, partition, window: null, spans: [] });
    expect(p).toMatchObject({
      complete: true,
      change10m: null,
      change1h: null,
      trend: 'unknown',
      offerWindow: false,
    });
  });
});
