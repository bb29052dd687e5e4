// The range picker's ranges against the history API's plan: every range the dashboard offers is accepted at
// any moment (a minute step never reaches past the minute rollups), and a URL's range falls back to 1 h.
import { describe, expect, it } from 'vitest';
import { planHistory } from '@/db/queries/history';
import { bandChanges } from '@/components/balancers/balancer-history';
import { pointsInRange } from '@/components/nodes/node-activity';
import { HistoryStep } from '@/lib/schemas/history';
import { historyParams, readRange, TIME_RANGES, withRange } from '@/lib/ui/time-range';

describe('time ranges', () => {
  it('gives the history API a plan it accepts, at any second of an hour', () => {
    const start = Date.UTC(2026, 11, 6, 8, 0, 0);
    for (const range of TIME_RANGES)
      for (let now = start; now < start + 3_600_000; now += 7_001) {
        const p = historyParams(range, now);
        const plan = planHistory({ from: p.from, to: p.to, stepMs: HistoryStep.parse(p.step) }, now);
        expect(plan.stepMs).toBe(range.stepMs);
        expect(plan.source).toBe(range.stepMs % 3_600_000 === 0 ? 'hours' : 'minutes');
        // The steps cover the range, one step short at most where the minute rollups end.
        expect(plan.from).toBeLessThanOrEqual(now - range.ms + range.stepMs + 60_000);
        expect(plan.steps).toBeLessThanOrEqual(1 + range.ms / range.stepMs);
      }
  });

  it('reads the range from the URL, the default for a missing or unknown one, and keeps other parameters', () => {
    expect(readRange('24h').key).toBe('24h');
    expect(readRange(null).key).toBe('1h');
    expect(readRange('2y').key).toBe('1h');
    expect(withRange('tab=x', '7d')).toBe('?tab=x&range=7d');
    expect(withRange('range=7d&tab=x', '1h')).toBe('?tab=x');
    expect(withRange('range=7d', '1h')).toBe('');
  });

  it('parses steps as milliseconds or durations', () => {
    expect(HistoryStep.parse('5m')).toBe(300_000);
    expect(HistoryStep.parse('2h')).toBe(7_200_000);
    expect(HistoryStep.parse('60000')).toBe(60_000);
    expect(HistoryStep.safeParse('5 minutes').success).toBe(false);
  });
});

describe('what the screens derive', () => {
  const step = (at: number, band: 'uniform' | 'drift' | 'era-split' | 'degraded' | 'no-data') => ({
    at,
    band,
    state: 'uniform' as const,
    severity: null,
    nodes: 1,
    available: 1,
    unavailable: 0,
    authGated: 0,
    eras: { modern: 1, dualEra: 0, legacy: 0 },
    fingerprints: 1,
    windowOpen: false,
    targetRevision: null,
    servingTarget: 0,
    probes: 1,
    failures: 0,
  });

  it('lists the band changes, a rollback as visible as progress, gaps without data skipped', () => {
    const steps = [
      step(0, 'uniform'),
      step(1, 'era-split'),
      step(2, 'drift'),
      step(3, 'no-data'),
      step(4, 'era-split'),
      step(5, 'drift'),
      step(6, 'uniform'),
    ];
    expect(bandChanges(steps).map((c) => `${c.band}@${c.at}`)).toEqual([
      'uniform@0',
      'era-split@1',
      'drift@2',
      'era-split@4',
      'drift@5',
      'uniform@6',
    ]);
  });

  it("sums a node's probes over the picked range only", () => {
    const now = Date.UTC(2026, 11, 6, 8, 30);
    const pt = (at: number, spanMs: number, probes: number, failures = 0) => ({
      at,
      spanMs,
      probes,
      failures,
      p50Ms: 1,
      p95Ms: 2,
    });
    const points = [
      pt(now - 3 * 86_400_000, 3_600_000, 100, 5),
      pt(now - 2 * 3_600_000, 60_000, 10, 1),
      pt(now - 10 * 60_000, 60_000, 2),
      pt(now - 60_000, 60_000, 2, 1),
    ];
    expect(pointsInRange(points, readRange('15m'), now)).toMatchObject({ probes: 4, failures: 1 });
    expect(pointsInRange(points, readRange('6h'), now)).toMatchObject({ probes: 14, failures: 2 });
    expect(pointsInRange(points, readRange('7d'), now)).toMatchObject({ probes: 114, failures: 7 });
  });
});

describe('minute ring reads', () => {
  it('reads consecutive node seqs as one key range each', async () => {
    const { seqRuns } = await import('@/db/queries/history');
    expect(seqRuns([5, 1, 2, 3, 9, 10, 3])).toEqual([
      [1, 3],
      [5, 5],
      [9, 10],
    ]);
    expect(seqRuns([])).toEqual([]);
  });
});
