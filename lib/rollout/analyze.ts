// One balancer, one cycle: partition by fingerprint, flag divergence, degradation and flapping, measure
// the cache hazard, evaluate gates and window progress, and produce the snapshot the next cycle diffs.
import { EraCache } from '@/lib/probe/era-cache';
import { isAuthGatedReason, type ToolCatalog, type Verdict } from '@/lib/probe/types';
import { annotateCatalogs, catalogFailedKeyOf, catalogTtlOf, divergenceReasons } from './catalog';
import { keyedFingerprintOf } from './fingerprint';
import { evaluateGate } from './gate';
import { placeSample } from './samples';
import type {
  BalancerAnalysis,
  BalancerSnapshot,
  BalancerState,
  CacheHazard,
  CycleInput,
  DisplayStatus,
  Fingerprint,
  FlappingNode,
  NodeObservation,
  NodeSnapshot,
  PartitionGroup,
  SampleObservation,
  Severity,
  WindowProgress,
} from './types';
import { DISPLAY_STATUSES, SNAPSHOT_VERSION } from './types';
import { validateCycleInput } from './validate';
import { computeWindowProgress } from './window';

/** How many stuck window ids a snapshot remembers; older ones can no longer be re-flagged. */
const REMEMBERED_STUCK_WINDOWS = 20;

type Keyed = { key: string; fingerprint: Fingerprint } | null;
interface KeyedNode {
  obs: NodeObservation;
  keyed: Keyed;
}
interface KeyedSample {
  obs: SampleObservation;
  keyed: Keyed;
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function partitionByFingerprint(nodes: KeyedNode[], samples: KeyedSample[]): PartitionGroup[] {
  const groups = new Map<string, PartitionGroup & { sampleNodes: Set<string> }>();
  const groupOf = (keyed: NonNullable<Keyed>) => {
    const existing = groups.get(keyed.key);
    if (existing) return existing;
    const created: PartitionGroup & { sampleNodes: Set<string> } = {
      key: keyed.key,
      fingerprint: keyed.fingerprint,
      nodeIds: [],
      sampleCount: 0,
      sampleNodeIds: [],
      sampleNodes: new Set<string>(),
      toolNames: null,
      catalogDiff: null,
    };
    groups.set(keyed.key, created);
    return created;
  };
  for (const n of nodes) if (n.keyed) groupOf(n.keyed).nodeIds.push(n.obs.nodeId);
  for (const s of samples) {
    if (!s.keyed) continue;
    const group = groupOf(s.keyed);
    group.sampleCount += 1;
    if (s.obs.nodeId !== null) group.sampleNodes.add(s.obs.nodeId);
  }
  const size = (g: PartitionGroup) => g.nodeIds.length + g.sampleCount;
  return [...groups.values()]
    .map(({ sampleNodes, ...g }) => ({
      ...g,
      nodeIds: [...g.nodeIds].sort(byText),
      sampleNodeIds: [...sampleNodes].sort(byText),
    }))
    .sort((a, b) => size(b) - size(a) || byText(a.key, b.key));
}

export function stateOfPartition(partition: PartitionGroup[]): {
  state: BalancerState;
  severity: Severity | null;
} {
  if (partition.length === 0) return { state: 'unknown', severity: null };
  if (partition.length === 1) return { state: 'uniform', severity: null };
  const eras = new Set(partition.map((g) => g.fingerprint.era));
  return { state: 'non-uniform', severity: eras.size > 1 ? 'era-split' : 'drift' };
}

/**
 * What a caching client would have seen through the public URL: it caches the era of the cycle's first
 * available sample (EraCache, the same cache the host check uses) and each later sample either agrees or
 * contradicts it in era or negotiated version. Fingerprint-only differences (served set, server version) are
 * counted apart: they are drift, which a caching client does not trip over.
 */
export function measureCacheHazard(
  verdicts: Verdict[],
  samples: Array<{ verdict: Verdict; keyed: Keyed }>,
): CacheHazard {
  const ttls = verdicts.flatMap((v) => (v.cache ? [v.cache.ttlMs] : []));
  const available = samples.filter(
    (s): s is { verdict: Verdict; keyed: NonNullable<Keyed> } => s.keyed !== null,
  );
  const first = available[0];
  let contradicting = 0;
  if (first) {
    const cache = new EraCache({ ttlMs: 86_400_000 }, () => first.verdict.probedAt);
    const peer = { endpoint: first.verdict.url, instance: null };
    const key = `sample:${first.verdict.url}`;
    for (const s of available) {
      if (cache.compareSample(key, peer, s.verdict).outcome === 'contradicts') contradicting += 1;
    }
  }
  const differing = first ? available.filter((s) => s.keyed.key !== first.keyed.key).length : 0;
  return {
    maxTtlMs: ttls.reduce<number | null>((max, t) => (max === null || t > max ? t : max), null),
    availableSamples: available.length,
    contradictingSamples: contradicting,
    contradictingShare: available.length >= 2 ? contradicting / available.length : null,
    differingSamples: differing,
    catalogTtlMs: null,
  };
}

/** Changes inside (at - windowMs, at]; a node flaps with more than `threshold` of them. */
export function findFlapping(
  nodes: NodeObservation[],
  at: number,
  threshold: number,
  windowMs: number,
): FlappingNode[] {
  return nodes
    .map((n) => ({
      nodeId: n.nodeId,
      changes: n.recentChanges.filter((t) => t > at - windowMs && t <= at).length,
    }))
    .filter((f) => f.changes > threshold)
    .sort((a, b) => byText(a.nodeId, b.nodeId));
}

/** The first status in DISPLAY_STATUSES order whose flag is set; `unknown` when none is. */
export function pickDisplayStatus(flags: Partial<Record<DisplayStatus, boolean>>): DisplayStatus {
  return DISPLAY_STATUSES.find((s) => flags[s] === true) ?? 'unknown';
}

const rawKeyed = (v: Verdict): Keyed => keyedFingerprintOf(v);

/** The region fields of one region's own analysis: the cross-region step (./regions.ts) fills them in. */
function oneRegion(): Pick<
  BalancerAnalysis,
  'regionSplit' | 'regions' | 'regionPartition' | 'missingRegions'
> {
  return { regionSplit: false, regions: [], regionPartition: [], missingRegions: [] };
}

export function analyzeCycle(input: CycleInput): BalancerAnalysis {
  const { flapThreshold, flapWindowMs } = validateCycleInput(input);
  const prev = input.previous ?? null;
  const at = input.at;

  const nodes: KeyedNode[] = input.nodes.map((obs) => ({ obs, keyed: keyedFingerprintOf(obs.verdict) }));
  const nodeGroups = partitionByFingerprint(nodes, []);
  const { samples, unplacedSamples } = placeSamples(input.samples, nodes, nodeGroups);
  const placedSamples = samples.filter((s) => s.keyed !== null);
  const unavailableSampleObs = samples.filter((s) => s.obs.verdict.verdict === 'unavailable');

  const catalogs = catalogsByKey(nodes);
  const partition = annotateCatalogs(
    partitionByFingerprint(nodes, placedSamples),
    (key) => catalogs.get(key) ?? null,
  );
  const { state, severity } = stateOfPartition(partition);
  const reasons = state === 'non-uniform' ? divergenceReasons(partition) : [];
  const only = partition.length === 1 ? partition[0] : undefined;

  const { degraded, unavailableSamples } = unavailableOf(nodes, unavailableSampleObs);
  const isDegraded = degraded.length > 0 || unavailableSamples.length > 0;
  // Auth-gated is shown apart from down: every unavailable answer was a refusal at the door.
  const allGated =
    isDegraded && degraded.every((d) => d.authGated) && unavailableSamples.every((s) => s.authGated);

  const flapping = findFlapping(input.nodes, at, flapThreshold, flapWindowMs);
  const cacheHazard = measureCacheHazard(
    [...input.nodes.map((n) => n.verdict), ...input.samples.map((s) => s.verdict)],
    // What a caching client met counts every answering sample, placed or not.
    samples.map((s) => ({ verdict: s.obs.verdict, keyed: s.keyed ?? rawKeyed(s.obs.verdict) })),
  );
  cacheHazard.catalogTtlMs = catalogTtlOf(input.nodes.map((n) => n.verdict));
  // The stored gates keep their reasons; the nodes each names are the gate route's to add.
  const gates = [...new Set(input.gateRevisions)].map((revision) => {
    const { ready, reasons } = evaluateGate(input.nodes, revision);
    return { revision, ready, reasons };
  });
  const window: WindowProgress | null = input.window
    ? computeWindowProgress(input.window, {
        at,
        nodes,
        samples,
        uniformFingerprint: only ? { key: only.key, fingerprint: only.fingerprint } : null,
        alreadyStuck: prev?.stuckWindows.includes(input.window.id) ?? false,
      })
    : null;

  const rolling = window?.status === 'open' && state === 'non-uniform';
  const probed = nodes.length + samples.length;
  // Samples that answered but joined no group still answered: the balancer is not down.
  const down = state === 'unknown' && probed > 0 && unplacedSamples === 0;
  const displayStatus = pickDisplayStatus({
    stuck: window?.status === 'stuck',
    rolling,
    'era-split': severity === 'era-split',
    drift: severity === 'drift',
    down: down && !allGated,
    'auth-gated': allGated,
    flapping: flapping.length > 0,
    degraded: isDegraded,
    uniform: state === 'uniform',
  });

  const snapshot = buildSnapshot(input, prev, {
    state,
    severity,
    displayStatus,
    rolling,
    window,
    nodes,
    flapping,
    gates,
  });

  return {
    balancerId: input.balancerId,
    analyzedAt: at,
    status: state,
    severity,
    partition,
    degradedNodes: degraded,
    unavailableSamples,
    unplacedSamples,
    reasons,
    degraded: isDegraded,
    flapping,
    cacheHazard,
    gates,
    window,
    rolling,
    holdAlerts: rolling,
    displayStatus,
    counts: countsOf(nodes, samples),
    ...oneRegion(),
    snapshot,
  };
}

function countsOf(nodes: readonly KeyedNode[], samples: readonly KeyedSample[]): BalancerAnalysis['counts'] {
  return {
    nodes: nodes.length,
    availableNodes: nodes.filter((n) => n.keyed !== null).length,
    samples: samples.length,
    availableSamples: samples.filter((s) => s.obs.verdict.verdict !== 'unavailable').length,
  };
}

/**
 * Places each answering sample in a node group by what its one response carried (samples.ts), never by facts
 * assembled from requests that may have reached different nodes; one that fits no group is unplaced.
 */
function placeSamples(
  observed: CycleInput['samples'],
  nodes: readonly KeyedNode[],
  nodeGroups: ReturnType<typeof partitionByFingerprint>,
): { samples: KeyedSample[]; unplacedSamples: number } {
  const keyOfNode = new Map(nodes.flatMap((n) => (n.keyed ? [[n.obs.nodeId, n.keyed.key] as const] : [])));
  let unplacedSamples = 0;
  const samples: KeyedSample[] = observed.map((obs) => {
    if (obs.verdict.verdict === 'unavailable') return { obs, keyed: null };
    const placed = placeSample(
      obs.verdict,
      obs.nodeId ? (keyOfNode.get(obs.nodeId) ?? null) : null,
      nodeGroups,
    );
    if (placed.kind === 'unplaced') {
      unplacedSamples += 1;
      return { obs, keyed: null };
    }
    return { obs, keyed: { key: placed.key, fingerprint: placed.fingerprint } };
  });
  return { samples, unplacedSamples };
}

/** The first full catalog each fingerprint group's nodes listed. */
function catalogsByKey(nodes: readonly KeyedNode[]): Map<string, ToolCatalog> {
  const catalogs = new Map<string, ToolCatalog>();
  for (const n of nodes) {
    const catalog = n.obs.verdict.catalog;
    if (n.keyed && catalog?.digest && !catalogs.has(n.keyed.key)) catalogs.set(n.keyed.key, catalog);
  }
  return catalogs;
}

/** The unavailable nodes (by id) and samples, each with its reason and whether it was refused at the door. */
function unavailableOf(nodes: readonly KeyedNode[], unavailableSampleObs: readonly KeyedSample[]) {
  const degraded = nodes
    .filter((n) => n.keyed === null)
    .map((n) => ({
      nodeId: n.obs.nodeId,
      url: n.obs.verdict.url,
      reason: n.obs.verdict.reason,
      anomaly: n.obs.verdict.anomaly,
      authGated: isAuthGatedReason(n.obs.verdict.reason),
    }))
    .sort((a, b) => byText(a.nodeId, b.nodeId));
  const unavailableSamples = unavailableSampleObs.map((s) => ({
    nodeId: s.obs.nodeId,
    url: s.obs.verdict.url,
    reason: s.obs.verdict.reason,
    authGated: isAuthGatedReason(s.obs.verdict.reason),
  }));
  return { degraded, unavailableSamples };
}

interface SnapshotParts {
  state: BalancerState;
  severity: Severity | null;
  displayStatus: DisplayStatus;
  rolling: boolean;
  window: WindowProgress | null;
  nodes: KeyedNode[];
  flapping: FlappingNode[];
  gates: { revision: string; ready: boolean; reasons: string[] }[];
}

function buildSnapshot(
  input: CycleInput,
  prev: BalancerSnapshot | null,
  parts: SnapshotParts,
): BalancerSnapshot {
  const lastKnown = new Map((prev?.nodes ?? []).map((n) => [n.nodeId, n]));
  const nodes: NodeSnapshot[] = parts.nodes
    .map(({ obs, keyed }): NodeSnapshot => {
      const known = lastKnown.get(obs.nodeId);
      const current = obs.verdict.catalog;
      const catalog = current?.digest ? current : (known?.catalog ?? null);
      if (keyed) {
        const failedKey = catalogFailedKeyOf(current, known);
        return {
          nodeId: obs.nodeId,
          available: true,
          reason: null,
          fingerprintKey: keyed.key,
          era: keyed.fingerprint.era,
          servedEras: keyed.fingerprint.servedEras,
          catalog,
          ...(failedKey === undefined ? {} : { catalogFailedKey: failedKey }),
        };
      }
      return {
        nodeId: obs.nodeId,
        available: false,
        reason: obs.verdict.reason,
        fingerprintKey: known?.fingerprintKey ?? null,
        era: known?.era ?? null,
        servedEras: known?.servedEras ?? null,
        catalog: known?.catalog ?? null,
        ...(known?.catalogFailedKey === undefined ? {} : { catalogFailedKey: known.catalogFailedKey }),
      };
    })
    .sort((a, b) => byText(a.nodeId, b.nodeId));

  let stuckWindows = prev?.stuckWindows ?? [];
  const w = parts.window;
  if (w?.stuck && !stuckWindows.includes(w.windowId)) {
    stuckWindows = [...stuckWindows, w.windowId].slice(-REMEMBERED_STUCK_WINDOWS);
  }

  return {
    version: SNAPSHOT_VERSION,
    balancerId: input.balancerId,
    at: input.at,
    state: parts.state,
    severity: parts.severity,
    settledState: parts.state === 'unknown' ? (prev?.settledState ?? null) : parts.state,
    displayStatus: parts.displayStatus,
    rolling: parts.rolling,
    window: w ? { id: w.windowId, status: w.status, label: w.label, deadline: w.deadline } : null,
    nodes,
    flapping: parts.flapping.map((f) => f.nodeId),
    gates: parts.gates
      .map((g) => ({ revision: g.revision, ready: g.ready, reasons: g.reasons }))
      .sort((a, b) => byText(a.revision, b.revision)),
    stuckWindows,
    cycle: (prev?.cycle ?? 0) + 1,
  };
}
