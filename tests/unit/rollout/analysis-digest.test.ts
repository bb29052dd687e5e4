// The balancer's analysis digest decides whether a cycle rewrites the stored analysis: it must see the same
// analysis as the same whatever order its keys were built in (parts carried from a parsed snapshot keep the
// schema's order), and ignore only the bookkeeping.
import { describe, expect, it } from 'vitest';
import { analysisDigest } from '@/lib/rollout/digest';
import type { BalancerAnalysis } from '@/lib/rollout/types';

function reversedKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(reversedKeys) as T;
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([k, v]) => [k, reversedKeys(v)]),
    ) as T;
  return value;
}

function analysisWith(
  o: { at?: number; cycle?: number; status?: string; listedAt?: number; second?: string } = {},
): BalancerAnalysis {
  const at = o.at ?? 1_000;
  return {
    balancerId: 'bal_1',
    analyzedAt: at,
    status: 'uniform',
    severity: null,
    partition: [{ key: 'modern', nodeIds: ['nod_1', 'nod_2'] }],
    degradedNodes: [],
    degraded: false,
    regions: [{ region: 'default', analyzedAt: at, status: 'uniform' }],
    snapshot: {
      at,
      cycle: o.cycle ?? 3,
      nodes: [
        {
          nodeId: 'nod_1',
          fingerprintKey: 'fp_a',
          catalog: {
            status: o.status ?? 'listed',
            listedAt: o.listedAt ?? 900,
            digest: 'cat_1',
            names: ['echo'],
          },
        },
        { nodeId: 'nod_2', fingerprintKey: o.second ?? 'fp_a' },
      ],
    },
  } as unknown as BalancerAnalysis;
}

describe('analysisDigest', () => {
  it('is the same for the same analysis with its keys in another order', () => {
    expect(analysisDigest(reversedKeys(analysisWith()))).toBe(analysisDigest(analysisWith()));
  });

  it('ignores the time, the cycle count and the catalog listing bookkeeping', () => {
    const later = analysisWith({ at: 2_000, cycle: 4, status: 'carried', listedAt: 1_900 });
    expect(analysisDigest(later)).toBe(analysisDigest(analysisWith()));
  });

  it('changes when what the analysis says changes', () => {
    expect(analysisDigest(analysisWith({ second: 'fp_b' }))).not.toBe(analysisDigest(analysisWith()));
  });
});
