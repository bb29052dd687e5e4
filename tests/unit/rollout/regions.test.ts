import { describe, expect, it } from 'vitest';
import { analyzeCycle, diffSnapshots, RolloutInputError, type BalancerAnalysis } from '@/lib/rollout';
import { analyzeRegions, combineRegions, regionProblem, type RegionCycleInput } from '@/lib/rollout/regions';
import {
  MODERN,
  T0,
  cycleInput,
  legacyVerdict,
  modernVerdict,
  node,
  sample,
  unavailableVerdict,
} from './verdict-factory';

const base = { balancerId: 'bal-1', at: T0, window: null, gateRevisions: [MODERN] };
const shopV2 = () => modernVerdict({ serverInfo: { name: 'shop', version: '2.0.0' } });
const shopV3 = () => modernVerdict({ serverInfo: { name: 'shop', version: '3.0.0' } });

/** One region that sees `verdict` on two nodes and two samples. */
function region(name: string, verdict: () => ReturnType<typeof modernVerdict>): RegionCycleInput {
  return {
    region: name,
    nodes: [node(`${name}-a`, verdict()), node(`${name}-b`, verdict())],
    samples: [sample(verdict()), sample(verdict())],
  };
}

describe('region names', () => {
  it.each([
    ['eu-west', null],
    ['default', null],
    ['a', null],
    ['x'.repeat(63), null],
    ['', 'must not be empty'],
    ['x'.repeat(64), 'must be at most 63 characters (got 64)'],
    ['EU-West', 'must use lowercase letters, digits and -, 1 to 63 characters'],
    ['eu_west', 'must use lowercase letters, digits and -, 1 to 63 characters'],
    ['eu west', 'must use lowercase letters, digits and -, 1 to 63 characters'],
    [42, 'must be a string'],
  ])('%j → %j', (value, problem) => {
    expect(regionProblem(value)).toBe(problem);
  });
});

describe('analyzeRegions: the verdict across regions', () => {
  it('two uniform regions that see different pools are a region split, partitioned by region', () => {
    const { perRegion, combined } = analyzeRegions({
      ...base,
      regions: [region('us-east', shopV3), region('eu-west', shopV2)],
    });
    expect(perRegion.map((r) => [r.region, r.analysis.status])).toEqual([
      ['us-east', 'uniform'],
      ['eu-west', 'uniform'],
    ]);
    expect(combined.status).toBe('non-uniform');
    expect(combined.severity).toBe('region-split');
    expect(combined.displayStatus).toBe('region-split');
    expect(combined.regionSplit).toBe(true);
    const keyOf = (r: string) => perRegion.find((p) => p.region === r)?.analysis.partition[0]?.key;
    expect(combined.regionPartition).toEqual([
      { keys: [keyOf('eu-west')], regions: ['eu-west'] },
      { keys: [keyOf('us-east')], regions: ['us-east'] },
    ]);
    expect(combined.partition.map((g) => [g.fingerprint.serverVersion, g.regions, g.nodeIds])).toEqual([
      ['2.0.0', ['eu-west'], ['eu-west-a', 'eu-west-b']],
      ['3.0.0', ['us-east'], ['us-east-a', 'us-east-b']],
    ]);
    expect(combined.regions?.map((r) => [r.region, r.status, r.keys.length])).toEqual([
      ['eu-west', 'uniform', 1],
      ['us-east', 'uniform', 1],
    ]);
    const gate = combined.gates[0];
    expect(gate?.ready).toBe(false);
    expect(gate?.reasons).toEqual([
      'regions disagree: eu-west sees modern 2026-07-28 (modern-only, shop 2.0.0); us-east sees modern 2026-07-28 (modern-only, shop 3.0.0)',
    ]);
    expect(combined.counts).toEqual({ nodes: 4, availableNodes: 4, samples: 4, availableSamples: 4 });
  });

  it('regions that agree are uniform and the gate opens', () => {
    const { combined } = analyzeRegions({
      ...base,
      regions: [region('eu-west', shopV2), region('us-east', shopV2)],
    });
    expect(combined.status).toBe('uniform');
    expect(combined.severity).toBeNull();
    expect(combined.regionSplit).toBe(false);
    expect(combined.regionPartition).toEqual([
      { keys: [combined.partition[0]?.key], regions: ['eu-west', 'us-east'] },
    ]);
    expect(combined.partition).toHaveLength(1);
    expect(combined.partition[0]?.regions).toEqual(['eu-west', 'us-east']);
    expect(combined.gates).toEqual([{ revision: MODERN, ready: true, reasons: [] }]);
  });

  it('a split inside one region keeps its own severity, and still counts as regions disagreeing', () => {
    const { combined } = analyzeRegions({
      ...base,
      regions: [
        region('eu-west', shopV2),
        {
          region: 'us-east',
          nodes: [node('us-a', shopV2()), node('us-b', legacyVerdict())],
          samples: [],
        },
      ],
    });
    expect(combined.severity).toBe('era-split');
    expect(combined.displayStatus).toBe('era-split');
    expect(combined.regionSplit).toBe(true);
    expect(combined.gates[0]?.reasons[0]).toMatch(/^us-east: nodes present 2 different served sets/);
  });

  it('a region whose nodes are all unavailable cannot disagree: degraded, not split', () => {
    const { combined } = analyzeRegions({
      ...base,
      regions: [
        region('eu-west', shopV2),
        { region: 'us-east', nodes: [node('us-a', unavailableVerdict('timeout'))], samples: [] },
      ],
    });
    expect(combined.status).toBe('uniform');
    expect(combined.regionSplit).toBe(false);
    expect(combined.degraded).toBe(true);
    expect(combined.degradedNodes.map((d) => [d.nodeId, d.region, d.reason])).toEqual([
      ['us-a', 'us-east', 'timeout'],
    ]);
    expect(combined.gates[0]?.reasons).toEqual([
      'us-east: 1 node unavailable: http://127.0.0.1/us-a (timeout)',
    ]);
  });

  it('a region that must probe the balancer but has no result keeps the gate shut', () => {
    const { combined } = analyzeRegions({
      ...base,
      regions: [region('eu-west', shopV2)],
      expectedRegions: ['eu-west', 'us-east'],
    });
    expect(combined.missingRegions).toEqual(['us-east']);
    expect(combined.status).toBe('uniform');
    expect(combined.gates[0]).toEqual({
      revision: MODERN,
      ready: false,
      reasons: ['no recent result from 1 region: us-east'],
    });
  });

  it('one default region gives exactly the single-region analysis', () => {
    const input = cycleInput({
      nodes: [node('a', shopV2()), node('b', legacyVerdict())],
      samples: [sample(shopV2())],
      gateRevisions: [MODERN],
    });
    const alone = analyzeCycle(input);
    const combined = combineRegions({
      balancerId: 'bal-1',
      at: T0,
      results: [{ region: 'default', analysis: alone }],
    });
    const strip = (a: BalancerAnalysis) => ({
      ...a,
      partition: a.partition.map(({ regions: _r, ...g }) => g),
      snapshot: { ...a.snapshot, regionSplit: undefined, regionPartition: undefined },
      regions: undefined,
      regionPartition: undefined,
      regionSplit: undefined,
      missingRegions: undefined,
    });
    expect(strip(combined)).toEqual(strip(alone));
    expect(combined.snapshot.nodes.every((n) => n.region === undefined)).toBe(true);
    expect(combined.regionSplit).toBe(false);
  });

  it.each([
    [{ results: [] }, 'results must list at least one region'],
    [
      { results: [{ region: 'EU', analysis: analyzeCycle(cycleInput()) }] },
      'results[0].region must use lowercase letters, digits and -, 1 to 63 characters',
    ],
    [
      {
        results: [
          { region: 'eu', analysis: analyzeCycle(cycleInput()) },
          { region: 'eu', analysis: analyzeCycle(cycleInput()) },
        ],
      },
      'results[1].region "eu" is listed twice',
    ],
    [
      { results: [{ region: 'eu', analysis: analyzeCycle(cycleInput({ balancerId: 'other' })) }] },
      'results[0] is an analysis of another balancer',
    ],
  ])('refuses a malformed input whole: %#', (over, issue) => {
    const run = () => combineRegions({ balancerId: 'bal-1', at: T0, ...over });
    expect(run).toThrow(RolloutInputError);
    try {
      run();
    } catch (err) {
      expect((err as RolloutInputError).issues).toEqual([issue]);
    }
  });
});

describe('region split events', () => {
  const cycle = (at: number, us: () => ReturnType<typeof modernVerdict>, previous: BalancerAnalysis | null) =>
    analyzeRegions({
      ...base,
      at,
      regions: [region('eu-west', shopV2), region('us-east', us)],
      previous: previous?.snapshot ?? null,
    }).combined;

  it('a split is reported once, never as a divergence, and its end once', () => {
    const agree = cycle(T0, shopV2, null);
    expect(diffSnapshots(null, agree.snapshot, T0)).toEqual([]);

    const split = cycle(T0 + 1, shopV3, agree);
    const events = diffSnapshots(agree.snapshot, split.snapshot, T0 + 1);
    expect(events.map((e) => e.type)).toEqual(['balancer.region_split', 'gate.closed']);
    expect(events[0]?.data).toEqual({ regions: split.regionPartition });
    expect(events[0]?.data.regions).toEqual([
      { keys: [expect.any(String)], regions: ['eu-west'] },
      { keys: [expect.any(String)], regions: ['us-east'] },
    ]);

    const still = cycle(T0 + 2, shopV3, split);
    expect(diffSnapshots(split.snapshot, still.snapshot, T0 + 2)).toEqual([]);

    const healed = cycle(T0 + 3, shopV2, still);
    expect(diffSnapshots(still.snapshot, healed.snapshot, T0 + 3).map((e) => e.type)).toEqual([
      'balancer.region_converged',
      'gate.opened',
    ]);
  });

  it('a region that goes dark keeps the settled split: no converged event for a missing answer', () => {
    const split = cycle(T0, shopV3, null);
    expect(diffSnapshots(null, split.snapshot, T0).map((e) => e.type)).toEqual(['balancer.region_split']);
    const dark = analyzeRegions({
      ...base,
      at: T0 + 1,
      regions: [
        region('eu-west', shopV2),
        { region: 'us-east', nodes: [node('us-east-a', unavailableVerdict('timeout'))], samples: [] },
      ],
      previous: split.snapshot,
    }).combined;
    expect(dark.snapshot.regionSplit).toBe(true);
    const types = diffSnapshots(split.snapshot, dark.snapshot, T0 + 1).map((e) => e.type);
    expect(types).not.toContain('balancer.region_converged');
    expect(types).toContain('node.unavailable');
  });

  it('node events across regions name the region whose probe saw them', () => {
    const first = cycle(T0, shopV2, null);
    const next = analyzeRegions({
      ...base,
      at: T0 + 1,
      regions: [
        region('eu-west', shopV2),
        {
          region: 'us-east',
          nodes: [node('us-east-a', shopV2()), node('us-east-b', unavailableVerdict('refused'))],
          samples: [sample(shopV2()), sample(shopV2())],
        },
      ],
      previous: first.snapshot,
    }).combined;
    const down = diffSnapshots(first.snapshot, next.snapshot, T0 + 1).filter(
      (e) => e.type === 'node.unavailable',
    );
    expect(down).toEqual([
      {
        type: 'node.unavailable',
        balancerId: 'bal-1',
        nodeId: 'us-east-b',
        at: T0 + 1,
        data: { reason: 'refused', region: 'us-east' },
      },
    ]);
  });
});
