import { describe, expect, it } from 'vitest';
import type { Fingerprint, NodeSnapshot } from '@/lib/rollout/types';
import {
  describeContradiction,
  differingFields,
  formatDuration,
  replayEraMix,
  revisionColumns,
  rowRegions,
  splitRowsByRegion,
} from '@/lib/ui/balancer';

const fp = (over: Partial<Fingerprint>): Fingerprint => ({
  era: 'modern',
  negotiatedVersion: '2026-07-28',
  supported: ['2026-07-28'],
  servedEras: 'modern-only',
  serverName: 'srv',
  serverVersion: '1.0.0',
  ...over,
});

const snap = (nodeId: string, available: boolean, era: 'modern' | 'legacy' | null): NodeSnapshot => ({
  nodeId,
  available,
  reason: available ? null : 'timeout',
  fingerprintKey: null,
  era,
  servedEras: null,
});

describe('revisionColumns', () => {
  it('unions the served sets, newest first, without duplicates', () => {
    expect(
      revisionColumns([['2026-07-28'], ['2025-11-25', '2024-11-05'], ['2026-07-28', '2025-11-25']]),
    ).toEqual(['2026-07-28', '2025-11-25', '2024-11-05']);
  });
});

describe('differingFields', () => {
  it('names only the fields that differ between groups', () => {
    const d = differingFields([
      { fingerprint: fp({}) },
      { fingerprint: fp({ era: 'legacy', negotiatedVersion: '2025-11-25', supported: ['2025-11-25'] }) },
    ]);
    expect([...d].sort()).toEqual(['era', 'negotiatedVersion', 'supported']);
  });

  it('finds nothing to highlight in a single group', () => {
    expect(differingFields([{ fingerprint: fp({}) }]).size).toBe(0);
  });
});

describe('describeContradiction', () => {
  it.each([
    [
      {
        maxTtlMs: null,
        availableSamples: 0,
        contradictingSamples: 0,
        contradictingShare: null,
        differingSamples: 0,
        catalogTtlMs: null,
      },
      'no samples this cycle',
    ],
    [
      {
        maxTtlMs: null,
        availableSamples: 1,
        contradictingSamples: 0,
        contradictingShare: null,
        differingSamples: 0,
        catalogTtlMs: null,
      },
      'one sample this cycle: nothing to compare',
    ],
    [
      {
        maxTtlMs: 5,
        availableSamples: 4,
        contradictingSamples: 2,
        contradictingShare: 0.5,
        differingSamples: 2,
        catalogTtlMs: null,
      },
      '2 of 4 samples (50 %) contradicted the first',
    ],
  ])('%j', (h, text) => {
    expect(describeContradiction(h)).toBe(text);
  });
});

describe('formatDuration', () => {
  it.each([
    [null, '—'],
    [250, '250 ms'],
    [42_000, '42 s'],
    [90_000, '1 min 30 s'],
    [3_600_000, '1 h'],
    [5_400_000, '1 h 30 min'],
  ])('%s → %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('replayEraMix', () => {
  it('undoes era changes, outages and recoveries back to the start of the range', () => {
    // Now: n1 modern, n2 modern, n3 unavailable (last known legacy).
    const current = [snap('n1', true, 'modern'), snap('n2', true, 'modern'), snap('n3', false, 'legacy')];
    const events = [
      {
        type: 'node.era_changed',
        nodeId: 'n2',
        at: 200,
        data: { from: { era: 'legacy' }, to: { era: 'modern' } },
      },
      { type: 'node.unavailable', nodeId: 'n3', at: 300, data: { reason: 'timeout' } },
      { type: 'balancer.converged', nodeId: null, at: 250, data: {} },
      {
        type: 'node.era_changed',
        nodeId: 'n1',
        at: 100,
        data: { from: { era: 'legacy' }, to: { era: 'modern' } },
      },
    ];
    expect(replayEraMix(current, events, 0, 400)).toEqual([
      { at: 0, modern: 0, legacy: 3, unavailable: 0, authGated: 0 },
      { at: 100, modern: 1, legacy: 2, unavailable: 0, authGated: 0 },
      { at: 200, modern: 2, legacy: 1, unavailable: 0, authGated: 0 },
      { at: 300, modern: 2, legacy: 0, unavailable: 1, authGated: 0 },
    ]);
  });

  it('ignores events outside the range and answers the current mix alone without events', () => {
    const current = [snap('n1', true, 'modern')];
    expect(
      replayEraMix(current, [{ type: 'node.recovered', nodeId: 'n1', at: 5, data: {} }], 10, 20),
    ).toEqual([{ at: 10, modern: 1, legacy: 0, unavailable: 0, authGated: 0 }]);
  });

  it('draws auth-gated nodes as their own series, apart from unavailable ones', () => {
    // Now: n1 modern, n2 auth-gated (refused since it joined at 100), n3 down (timeout since 200, auth-gated
    // since it joined at 150). Before its first event a node was not in the fleet: it is not drawn.
    const gated = (nodeId: string): NodeSnapshot => ({
      ...snap(nodeId, false, null),
      reason: 'auth_required',
    });
    const current = [snap('n1', true, 'modern'), gated('n2'), snap('n3', false, null)];
    const events = [
      { type: 'node.auth_gated', nodeId: 'n2', at: 100, data: { reason: 'auth_required' } },
      { type: 'node.auth_gated', nodeId: 'n3', at: 150, data: { reason: 'auth_required' } },
      { type: 'node.unavailable', nodeId: 'n3', at: 200, data: { reason: 'timeout', from: 'auth-gated' } },
    ];
    expect(replayEraMix(current, events, 0, 300)).toEqual([
      { at: 0, modern: 1, legacy: 0, unavailable: 0, authGated: 0 },
      { at: 100, modern: 1, legacy: 0, unavailable: 0, authGated: 1 },
      { at: 150, modern: 1, legacy: 0, unavailable: 0, authGated: 2 },
      { at: 200, modern: 1, legacy: 0, unavailable: 1, authGated: 1 },
    ]);
  });

  it('treats a recovery as unavailable before it', () => {
    const current = [snap('n1', true, 'legacy')];
    expect(
      replayEraMix(current, [{ type: 'node.recovered', nodeId: 'n1', at: 50, data: {} }], 0, 100),
    ).toEqual([
      { at: 0, modern: 0, legacy: 0, unavailable: 1, authGated: 0 },
      { at: 50, modern: 0, legacy: 1, unavailable: 0, authGated: 0 },
    ]);
  });
});

describe('the node matrix by region', () => {
  const row = (id: string, region?: string | null) => ({
    id,
    state: region === null ? null : region === undefined ? {} : { region },
  });
  const rows = [row('n1', 'us-east'), row('n1', 'eu-west'), row('n2', 'eu-west'), row('n3', null)];

  it('lists the regions that probed, in name order; a state stored before regions is default', () => {
    expect(rowRegions(rows)).toEqual(['eu-west', 'us-east']);
    expect(rowRegions([row('n1'), row('n2', null)])).toEqual(['default']);
  });

  it('splits rows into one section per region, unprobed rows last', () => {
    expect(splitRowsByRegion(rows).map((s) => [s.region, s.rows.map((r) => r.id)])).toEqual([
      ['eu-west', ['n1', 'n2']],
      ['us-east', ['n1']],
      [null, ['n3']],
    ]);
  });
});
