import { describe, expect, it } from 'vitest';
import type { Fingerprint } from '@/lib/rollout/types';
import {
  describeContradiction,
  differingFields,
  formatDuration,
  revisionColumns,
  regionOfRow,
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

describe('regionOfRow', () => {
  it('is the region a row was probed from, default for a state stored before regions', () => {
    expect(regionOfRow({ state: { region: 'eu-west' } })).toBe('eu-west');
    expect(regionOfRow({ state: {} })).toBe('default');
    expect(regionOfRow({ state: null })).toBe('default');
  });
});
