import { describe, expect, it } from 'vitest';
import type { ToolCatalog, Verdict } from '@/lib/probe/types';
import { analyzeCycle, diffSnapshots } from '@/lib/rollout';
import { carryCatalog, catalogOffsetOf, catalogRequestFor } from '@/lib/rollout/catalog';
import { placeSample, sampleFactsOf } from '@/lib/rollout/samples';
import {
  LEGACY,
  MODERN,
  T0,
  cycleInput,
  dualVerdict,
  legacyVerdict,
  modernVerdict,
  node,
  oneNodeLegacy,
  sample,
} from './verdict-factory';

const MIN = 60_000;

function catalog(names: string[], over: Partial<ToolCatalog> = {}): ToolCatalog {
  const sorted = [...names].sort();
  return {
    status: 'listed',
    names: sorted,
    toolDigests: sorted.map((n) => `d-${n}`),
    digest: `cat_${sorted.join('+')}`,
    ttlMs: 60_000,
    cacheScope: 'public',
    pages: 1,
    listedAt: T0,
    settledKey: 'k',
    ...over,
  };
}

const withTools = (names: string[], over: Partial<ToolCatalog> = {}): Partial<Verdict> => ({
  catalog: catalog(names, over),
});

describe('the catalog as a fingerprint dimension', () => {
  it('makes nodes that agree on era and served set but differ by one tool drift, "catalog differs"', () => {
    const a = analyzeCycle(
      cycleInput({
        nodes: [
          node('a', modernVerdict(withTools(['echo', 'search']))),
          node('b', modernVerdict(withTools(['echo', 'search']))),
          node('c', modernVerdict(withTools(['echo']))),
        ],
      }),
    );
    expect(a.status).toBe('non-uniform');
    expect(a.severity).toBe('drift');
    expect(a.reasons).toEqual(['catalog differs']);
    expect(a.partition.map((g) => g.nodeIds)).toEqual([['a', 'b'], ['c']]);
    expect(a.partition[0]).toMatchObject({ toolNames: ['echo', 'search'], catalogDiff: null });
    expect(a.partition[1]).toMatchObject({
      toolNames: ['echo'],
      catalogDiff: { adds: [], lacks: ['search'], changed: [] },
    });
  });

  it('names a tool whose description or schema changed, and one a group adds', () => {
    const changed = catalog(['echo', 'fetch']);
    changed.toolDigests = ['d-echo-v2', 'd-fetch'];
    changed.digest = 'cat_other';
    const a = analyzeCycle(
      cycleInput({
        nodes: [
          node('a', modernVerdict(withTools(['echo']))),
          node('b', modernVerdict(withTools(['echo']))),
          node('c', modernVerdict({ catalog: changed })),
        ],
      }),
    );
    expect(a.partition[1]?.catalogDiff).toEqual({ adds: ['fetch'], lacks: [], changed: ['echo'] });
  });

  it('takes the largest catalog ttlMs among the nodes when catalogs differ, none when they agree', () => {
    const differ = analyzeCycle(
      cycleInput({
        nodes: [
          node('a', modernVerdict(withTools(['echo'], { ttlMs: 5_000 }))),
          node('b', modernVerdict(withTools(['echo', 'x'], { ttlMs: 300_000 }))),
        ],
      }),
    );
    expect(differ.cacheHazard.catalogTtlMs).toBe(300_000);
    const agree = analyzeCycle(
      cycleInput({
        nodes: [
          node('a', modernVerdict(withTools(['echo'], { ttlMs: 5_000 }))),
          node('b', modernVerdict(withTools(['echo'], { ttlMs: 300_000 }))),
        ],
      }),
    );
    expect(agree.cacheHazard.catalogTtlMs).toBeNull();
    expect(agree.status).toBe('uniform');
  });

  it('names every dimension that differs', () => {
    const a = analyzeCycle(
      cycleInput({
        nodes: [
          node('a', modernVerdict(withTools(['echo']))),
          node(
            'b',
            dualVerdict({ serverInfo: { name: 'fleet-server', version: '2.5.0' }, ...withTools(['x']) }),
          ),
        ],
      }),
    );
    expect(a.reasons).toEqual(['served sets differ', 'server versions differ', 'catalog differs']);
  });
});

describe('node.catalog_changed', () => {
  const cycle = (at: number, names: string[], previous: ReturnType<typeof analyzeCycle>['snapshot'] | null) =>
    analyzeCycle(cycleInput({ at, nodes: [node('a', modernVerdict(withTools(names)))], previous }));

  it('is emitted once when a node gains a tool, with the names added and removed', () => {
    const first = cycle(T0, ['echo'], null);
    const gained = cycle(T0 + MIN, ['echo', 'search'], first.snapshot);
    const again = cycle(T0 + 2 * MIN, ['echo', 'search'], gained.snapshot);
    const events = [
      ...diffSnapshots(null, first.snapshot, T0),
      ...diffSnapshots(first.snapshot, gained.snapshot, T0 + MIN),
      ...diffSnapshots(gained.snapshot, again.snapshot, T0 + 2 * MIN),
    ].filter((e) => e.type === 'node.catalog_changed');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      nodeId: 'a',
      data: { added: ['search'], removed: [], changed: [] },
    });
  });

  it('is not emitted for a cycle that carried the catalog or failed to list it', () => {
    const first = cycle(T0, ['echo'], null);
    const last = first.snapshot.nodes[0];
    const skipped = carryCatalog(modernVerdict({ catalog: undefined }), last, true);
    const failed = carryCatalog(
      modernVerdict({
        catalog: { ...catalog([]), status: 'failed', digest: null, reason: 'tools/list timeout' },
      }),
      last,
      true,
    );
    expect(skipped.catalog).toMatchObject({ status: 'carried', names: ['echo'] });
    expect(failed.catalog).toMatchObject({
      status: 'carried',
      names: ['echo'],
      reason: 'tools/list timeout',
    });
    for (const v of [skipped, failed]) {
      const next = analyzeCycle(
        cycleInput({ at: T0 + MIN, nodes: [node('a', v)], previous: first.snapshot }),
      );
      expect(diffSnapshots(first.snapshot, next.snapshot, T0 + MIN)).toEqual([]);
    }
  });
});

describe('the catalog cadence', () => {
  const known = {
    nodeId: 'a',
    available: true,
    reason: null,
    fingerprintKey: 'fp',
    era: 'modern' as const,
    servedEras: 'modern-only' as const,
    catalog: catalog(['echo'], { settledKey: 'S' }),
  };

  it.each([
    { name: 'off', enabled: false, cycle: 5, previous: known, want: undefined },
    { name: 'never listed', enabled: true, cycle: 3, previous: undefined, want: { list: 'always' } },
    { name: 'every 5th cycle', enabled: true, cycle: 10, previous: known, want: { list: 'always' } },
    {
      name: 'in between: only if the verdict changed',
      enabled: true,
      cycle: 7,
      previous: known,
      want: { list: 'if-changed', settledKey: 'S' },
    },
    {
      name: 'failed before, in between: only if the verdict changed',
      enabled: true,
      cycle: 7,
      previous: { ...known, catalog: null, catalogFailedKey: 'F' },
      want: { list: 'if-changed', settledKey: 'F' },
    },
    {
      name: 'failed before, every 5th cycle',
      enabled: true,
      cycle: 10,
      previous: { ...known, catalog: null, catalogFailedKey: 'F' },
      want: { list: 'always' },
    },
  ])('$name', ({ enabled, cycle, previous, want }) => {
    expect(catalogRequestFor({ enabled, every: 5 }, cycle, previous)).toEqual(want);
  });

  it('lists on the cycles its offset shifts the cadence to', () => {
    const listsOn = (offset: number) =>
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].filter(
        (c) => catalogRequestFor({ enabled: true, every: 5, offset }, c, known)?.list === 'always',
      );
    expect(listsOn(0)).toEqual([5, 10]);
    expect(listsOn(2)).toEqual([3, 8]);
    expect(listsOn(4)).toEqual([1, 6]);
  });

  it('spreads balancers over the cadence by id, each always on the same cycles', () => {
    const ids = Array.from({ length: 500 }, (_, i) => `bal_${i.toString(36).padStart(8, 'x')}`);
    const perOffset = [0, 0, 0, 0, 0];
    for (const id of ids) {
      const offset = catalogOffsetOf(id, 5);
      expect(catalogOffsetOf(id, 5)).toBe(offset);
      perOffset[offset] = (perOffset[offset] ?? 0) + 1;
    }
    // Each fifth of the cadence gets a share of the balancers, none all or none of them.
    for (const n of perOffset) expect(n).toBeGreaterThan(50);
    expect(catalogOffsetOf('bal_any', 1)).toBe(0);
  });

  it('remembers a failed listing until a full one comes, through cadence skips and outages', () => {
    const failed = catalog([], {
      status: 'failed',
      digest: null,
      settledKey: 'F',
      reason: 'tools/list timeout',
    });
    const first = analyzeCycle(cycleInput({ nodes: [node('a', modernVerdict({ catalog: failed }))] }));
    const skipped = analyzeCycle(
      cycleInput({ at: T0 + MIN, nodes: [node('a', modernVerdict())], previous: first.snapshot }),
    );
    const listed = analyzeCycle(
      cycleInput({
        at: T0 + 2 * MIN,
        nodes: [node('a', modernVerdict(withTools(['echo'])))],
        previous: skipped.snapshot,
      }),
    );
    expect([first, skipped, listed].map((a) => a.snapshot.nodes[0]?.catalogFailedKey)).toEqual([
      'F',
      'F',
      undefined,
    ]);
  });

  it('counts cycles in the snapshot', () => {
    const first = analyzeCycle(cycleInput({ nodes: [node('a', modernVerdict())] }));
    const second = analyzeCycle(
      cycleInput({ at: T0 + MIN, nodes: [node('a', modernVerdict())], previous: first.snapshot }),
    );
    expect([first.snapshot.cycle, second.snapshot.cycle]).toEqual([1, 2]);
  });
});

describe('no phantom answers', () => {
  // The demo's search balancer mid-rollout: two dual-era 2.0.0 nodes, one modern-only 2.1.0, one legacy 1.9.0.
  const dual = (v: Partial<Verdict> = {}) =>
    dualVerdict({ serverInfo: { name: 'search-api', version: '2.0.0' }, ...v });
  const modern = (v: Partial<Verdict> = {}) =>
    modernVerdict({ serverInfo: { name: 'search-api', version: '2.1.0' }, ...v });
  const legacy = (v: Partial<Verdict> = {}) =>
    legacyVerdict({ serverInfo: { name: 'search-api', version: '1.9.0' }, ...v });
  const nodes = [node('s1', dual()), node('s2', dual()), node('s3', modern()), node('s4', legacy())];

  it('puts an attributed sample in its node’s group even when its audit reached other nodes', () => {
    // discover answered by s3 (modern-only); the audit's initialize by a dual-era node.
    const mixed = modern({ supported: [MODERN, LEGACY], servedEras: 'dual-era', servedBy: 's3' });
    const a = analyzeCycle(cycleInput({ nodes, samples: [sample(mixed, 's3')] }));
    expect(a.partition).toHaveLength(3);
    expect(a.partition.find((g) => g.nodeIds.includes('s3'))?.sampleCount).toBe(1);
  });

  it('never forms a group from an answer assembled from requests to different nodes', () => {
    // discover ambiguous on s4, the allowlisted initialize answered by a dual-era 2.0.0 node.
    const assembled = legacy({ serverInfo: { name: 'search-api', version: '2.0.0' } });
    const unattributedMixed = modern({ supported: [MODERN, LEGACY], servedEras: 'dual-era' });
    const a = analyzeCycle(cycleInput({ nodes, samples: [sample(assembled), sample(unattributedMixed)] }));
    expect(a.partition).toHaveLength(3);
    expect(a.unplacedSamples).toBe(1);
    // The modern sample's own response matches s3's answer, so it joins that group.
    expect(a.partition.find((g) => g.nodeIds.includes('s3'))?.sampleCount).toBe(1);
  });

  it('lets an answer one response carried form its own group when no node presents it', () => {
    const unknownBuild = modern({ serverInfo: { name: 'search-api', version: '9.9.9' } });
    const a = analyzeCycle(cycleInput({ nodes, samples: [sample(unknownBuild)] }));
    expect(a.partition).toHaveLength(4);
    expect(a.partition.find((g) => g.nodeIds.length === 0)).toMatchObject({
      sampleCount: 1,
      fingerprint: { serverVersion: '9.9.9' },
    });
  });

  it.each([
    { name: 'a discover result', v: modernVerdict(), single: true },
    { name: 'a legacy answer with no attribution', v: legacyVerdict(), single: false },
    { name: 'a legacy answer attributed to one node throughout', v: oneNodeLegacy('n9'), single: true },
    {
      name: 'a legacy answer whose discover and initialize were attributed to two nodes',
      v: oneNodeLegacy('n9', {
        evidence: [
          { ...(oneNodeLegacy('n9').evidence[0] as Verdict['evidence'][number]) },
          { ...(oneNodeLegacy('n8').evidence[1] as Verdict['evidence'][number]) },
        ],
      }),
      single: false,
    },
  ])('one response carried $name: $single', ({ v, single }) => {
    expect(sampleFactsOf(v)?.singleResponse).toBe(single);
  });

  it('leaves the legacy side of a served set out of what a sample presents', () => {
    expect(sampleFactsOf(dualVerdict())?.modernSupported).toEqual([MODERN]);
    expect(placeSample(legacyVerdict(), null, [])).toEqual({ kind: 'unplaced' });
  });
});
