import { describe, expect, it } from 'vitest';
import {
  analyzeCycle,
  fingerprintKey,
  fingerprintOf,
  type BalancerState,
  type DisplayStatus,
  type NodeObservation,
  type SampleObservation,
  type Severity,
} from '@/lib/rollout';
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
  unavailableVerdict,
} from './verdict-factory';

const MIN = 60_000;

interface StateCase {
  name: string;
  nodes: NodeObservation[];
  samples?: SampleObservation[];
  state: BalancerState;
  severity: Severity | null;
  degraded: string[];
  display: DisplayStatus;
}

describe('analyzeCycle: state, severity and degradation', () => {
  const cases: StateCase[] = [
    {
      name: 'one fingerprint everywhere is uniform',
      nodes: [node('a', modernVerdict()), node('b', modernVerdict()), node('c', modernVerdict())],
      samples: [sample(modernVerdict()), sample(modernVerdict())],
      state: 'uniform',
      severity: null,
      degraded: [],
      display: 'uniform',
    },
    {
      name: 'a timeout on one node is degraded, not non-uniform',
      nodes: [
        node('a', modernVerdict()),
        node('b', unavailableVerdict('timeout')),
        node('c', modernVerdict()),
      ],
      state: 'uniform',
      severity: null,
      degraded: ['b'],
      display: 'degraded',
    },
    {
      name: 'unavailable nodes with different reasons are still not divergence',
      nodes: [
        node('a', legacyVerdict()),
        node('b', unavailableVerdict('refused')),
        node('c', unavailableVerdict('http_5xx')),
      ],
      state: 'uniform',
      severity: null,
      degraded: ['b', 'c'],
      display: 'degraded',
    },
    {
      name: 'modern and legacy nodes are an era split',
      nodes: [node('a', modernVerdict()), node('b', legacyVerdict())],
      state: 'non-uniform',
      severity: 'era-split',
      degraded: [],
      display: 'era-split',
    },
    {
      name: 'an era split stays an era split beside a degraded node',
      nodes: [node('a', dualVerdict()), node('b', legacyVerdict()), node('c', unavailableVerdict('reset'))],
      state: 'non-uniform',
      severity: 'era-split',
      degraded: ['c'],
      display: 'era-split',
    },
    {
      name: 'modern-only beside dual-era is drift',
      nodes: [node('a', modernVerdict()), node('b', dualVerdict())],
      state: 'non-uniform',
      severity: 'drift',
      degraded: [],
      display: 'drift',
    },
    {
      name: 'a different server version alone is drift',
      nodes: [
        node('a', modernVerdict()),
        node('b', modernVerdict({ serverInfo: { name: 'fleet-server', version: '2.5.0' } })),
      ],
      state: 'non-uniform',
      severity: 'drift',
      degraded: [],
      display: 'drift',
    },
    {
      name: 'legacy nodes on different protocol versions are drift',
      nodes: [node('a', legacyVerdict()), node('b', legacyVerdict({ negotiatedVersion: '2025-06-18' }))],
      state: 'non-uniform',
      severity: 'drift',
      degraded: [],
      display: 'drift',
    },
    {
      name: 'a sample that contradicts uniform nodes makes the balancer non-uniform',
      nodes: [node('a', modernVerdict()), node('b', modernVerdict())],
      samples: [sample(modernVerdict()), sample(oneNodeLegacy('lb-node-9'))],
      state: 'non-uniform',
      severity: 'era-split',
      degraded: [],
      display: 'era-split',
    },
    {
      name: 'nothing available is unknown, shown as down',
      nodes: [node('a', unavailableVerdict('timeout')), node('b', unavailableVerdict('dns_failed'))],
      samples: [sample(unavailableVerdict('timeout'))],
      state: 'unknown',
      severity: null,
      degraded: ['a', 'b'],
      display: 'down',
    },
    {
      name: 'nothing probed is unknown',
      nodes: [],
      state: 'unknown',
      severity: null,
      degraded: [],
      display: 'unknown',
    },
  ];

  it.each(cases)('$name', (c) => {
    const a = analyzeCycle(cycleInput({ nodes: c.nodes, samples: c.samples ?? [] }));
    expect(a.status).toBe(c.state);
    expect(a.severity).toBe(c.severity);
    expect(a.degradedNodes.map((d) => d.nodeId)).toEqual(c.degraded);
    expect(a.degraded).toBe(c.degraded.length > 0 || a.unavailableSamples.length > 0);
    expect(a.displayStatus).toBe(c.display);
    expect(a.snapshot.state).toBe(c.state);
  });

  it('lists each unavailable node with its url, reason and anomaly', () => {
    const a = analyzeCycle(
      cycleInput({
        nodes: [
          node(
            'n2',
            unavailableVerdict('modern_incompatible', { anomaly: 'data.supported lists only legacy' }),
          ),
          node('n1', unavailableVerdict('auth_required')),
          node('n3', modernVerdict()),
        ],
      }),
    );
    expect(a.degradedNodes).toEqual([
      { nodeId: 'n1', url: 'http://127.0.0.1/n1', reason: 'auth_required', anomaly: null, authGated: true },
      {
        nodeId: 'n2',
        url: 'http://127.0.0.1/n2',
        reason: 'modern_incompatible',
        anomaly: 'data.supported lists only legacy',
        authGated: false,
      },
    ]);
    expect(a.counts).toEqual({ nodes: 3, availableNodes: 1, samples: 0, availableSamples: 0 });
  });

  it.each([
    [
      'every node refused at the door is auth-gated, not down',
      ['auth_required', 'auth_failed'],
      'auth-gated',
    ],
    ['a gated node beside agreeing ones is auth-gated', ['auth_required', null], 'auth-gated'],
    ['one down node among gated ones makes it down', ['auth_required', 'timeout'], 'down'],
    ['nothing gated and nothing answering is down', ['timeout', 'refused'], 'down'],
  ])('%s', (_name, reasons, status) => {
    const a = analyzeCycle(
      cycleInput({
        nodes: reasons.map((r, i) => node(`n${i}`, r === null ? modernVerdict() : unavailableVerdict(r))),
      }),
    );
    expect(a.displayStatus).toBe(status);
  });

  it('reports unavailable samples beside, as degradation', () => {
    const a = analyzeCycle(
      cycleInput({
        nodes: [node('a', modernVerdict())],
        samples: [
          sample(modernVerdict(), 'a'),
          sample(unavailableVerdict('reset', { url: 'http://lb/mcp' }), null),
        ],
      }),
    );
    expect(a.status).toBe('uniform');
    expect(a.degradedNodes).toEqual([]);
    expect(a.unavailableSamples).toEqual([
      { nodeId: null, url: 'http://lb/mcp', reason: 'reset', authGated: false },
    ]);
    expect(a.degraded).toBe(true);
    expect(a.displayStatus).toBe('degraded');
  });
});

describe('analyzeCycle: partition', () => {
  it('groups nodes and samples by fingerprint, largest group first', () => {
    const a = analyzeCycle(
      cycleInput({
        nodes: [
          node('n4', legacyVerdict()),
          node('n1', dualVerdict()),
          node('n3', dualVerdict()),
          node('n2', unavailableVerdict('timeout')),
          node('n5', modernVerdict()),
        ],
        samples: [
          sample(dualVerdict(), 'n3'),
          sample(legacyVerdict(), 'n4'),
          sample(legacyVerdict(), null),
          sample(dualVerdict(), 'n1'),
          sample(dualVerdict(), 'n1'),
          sample(unavailableVerdict('timeout'), 'n2'),
        ],
      }),
    );
    const dual = fingerprintOf(dualVerdict());
    const legacy = fingerprintOf(legacyVerdict());
    const modern = fingerprintOf(modernVerdict());
    if (!dual || !legacy || !modern) throw new Error('fixtures must be available');
    expect(a.partition).toEqual([
      {
        key: fingerprintKey(dual),
        fingerprint: dual,
        nodeIds: ['n1', 'n3'],
        sampleCount: 3,
        sampleNodeIds: ['n1', 'n3'],
        toolNames: null,
        catalogDiff: null,
      },
      {
        key: fingerprintKey(legacy),
        fingerprint: legacy,
        nodeIds: ['n4'],
        sampleCount: 2,
        sampleNodeIds: ['n4'],
        toolNames: null,
        catalogDiff: null,
      },
      {
        key: fingerprintKey(modern),
        fingerprint: modern,
        nodeIds: ['n5'],
        sampleCount: 0,
        sampleNodeIds: [],
        toolNames: null,
        catalogDiff: null,
      },
    ]);
    expect(a.status).toBe('non-uniform');
    expect(a.severity).toBe('era-split');
  });

  it('orders equal groups by key, so the same input always gives the same partition', () => {
    const nodes = [node('a', modernVerdict()), node('b', dualVerdict())];
    const forward = analyzeCycle(cycleInput({ nodes }));
    const reverse = analyzeCycle(cycleInput({ nodes: [...nodes].reverse() }));
    expect(reverse.partition).toEqual(forward.partition);
    expect(forward.partition.map((g) => g.key)).toEqual([...forward.partition.map((g) => g.key)].sort());
  });
});

describe('analyzeCycle: flapping', () => {
  const changes = (...minutesAgo: number[]) => minutesAgo.map((m) => T0 - m * MIN);

  it.each([
    { name: 'four changes in ten minutes flap', recent: changes(1, 2, 3, 4), options: {}, flapping: true },
    { name: 'three changes do not (more than M)', recent: changes(1, 2, 3), options: {}, flapping: false },
    {
      name: 'changes older than the window do not count',
      recent: changes(1, 2, 3, 10, 11),
      options: {},
      flapping: false,
    },
    {
      name: 'a change at the cycle instant counts',
      recent: [T0, ...changes(1, 2, 3)],
      options: {},
      flapping: true,
    },
    {
      name: 'changes after the cycle instant do not count',
      recent: [T0 + MIN, ...changes(1, 2, 3)],
      options: {},
      flapping: false,
    },
    {
      name: 'the threshold is configurable',
      recent: changes(1, 2),
      options: { flapThreshold: 1 },
      flapping: true,
    },
    {
      name: 'the window is configurable',
      recent: changes(1, 2, 3, 15),
      options: { flapWindowMs: 20 * MIN },
      flapping: true,
    },
  ])('$name', ({ recent, options, flapping }) => {
    const a = analyzeCycle(
      cycleInput({ nodes: [node('a', modernVerdict(), recent), node('b', modernVerdict())], options }),
    );
    expect(a.flapping.map((f) => f.nodeId)).toEqual(flapping ? ['a'] : []);
    expect(a.displayStatus).toBe(flapping ? 'flapping' : 'uniform');
    expect(a.status).toBe('uniform');
  });

  it('reports how many changes were counted', () => {
    const a = analyzeCycle(cycleInput({ nodes: [node('a', modernVerdict(), changes(1, 2, 3, 4, 5))] }));
    expect(a.flapping).toEqual([{ nodeId: 'a', changes: 5 }]);
    expect(a.snapshot.flapping).toEqual(['a']);
  });
});

describe('analyzeCycle: cache hazard', () => {
  const withTtl = (ttlMs: number) => ({ cache: { ttlMs, cacheScope: 'private' } });

  it('takes the largest ttlMs among nodes and samples', () => {
    const a = analyzeCycle(
      cycleInput({
        nodes: [node('a', modernVerdict(withTtl(30_000))), node('b', legacyVerdict())],
        samples: [sample(modernVerdict(withTtl(120_000)))],
      }),
    );
    expect(a.cacheHazard.maxTtlMs).toBe(120_000);
  });

  it('has no ttl when nobody sent a cache hint', () => {
    const a = analyzeCycle(cycleInput({ nodes: [node('a', legacyVerdict())] }));
    expect(a.cacheHazard.maxTtlMs).toBeNull();
  });

  it.each([
    { name: 'all agree', samples: ['m', 'm', 'm', 'm'], share: 0, contradicting: 0, available: 4 },
    {
      name: 'half contradict the first',
      samples: ['m', 'l', 'm', 'l'],
      share: 0.5,
      contradicting: 2,
      available: 4,
    },
    {
      name: 'a legacy first sample is the reference',
      samples: ['l', 'm', 'm', 'm'],
      share: 0.75,
      contradicting: 3,
      available: 4,
    },
    {
      name: 'an unavailable first sample is skipped',
      samples: ['x', 'm', 'l'],
      share: 0.5,
      contradicting: 1,
      available: 2,
    },
    {
      name: 'one available sample gives no share',
      samples: ['m', 'x'],
      share: null,
      contradicting: 0,
      available: 1,
    },
    { name: 'no samples gives no share', samples: [], share: null, contradicting: 0, available: 0 },
  ])('contradicting share: $name', ({ samples, share, contradicting, available }) => {
    const verdictFor = (c: string) =>
      c === 'm' ? modernVerdict() : c === 'l' ? legacyVerdict() : unavailableVerdict('timeout');
    const a = analyzeCycle(cycleInput({ samples: samples.map((c) => sample(verdictFor(c))) }));
    expect(a.cacheHazard.contradictingShare).toBe(share);
    expect(a.cacheHazard.contradictingSamples).toBe(contradicting);
    expect(a.cacheHazard.availableSamples).toBe(available);
  });

  it('counts drift as differing but not as a contradiction a caching client would trip over', () => {
    const newer = modernVerdict({ serverInfo: { name: 'fleet-server', version: '2.5.0' } });
    const a = analyzeCycle(
      cycleInput({ samples: [sample(modernVerdict()), sample(newer), sample(modernVerdict())] }),
    );
    expect(a.status).toBe('non-uniform');
    expect(a.cacheHazard.differingSamples).toBe(1);
    expect(a.cacheHazard.contradictingSamples).toBe(0);
    expect(a.cacheHazard.contradictingShare).toBe(0);
  });

  it('counts a different negotiated version as a contradiction', () => {
    const future = modernVerdict({ negotiatedVersion: '2027-01-01', supported: ['2027-01-01'] });
    const a = analyzeCycle(cycleInput({ samples: [sample(modernVerdict()), sample(future)] }));
    expect(a.cacheHazard.contradictingSamples).toBe(1);
    expect(a.cacheHazard.contradictingShare).toBe(0.5);
  });
});

describe('analyzeCycle: gates', () => {
  it('evaluates each requested revision once', () => {
    const a = analyzeCycle(
      cycleInput({
        nodes: [node('a', dualVerdict()), node('b', dualVerdict())],
        gateRevisions: [MODERN, LEGACY, '2027-01-01', MODERN],
      }),
    );
    expect(a.gates.map((g) => [g.revision, g.ready])).toEqual([
      [MODERN, true],
      [LEGACY, true],
      ['2027-01-01', false],
    ]);
    expect(a.snapshot.gates.map((g) => g.revision)).toEqual(['2025-11-25', '2026-07-28', '2027-01-01']);
  });
});

describe('analyzeCycle: rollout windows', () => {
  const window = {
    id: 'w1',
    target: { negotiatedVersion: MODERN },
    openedAt: T0 - 10 * MIN,
    deadline: T0 + 10 * MIN,
  };
  const fleet = (modern: number, legacy: number, down = 0) => [
    ...Array.from({ length: modern }, (_, i) => node(`m${i}`, dualVerdict())),
    ...Array.from({ length: legacy }, (_, i) => node(`l${i}`, legacyVerdict())),
    ...Array.from({ length: down }, (_, i) => node(`d${i}`, unavailableVerdict('timeout'))),
  ];

  it('shows progress "6 of 10 nodes on 2026-07-28" and holds alerts while rolling', () => {
    const a = analyzeCycle(cycleInput({ nodes: fleet(6, 4), window }));
    expect(a.window).toMatchObject({
      windowId: 'w1',
      status: 'open',
      onTarget: 6,
      total: 10,
      unit: 'nodes',
      label: '6 of 10 nodes on 2026-07-28',
      stuck: false,
    });
    expect(a.status).toBe('non-uniform');
    expect(a.severity).toBe('era-split');
    expect(a.rolling).toBe(true);
    expect(a.holdAlerts).toBe(true);
    expect(a.displayStatus).toBe('rolling');
  });

  it('is stuck past the deadline while still not uniform on target', () => {
    const a = analyzeCycle(cycleInput({ nodes: fleet(6, 4), window, at: window.deadline + 1 }));
    expect(a.window).toMatchObject({ status: 'stuck', stuck: true, label: '6 of 10 nodes on 2026-07-28' });
    expect(a.rolling).toBe(false);
    expect(a.holdAlerts).toBe(false);
    expect(a.displayStatus).toBe('stuck');
    expect(a.snapshot.stuckWindows).toEqual(['w1']);
  });

  it('is stuck past the deadline when uniform on something other than the target', () => {
    const a = analyzeCycle(cycleInput({ nodes: fleet(0, 3), window, at: window.deadline + 1 }));
    expect(a.status).toBe('uniform');
    expect(a.window).toMatchObject({ status: 'stuck', onTarget: 0, total: 3 });
    expect(a.displayStatus).toBe('stuck');
  });

  it('is not stuck exactly at the deadline', () => {
    const a = analyzeCycle(cycleInput({ nodes: fleet(6, 4), window, at: window.deadline }));
    expect(a.window?.status).toBe('open');
  });

  it('is complete once uniform on target, even past the deadline', () => {
    const a = analyzeCycle(cycleInput({ nodes: fleet(4, 0), window, at: window.deadline + MIN }));
    expect(a.window).toMatchObject({ status: 'complete', stuck: false, label: '4 of 4 nodes on 2026-07-28' });
    expect(a.displayStatus).toBe('uniform');
  });

  it('an unavailable node does not hold a window back, but is not counted on target', () => {
    const a = analyzeCycle(cycleInput({ nodes: fleet(3, 0, 1), window, at: window.deadline + MIN }));
    expect(a.window).toMatchObject({ status: 'complete', onTarget: 3, total: 4 });
    expect(a.displayStatus).toBe('degraded');
  });

  it('before it opens, divergence is not excused', () => {
    const a = analyzeCycle(cycleInput({ nodes: fleet(1, 1), window, at: window.openedAt - 1 }));
    expect(a.window?.status).toBe('scheduled');
    expect(a.rolling).toBe(false);
    expect(a.displayStatus).toBe('era-split');
  });

  it('stays stuck once flagged, until complete', () => {
    const first = analyzeCycle(cycleInput({ nodes: fleet(6, 4), window, at: window.deadline + 1 }));
    // A later window object with an extended deadline does not unflag what was already reported.
    const extended = { ...window, deadline: window.deadline + 60 * MIN };
    const second = analyzeCycle(
      cycleInput({
        nodes: fleet(8, 2),
        window: extended,
        at: window.deadline + MIN,
        previous: first.snapshot,
      }),
    );
    expect(second.window).toMatchObject({ status: 'stuck', stuck: true });
    const done = analyzeCycle(
      cycleInput({
        nodes: fleet(10, 0),
        window: extended,
        at: window.deadline + 2 * MIN,
        previous: second.snapshot,
      }),
    );
    expect(done.window).toMatchObject({ status: 'complete', stuck: true });
    expect(done.snapshot.stuckWindows).toEqual(['w1']);
  });

  it.each([
    { target: { era: 'modern' as const }, label: '6 of 10 nodes on modern' },
    { target: { servedEras: 'dual-era' as const }, label: '6 of 10 nodes on dual-era' },
    { target: { supportedIncludes: MODERN }, label: '6 of 10 nodes on serving 2026-07-28' },
    {
      target: { era: 'modern' as const, negotiatedVersion: MODERN },
      label: '6 of 10 nodes on modern 2026-07-28',
    },
    { target: { servedEras: 'legacy-only' as const }, label: '4 of 10 nodes on legacy only' },
  ])('matches a target of $label', ({ target, label }) => {
    const a = analyzeCycle(cycleInput({ nodes: fleet(6, 4), window: { ...window, target } }));
    expect(a.window?.label).toBe(label);
  });

  it('matches a target fingerprint key exactly', () => {
    const fp = fingerprintOf(dualVerdict());
    if (!fp) throw new Error('fixture must be available');
    const key = fingerprintKey(fp);
    const a = analyzeCycle(
      cycleInput({ nodes: fleet(2, 1), window: { ...window, target: { fingerprintKey: key } } }),
    );
    expect(a.window).toMatchObject({ onTarget: 2, total: 3, label: `2 of 3 nodes on fingerprint ${key}` });
  });

  it('counts samples when the balancer is probed only through its public URL', () => {
    const a = analyzeCycle(
      cycleInput({
        samples: [sample(dualVerdict()), sample(legacyVerdict()), sample(unavailableVerdict('timeout'))],
        window,
      }),
    );
    expect(a.window).toMatchObject({
      onTarget: 1,
      total: 3,
      unit: 'samples',
      label: '1 of 3 samples on 2026-07-28',
    });
  });

  it('says "1 of 1 node"', () => {
    const a = analyzeCycle(cycleInput({ nodes: fleet(1, 0), window }));
    expect(a.window?.label).toBe('1 of 1 node on 2026-07-28');
  });
});

describe('analyzeCycle: display precedence', () => {
  const window = { id: 'w', target: { era: 'modern' as const }, openedAt: T0 - MIN, deadline: T0 + MIN };
  const flappy = [T0 - 1, T0 - 2, T0 - 3, T0 - 4];

  it.each<{
    name: string;
    nodes: NodeObservation[];
    at?: number;
    withWindow?: boolean;
    display: DisplayStatus;
  }>([
    {
      name: 'stuck beats everything',
      nodes: [
        node('a', modernVerdict(), flappy),
        node('b', legacyVerdict()),
        node('c', unavailableVerdict()),
      ],
      at: T0 + 2 * MIN,
      withWindow: true,
      display: 'stuck',
    },
    {
      name: 'rolling beats era-split, flapping and degraded',
      nodes: [
        node('a', modernVerdict(), flappy),
        node('b', legacyVerdict()),
        node('c', unavailableVerdict()),
      ],
      withWindow: true,
      display: 'rolling',
    },
    {
      name: 'era-split beats flapping and degraded',
      nodes: [
        node('a', modernVerdict(), flappy),
        node('b', legacyVerdict()),
        node('c', unavailableVerdict()),
      ],
      display: 'era-split',
    },
    {
      name: 'drift beats flapping and degraded',
      nodes: [node('a', modernVerdict(), flappy), node('b', dualVerdict()), node('c', unavailableVerdict())],
      display: 'drift',
    },
    {
      name: 'down beats flapping',
      nodes: [node('a', unavailableVerdict(), flappy)],
      display: 'down',
    },
    {
      name: 'flapping beats degraded',
      nodes: [node('a', modernVerdict(), flappy), node('c', unavailableVerdict())],
      display: 'flapping',
    },
  ])('$name', ({ nodes, at, withWindow, display }) => {
    const a = analyzeCycle(cycleInput({ nodes, at: at ?? T0, window: withWindow ? window : null }));
    expect(a.displayStatus).toBe(display);
    expect(a.snapshot.displayStatus).toBe(display);
  });
});

describe('analyzeCycle: snapshot', () => {
  it('keeps a node’s last known era across an outage when given the previous snapshot', () => {
    const first = analyzeCycle(cycleInput({ nodes: [node('a', legacyVerdict())] }));
    const down = analyzeCycle(
      cycleInput({
        at: T0 + MIN,
        nodes: [node('a', unavailableVerdict('refused'))],
        previous: first.snapshot,
      }),
    );
    expect(down.snapshot.nodes).toEqual([
      {
        nodeId: 'a',
        available: false,
        reason: 'refused',
        fingerprintKey: first.snapshot.nodes[0]?.fingerprintKey,
        era: 'legacy',
        servedEras: 'legacy-only',
        catalog: null,
      },
    ]);
    expect(down.snapshot.settledState).toBe('uniform');
    expect(down.snapshot.state).toBe('unknown');
  });

  it('is plain JSON that survives a round trip', () => {
    const a = analyzeCycle(
      cycleInput({
        nodes: [node('b', dualVerdict()), node('a', legacyVerdict()), node('c', unavailableVerdict())],
        gateRevisions: [MODERN],
        window: { id: 'w', target: { era: 'modern' }, openedAt: T0 - MIN, deadline: T0 + MIN },
      }),
    );
    expect(JSON.parse(JSON.stringify(a.snapshot))).toEqual(a.snapshot);
    expect(a.snapshot.nodes.map((n) => n.nodeId)).toEqual(['a', 'b', 'c']);
    expect(a.snapshot).toMatchObject({
      version: 1,
      balancerId: 'bal-1',
      at: T0,
      state: 'non-uniform',
      severity: 'era-split',
      settledState: 'non-uniform',
      rolling: true,
      window: { id: 'w', status: 'open', label: '1 of 3 nodes on modern', deadline: T0 + MIN },
    });
  });
});
