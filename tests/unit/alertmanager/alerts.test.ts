// Which alerts an analysis raises and how they are labelled: the rules of lib/alertmanager/alerts.ts.
import { describe, expect, it } from 'vitest';
import {
  alertsFor,
  describePartition,
  labelFingerprint,
  postableAlerts,
  sinkWants,
  type StoredAnalysisView,
} from '@/lib/alertmanager/alerts';
import type { Fingerprint, PartitionGroup, UnavailableNode } from '@/lib/rollout/types';
import { analysisViewOf } from '@/lib/schemas/balancer-analysis';
import type { AnalysisFields } from '@/lib/rollout/analysis';

const modern: Fingerprint = {
  era: 'modern',
  negotiatedVersion: '2026-07-28',
  supported: ['2026-07-28'],
  servedEras: 'modern-only',
  serverName: 'shop',
  serverVersion: '2.0.0',
};
const legacy: Fingerprint = {
  ...modern,
  era: 'legacy',
  negotiatedVersion: '2025-11-25',
  servedEras: 'legacy-only',
  serverVersion: '1.0.0',
};

function group(fp: Fingerprint, nodeIds: string[], sampleCount = 0): PartitionGroup {
  return {
    key: fp.era,
    fingerprint: fp,
    nodeIds,
    sampleCount,
    sampleNodeIds: [],
    toolNames: null,
    catalogDiff: null,
  };
}

/** An analysis as the poller stores it, read back as the store's edge hands it on. */
function analysis(over: Partial<AnalysisFields>): StoredAnalysisView {
  return analysisViewOf(
    {
      balancerId: 'bal_1',
      analyzedAt: 1_000,
      status: 'uniform',
      severity: null,
      partition: [group(modern, ['n1', 'n2'])],
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
      counts: { nodes: 2, availableNodes: 2, samples: 0, availableSamples: 0 },
      regionSplit: false,
      regions: [],
      regionPartition: [],
      missingRegions: [],
      ...over,
    },
    null,
  );
}

const down = (nodeId: string, reason: string): UnavailableNode => ({
  nodeId,
  url: `http://${nodeId}/mcp`,
  reason,
  anomaly: null,
  authGated: false,
});
const labels = { n1: 'http://10.0.0.1/mcp', n2: 'http://10.0.0.2/mcp' };
const raise = (a: StoredAnalysisView) =>
  alertsFor(
    { balancerId: 'bal_1', balancerName: 'shop', analysis: a, nodeLabels: labels },
    'https://ew.example/',
  );
const names = (a: StoredAnalysisView) => raise(a).map((x) => [x.labels.alertname, x.labels.severity]);

describe('alertsFor', () => {
  const window = {
    windowId: 'win_1',
    status: 'open' as const,
    onTarget: 1,
    total: 2,
    unit: 'nodes' as const,
    label: '1 of 2 nodes on modern',
    targetLabel: 'modern',
    deadline: 5_000,
    stuck: false,
  };
  const split = { status: 'non-uniform' as const, partition: [group(modern, ['n1']), group(legacy, ['n2'])] };
  it.each<[string, Partial<AnalysisFields>, string[][]]>([
    ['a uniform healthy balancer raises nothing', {}, []],
    ['era-split is critical', { ...split, severity: 'era-split' }, [['ErawatchNonUniform', 'critical']]],
    ['drift is a warning', { ...split, severity: 'drift' }, [['ErawatchNonUniform', 'warning']]],
    [
      'held inside an open rollout window',
      { ...split, severity: 'era-split', holdAlerts: true, rolling: true, window },
      [],
    ],
    [
      'past the deadline: non-uniform and stuck',
      { ...split, severity: 'era-split', window: { ...window, status: 'stuck', stuck: true } },
      [
        ['ErawatchNonUniform', 'critical'],
        ['ErawatchRolloutStuck', 'critical'],
      ],
    ],
    [
      'every node down is unavailable',
      {
        partition: [],
        degradedNodes: [down('n1', 'refused'), down('n2', 'timeout')],
        counts: { nodes: 2, availableNodes: 0, samples: 0, availableSamples: 0 },
      },
      [['ErawatchBalancerUnavailable', 'critical']],
    ],
    [
      'one node down is only degraded: no alert',
      { degradedNodes: [down('n2', 'refused')], partition: [group(modern, ['n1'])] },
      [],
    ],
    [
      'an auth-gated node is its own alert, not unavailable',
      { partition: [group(modern, ['n1'])], degradedNodes: [down('n2', 'auth_required')] },
      [['ErawatchAuthGated', 'warning']],
    ],
    [
      'every node auth-gated: auth-gated only',
      {
        partition: [],
        degradedNodes: [down('n1', 'auth_required'), down('n2', 'auth_failed')],
        counts: { nodes: 2, availableNodes: 0, samples: 0, availableSamples: 0 },
      },
      [['ErawatchAuthGated', 'warning']],
    ],
    [
      'all down, some for auth: both',
      {
        partition: [],
        degradedNodes: [down('n1', 'auth_required'), down('n2', 'refused')],
        counts: { nodes: 2, availableNodes: 0, samples: 0, availableSamples: 0 },
      },
      [
        ['ErawatchBalancerUnavailable', 'critical'],
        ['ErawatchAuthGated', 'warning'],
      ],
    ],
  ])('%s', (_what, over, expected) => {
    expect(names(analysis(over))).toEqual(expected);
  });

  it('labels, annotations and links', () => {
    const [alert] = raise(analysis({ ...split, severity: 'era-split' }));
    expect(alert?.labels).toEqual({
      alertname: 'ErawatchNonUniform',
      balancer: 'shop',
      severity: 'critical',
      split: 'era-split',
    });
    expect(alert?.generatorUrl).toBe('https://ew.example/balancers/bal_1');
    expect(alert?.annotations).toEqual({
      summary: 'Balancer shop is non-uniform (era-split): its nodes lead clients to different MCP eras',
      partition:
        'modern 2026-07-28 (modern-only, shop 2.0.0) on 1 node (http://10.0.0.1/mcp); legacy 2025-11-25 (legacy-only, shop 1.0.0) on 1 node (http://10.0.0.2/mcp)',
      dashboard: 'https://ew.example/balancers/bal_1',
    });
    expect(alert?.fingerprint).toBe(
      labelFingerprint({
        split: 'era-split',
        severity: 'critical',
        balancer: 'shop',
        alertname: 'ErawatchNonUniform',
      }),
    );
  });
});

describe('alertsFor: regions', () => {
  const inRegion = (fp: Fingerprint, nodeIds: string[], regions: string[]) => ({
    ...group(fp, nodeIds),
    regions,
  });
  const regionSplit = (west: Fingerprint, east: Fingerprint): Partial<AnalysisFields> => ({
    status: 'non-uniform',
    severity: 'region-split',
    displayStatus: 'region-split',
    partition: [inRegion(west, ['n1'], ['eu-west']), inRegion(east, ['n2'], ['us-east'])],
    regionSplit: true,
    regionPartition: [
      { keys: [west.era], regions: ['eu-west'] },
      { keys: [east.era], regions: ['us-east'] },
    ],
  });

  it('regions that see different eras raise ErawatchRegionSplit (critical), not ErawatchNonUniform', () => {
    const alerts = raise(analysis(regionSplit(modern, legacy)));
    expect(alerts.map((a) => a.labels)).toEqual([
      {
        alertname: 'ErawatchRegionSplit',
        balancer: 'shop',
        severity: 'critical',
        regions: 'eu-west / us-east',
      },
    ]);
    expect(alerts[0]?.annotations.summary).toBe(
      'Balancer shop answers differently from different regions: eu-west sees modern 2026-07-28 (modern-only, shop 2.0.0); us-east sees legacy 2025-11-25 (legacy-only, shop 1.0.0)',
    );
  });

  it.each<[string, Partial<AnalysisFields>, string[][]]>([
    [
      'regions on one era but different versions are a warning',
      regionSplit(modern, { ...modern, serverVersion: '3.0.0' }),
      [['ErawatchRegionSplit', 'warning']],
    ],
    ['held inside an open rollout window', { ...regionSplit(modern, legacy), holdAlerts: true }, []],
    [
      'a drift inside a region fires beside the region split',
      { ...regionSplit(modern, legacy), severity: 'drift', displayStatus: 'drift' },
      [
        ['ErawatchNonUniform', 'warning'],
        ['ErawatchRegionSplit', 'critical'],
      ],
    ],
    ['regions that agree raise nothing', { regionSplit: false, regionPartition: [] }, []],
  ])('%s', (_what, over, expected) => {
    expect(names(analysis(over))).toEqual(expected);
  });

  it('a sink filtering on balancer.region_split gets it; one on balancer.diverged does not', () => {
    const [alert] = raise(analysis(regionSplit(modern, legacy)));
    if (!alert) throw new Error('no alert');
    expect(sinkWants({ eventTypes: ['balancer.region_split'], balancerIds: [] }, alert)).toBe(true);
    expect(sinkWants({ eventTypes: ['balancer.diverged'], balancerIds: [] }, alert)).toBe(false);
  });
});

describe('describePartition', () => {
  it('names groups, samples and unavailable nodes with their reasons', () => {
    const text = describePartition(
      analysis({
        partition: [group(modern, ['n1'], 3)],
        degradedNodes: [down('n2', 'timeout')],
        unavailableSamples: [{ nodeId: null, url: 'x', reason: 'timeout', authGated: false }],
      }),
      labels,
    );
    expect(text).toBe(
      'modern 2026-07-28 (modern-only, shop 2.0.0) on 1 node (http://10.0.0.1/mcp) and 3 samples; unavailable: http://10.0.0.2/mcp (timeout); 1 sample unavailable',
    );
  });
});

describe('catalog drift', () => {
  it('says what differs and which tools each group adds or lacks', () => {
    const withTools = (g: PartitionGroup, toolNames: string[], diff: PartitionGroup['catalogDiff']) => ({
      ...g,
      toolNames,
      catalogDiff: diff,
    });
    const a = analysis({
      status: 'non-uniform',
      severity: 'drift',
      reasons: ['catalog differs'],
      partition: [
        withTools(group(modern, ['n1']), ['echo', 'search'], null),
        withTools(group(modern, ['n2']), ['echo'], { adds: [], lacks: ['search'], changed: [] }),
      ],
    });
    const [alert] = raise(a);
    expect(alert?.annotations.summary).toBe('Balancer shop is non-uniform (drift): catalog differs');
    expect(alert?.annotations.partition).toBe(
      'modern 2026-07-28 (modern-only, shop 2.0.0), 2 tools on 1 node (http://10.0.0.1/mcp); modern 2026-07-28 (modern-only, shop 2.0.0), 1 tool [lacks search] on 1 node (http://10.0.0.2/mcp)',
    );
  });
});

describe('sinkWants', () => {
  const alert = { alertname: 'ErawatchRolloutStuck' as const, balancerId: 'bal_1' };
  it.each<[string, { eventTypes: string[]; balancerIds: string[] }, boolean]>([
    ['no filters', { eventTypes: [], balancerIds: [] }, true],
    ['its event type', { eventTypes: ['rollout.stuck'], balancerIds: [] }, true],
    ['another event type', { eventTypes: ['balancer.diverged'], balancerIds: [] }, false],
    ['its balancer', { eventTypes: [], balancerIds: ['bal_1'] }, true],
    ['another balancer', { eventTypes: [], balancerIds: ['bal_2'] }, false],
  ])('%s', (_what, sink, expected) => expect(sinkWants(sink, alert)).toBe(expected));
});

describe('postableAlerts', () => {
  it('firing alerts end four resend intervals ahead; resolved ones at the time they cleared', () => {
    const base = {
      labels: { alertname: 'A' },
      annotations: {},
      generatorUrl: 'https://ew.example/balancers/b',
      startsAt: 0,
    };
    expect(
      postableAlerts(
        [base, { ...base, endsAt: 30_000 }].map((a) => ({ endsAt: null, ...a })),
        60_000,
        60_000,
      ),
    ).toEqual([
      {
        labels: { alertname: 'A' },
        annotations: {},
        startsAt: '1970-01-01T00:00:00.000Z',
        endsAt: '1970-01-01T00:05:00.000Z',
        generatorURL: 'https://ew.example/balancers/b',
      },
      {
        labels: { alertname: 'A' },
        annotations: {},
        startsAt: '1970-01-01T00:00:00.000Z',
        endsAt: '1970-01-01T00:00:30.000Z',
        generatorURL: 'https://ew.example/balancers/b',
      },
    ]);
  });
});
