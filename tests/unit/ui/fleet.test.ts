import { describe, expect, it } from 'vitest';
import type { PartitionGroup } from '@/lib/rollout/types';
import { analysisViewOf, type StoredAnalysisView } from '@/lib/schemas/balancer-analysis';
import type { AnalysisFields } from '@/lib/rollout/analysis';
import {
  countFleet,
  eraMixOf,
  filterFleet,
  formatAge,
  formatMix,
  formatSince,
  sortFleet,
  toFleetRow,
  type FleetRow,
} from '@/lib/ui/fleet';

function group(era: 'modern' | 'legacy', nodeIds: string[], sampleCount = 0): PartitionGroup {
  return {
    key: `${era}-${nodeIds.join()}`,
    fingerprint: {
      era,
      negotiatedVersion: era === 'modern' ? '2026-07-28' : '2025-11-25',
      supported: [],
      servedEras: era === 'modern' ? 'modern-only' : 'legacy-only',
      serverName: 's',
      serverVersion: '1',
    },
    nodeIds,
    sampleCount,
    sampleNodeIds: [],
    toolNames: null,
    catalogDiff: null,
  };
}

function analysis(over: Partial<AnalysisFields>): StoredAnalysisView {
  return analysisViewOf(
    {
      balancerId: 'b1',
      analyzedAt: 1_000,
      status: 'uniform',
      severity: null,
      partition: [],
      degradedNodes: [],
      unavailableSamples: [],
      unplacedSamples: 0,
      reasons: [],
      degraded: false,
      flapping: [],
      cacheHazard: {
        maxTtlMs: null,
        availableSamples: 0,
        contradictingSamples: 0,
        contradictingShare: null,
        differingSamples: 0,
        catalogTtlMs: null,
      },
      gates: [],
      window: null,
      rolling: false,
      holdAlerts: false,
      displayStatus: 'uniform',
      counts: { nodes: 0, availableNodes: 0, samples: 0, availableSamples: 0 },
      regionSplit: false,
      regions: [],
      regionPartition: [],
      missingRegions: [],
      ...over,
    },
    null,
  );
}

function row(over: Partial<FleetRow>): FleetRow {
  return {
    id: over.name ?? 'x',
    name: 'x',
    publicUrl: 'http://127.0.0.1/mcp',
    status: 'uniform',
    nonUniform: false,
    degraded: false,
    mix: { modern: 0, legacy: 0, unavailable: 0, authGated: 0 },
    gateReady: null,
    progress: null,
    lastProbeAt: null,
    nonUniformSince: null,
    ...over,
  };
}

describe('eraMixOf', () => {
  it('counts nodes per client era and unavailable nodes beside them', () => {
    const a = analysis({
      partition: [group('modern', ['n1', 'n2'], 3), group('legacy', ['n3'], 1)],
      degradedNodes: [{ nodeId: 'n4', url: 'u', reason: 'timeout', anomaly: null, authGated: false }],
      counts: { nodes: 4, availableNodes: 3, samples: 4, availableSamples: 4 },
    });
    expect(eraMixOf(a)).toEqual({ modern: 2, legacy: 1, unavailable: 1, authGated: 0 });
  });

  it('counts auth-gated nodes apart from unavailable ones', () => {
    const a = analysis({
      partition: [group('modern', ['n1'], 0)],
      degradedNodes: [
        { nodeId: 'n2', url: 'u', reason: 'auth_required', anomaly: null, authGated: true },
        { nodeId: 'n3', url: 'u', reason: 'timeout', anomaly: null, authGated: false },
      ],
      counts: { nodes: 3, availableNodes: 1, samples: 0, availableSamples: 0 },
    });
    expect(eraMixOf(a)).toEqual({ modern: 1, legacy: 0, unavailable: 1, authGated: 1 });
    expect(formatMix(eraMixOf(a))).toBe('1 modern · 1 unavailable · 1 auth-gated');
  });

  it('counts samples when the balancer has no directly probed node', () => {
    const a = analysis({
      partition: [group('modern', [], 3), group('legacy', [], 1)],
      unavailableSamples: [{ nodeId: null, url: 'u', reason: 'refused', authGated: false }],
      counts: { nodes: 0, availableNodes: 0, samples: 5, availableSamples: 4 },
    });
    expect(eraMixOf(a)).toEqual({ modern: 3, legacy: 1, unavailable: 1, authGated: 0 });
  });
});

describe('toFleetRow', () => {
  const base = { id: 'b1', name: 'edge', publicUrl: 'http://127.0.0.1:1/mcp' };

  it('reads status, gate, progress and age from the analysis', () => {
    const r = toFleetRow({
      ...base,
      analysis: analysis({
        status: 'non-uniform',
        severity: 'era-split',
        displayStatus: 'rolling',
        rolling: true,
        gates: [{ revision: '2026-07-28', ready: false, reasons: ['x'] }],
        window: {
          windowId: 'w',
          status: 'open',
          onTarget: 6,
          total: 10,
          unit: 'nodes',
          label: '6 of 10 nodes on 2026-07-28',
          targetLabel: '2026-07-28',
          deadline: 5,
          stuck: false,
        },
        analyzedAt: 42,
      }),
    });
    expect(r).toMatchObject({
      status: 'rolling',
      nonUniform: true,
      gateReady: false,
      progress: '6 of 10 nodes on 2026-07-28',
      lastProbeAt: 42,
    });
  });

  it('is pending with no gate before the first cycle', () => {
    expect(toFleetRow({ ...base, summary: null })).toMatchObject({
      status: 'pending',
      gateReady: null,
      lastProbeAt: null,
    });
  });

  it("falls back to the summary's display status when no analysis is served", () => {
    const r = toFleetRow({
      ...base,
      summary: {
        status: 'non-uniform',
        severity: 'drift',
        displayStatus: 'drift',
        degraded: true,
        analyzedAt: 7,
      },
    });
    expect(r).toMatchObject({ status: 'drift', nonUniform: true, degraded: true, lastProbeAt: 7 });
  });
});

describe('sortFleet, filterFleet, countFleet', () => {
  const rows = [
    row({ name: 'a-uniform' }),
    row({ name: 'b-drift', status: 'drift', nonUniform: true }),
    row({ name: 'c-split', status: 'era-split', nonUniform: true }),
    row({ name: 'd-degraded', status: 'degraded', degraded: true }),
    row({ name: 'e-rolling', status: 'rolling', nonUniform: true, publicUrl: 'http://10.0.0.9/mcp' }),
  ];

  it('puts non-uniform balancers first, most severe first, then by name', () => {
    expect(sortFleet(rows).map((r) => r.name)).toEqual([
      'e-rolling',
      'c-split',
      'b-drift',
      'd-degraded',
      'a-uniform',
    ]);
  });

  it.each([
    [{ search: '', status: 'all' as const }, 5],
    [{ search: '', status: 'non-uniform' as const }, 3],
    [{ search: '', status: 'degraded' as const }, 1],
    [{ search: 'SPLIT', status: 'all' as const }, 1],
    [{ search: '10.0.0.9', status: 'all' as const }, 1],
    [{ search: 'split', status: 'drift' as const }, 0],
  ])('filter %j keeps %i rows', (filter, n) => {
    expect(filterFleet(rows, filter)).toHaveLength(n);
  });

  it('counts totals, non-uniform, degraded and each status', () => {
    const c = countFleet(rows);
    expect(c).toMatchObject({ total: 5, nonUniform: 3, degraded: 1 });
    expect(c.byStatus).toEqual({ uniform: 1, drift: 1, 'era-split': 1, degraded: 1, rolling: 1 });
  });
});

describe('formatting', () => {
  it.each([
    [null, 'never'],
    [100_000 - 12_000, '12 s ago'],
    [100_000 - 240_000, '4 min ago'],
    [100_000 - 3 * 3_600_000, '3 h ago'],
    [100_000 - 3 * 86_400_000, '3 d ago'],
    [100_000 + 30_000, 'in 30 s'],
    [100_000 + 200, '0 s ago'],
  ])('formatAge(%s) is %s', (at, text) => {
    expect(formatAge(at, 100_000)).toBe(text);
  });

  it('formats how long a condition has held', () => {
    expect(formatSince(100_000 - 240_000, 100_000)).toBe('for 4 min');
    expect(formatSince(100_500, 100_000)).toBe('for 0 s');
  });

  it('formats the era mix, leaving out empty eras', () => {
    expect(formatMix({ modern: 3, legacy: 0, unavailable: 1, authGated: 0 })).toBe(
      '3 modern · 1 unavailable',
    );
    expect(formatMix({ modern: 0, legacy: 0, unavailable: 0, authGated: 0 })).toBe('no nodes yet');
  });
});
