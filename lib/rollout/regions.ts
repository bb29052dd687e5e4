// The analysis across regions: each region's probes are analysed on their own (analyzeCycle), then compared.
// One public URL that gives different fingerprints from different regions (geo-routing to different pools)
// is a region split; the gate opens only when every region is uniform and they agree. Pure and client-safe.
import { analyzeCycle, pickDisplayStatus } from './analyze';
import { listIds, plural } from './text';
import type {
  BalancerAnalysis,
  BalancerSnapshot,
  CacheHazard,
  CycleOptions,
  Fingerprint,
  GateResult,
  NodeObservation,
  PartitionGroup,
  RegionGroup,
  RegionSummary,
  RolloutWindowInput,
  SampleObservation,
  Severity,
  WindowProgress,
} from './types';
import { RolloutInputError } from './validate';

import { DEFAULT_REGION, regionProblem } from '@/lib/region';

export { DEFAULT_REGION, REGION_PATTERN, REGION_RULE, regionProblem } from '@/lib/region';

/** One region's result for one balancer: its own analysis (with its own snapshot). */
export interface RegionResult {
  region: string;
  analysis: BalancerAnalysis;
}

export interface CombineInput {
  balancerId: string;
  at: number;
  results: RegionResult[];
  /** Regions that must have a result; any without one keeps the gate shut (default: those with results). */
  expectedRegions?: string[];
  /** The combined snapshot of the previous cycle: carries the settled region split across unclear cycles. */
  previous?: BalancerSnapshot | null;
}

export interface RegionCycleInput {
  region: string;
  nodes: NodeObservation[];
  samples: SampleObservation[];
  /** This region's own previous snapshot. */
  previous?: BalancerSnapshot | null;
}

export interface MultiRegionInput {
  balancerId: string;
  at: number;
  regions: RegionCycleInput[];
  window: RolloutWindowInput | null;
  gateRevisions: string[];
  options?: CycleOptions;
  expectedRegions?: string[];
  previous?: BalancerSnapshot | null;
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const SEVERITY_RANK: Record<Severity, number> = { 'era-split': 0, drift: 1, 'region-split': 2 };
const WINDOW_RANK: Record<WindowProgress['status'], number> = {
  stuck: 0,
  open: 1,
  scheduled: 2,
  complete: 3,
};

/** Every region analysed on its own, then compared: the per-region analyses and the cross-region verdict. */
export function analyzeRegions(input: MultiRegionInput): {
  perRegion: RegionResult[];
  combined: BalancerAnalysis;
} {
  const perRegion = input.regions.map((r) => ({
    region: r.region,
    analysis: analyzeCycle({
      balancerId: input.balancerId,
      at: input.at,
      nodes: r.nodes,
      samples: r.samples,
      window: input.window,
      gateRevisions: input.gateRevisions,
      ...(input.options ? { options: input.options } : {}),
      previous: r.previous ?? null,
    }),
  }));
  const combined = combineRegions({
    balancerId: input.balancerId,
    at: input.at,
    results: perRegion,
    ...(input.expectedRegions ? { expectedRegions: input.expectedRegions } : {}),
    previous: input.previous ?? null,
  });
  return { perRegion, combined };
}

function validateCombine(input: CombineInput): void {
  const issues: string[] = [];
  if (!Array.isArray(input.results) || input.results.length === 0) {
    issues.push('results must list at least one region');
  } else {
    const seen = new Set<string>();
    input.results.forEach((r, i) => {
      const problem = regionProblem(r.region);
      if (problem) issues.push(`results[${i}].region ${problem}`);
      else if (seen.has(r.region)) issues.push(`results[${i}].region "${r.region}" is listed twice`);
      seen.add(r.region);
      if (r.analysis?.balancerId !== input.balancerId) {
        issues.push(`results[${i}] is an analysis of another balancer`);
      }
    });
  }
  (input.expectedRegions ?? []).forEach((r, i) => {
    const problem = regionProblem(r);
    if (problem) issues.push(`expectedRegions[${i}] ${problem}`);
  });
  if (issues.length > 0) throw new RolloutInputError(issues);
}

export function summarizeRegion(r: RegionResult): RegionSummary {
  const a = r.analysis;
  return {
    region: r.region,
    analyzedAt: a.analyzedAt,
    status: a.status,
    severity: a.severity,
    displayStatus: a.displayStatus,
    keys: a.partition.map((g) => g.key),
    degraded: a.degraded,
    counts: a.counts,
  };
}

/** Regions grouped by the set of fingerprints each saw; regions that saw nothing are left out. */
export function groupRegions(summaries: RegionSummary[]): RegionGroup[] {
  const groups = new Map<string, RegionGroup>();
  for (const s of summaries) {
    if (s.keys.length === 0) continue;
    const keys = [...s.keys].sort(byText);
    const sig = keys.join(' ');
    const g = groups.get(sig) ?? { keys, regions: [] };
    g.regions.push(s.region);
    groups.set(sig, g);
  }
  return [...groups.values()]
    .map((g) => ({ keys: g.keys, regions: [...g.regions].sort(byText) }))
    .sort((a, b) => b.regions.length - a.regions.length || byText(a.regions[0] ?? '', b.regions[0] ?? ''));
}

function mergePartitions(results: RegionResult[]): PartitionGroup[] {
  const merged = new Map<
    string,
    PartitionGroup & { nodes: Set<string>; sampleNodes: Set<string>; regionSet: Set<string> }
  >();
  for (const r of results) {
    for (const g of r.analysis.partition) {
      const m = merged.get(g.key) ?? {
        ...g,
        nodeIds: [],
        sampleCount: 0,
        sampleNodeIds: [],
        nodes: new Set<string>(),
        sampleNodes: new Set<string>(),
        regionSet: new Set<string>(),
      };
      g.nodeIds.forEach((id) => m.nodes.add(id));
      g.sampleNodeIds.forEach((id) => m.sampleNodes.add(id));
      m.sampleCount += g.sampleCount;
      m.regionSet.add(r.region);
      merged.set(g.key, m);
    }
  }
  const size = (g: PartitionGroup) => g.nodeIds.length + g.sampleCount;
  return [...merged.values()]
    .map(({ nodes, sampleNodes, regionSet, ...g }) => ({
      ...g,
      nodeIds: [...nodes].sort(byText),
      sampleNodeIds: [...sampleNodes].sort(byText),
      regions: [...regionSet].sort(byText),
    }))
    .sort(
      (a, b) => size(b) - size(a) || byText(a.regions[0] ?? '', b.regions[0] ?? '') || byText(a.key, b.key),
    );
}

function describeFingerprint(fp: Fingerprint): string {
  const version = fp.negotiatedVersion ? ` ${fp.negotiatedVersion}` : '';
  const server = fp.serverName ? `, ${fp.serverName}${fp.serverVersion ? ` ${fp.serverVersion}` : ''}` : '';
  return `${fp.era}${version} (${fp.servedEras}${server})`;
}

/** "eu-west sees modern 2026-07-28 (…); us-east sees legacy 2025-11-25 (…)". */
export function describeRegionSplit(
  groups: RegionGroup[],
  partition: ReadonlyArray<Pick<PartitionGroup, 'key' | 'fingerprint'>>,
): string {
  const fpOf = new Map(partition.map((g) => [g.key, g.fingerprint]));
  return groups
    .map((g) => {
      const seen = g.keys.map((k) => {
        const fp = fpOf.get(k);
        return fp ? describeFingerprint(fp) : k;
      });
      return `${listIds(g.regions, 5)} ${g.regions.length === 1 ? 'sees' : 'see'} ${seen.join(' and ')}`;
    })
    .join('; ');
}

function combineHazard(results: RegionResult[]): CacheHazard {
  const hs = results.map((r) => r.analysis.cacheHazard);
  const maxOf = (vals: Array<number | null | undefined>) =>
    vals.reduce<number | null>(
      (m, v) => (v === null || v === undefined ? m : m === null || v > m ? v : m),
      null,
    );
  const available = hs.reduce((n, h) => n + h.availableSamples, 0);
  const contradicting = hs.reduce((n, h) => n + h.contradictingSamples, 0);
  return {
    maxTtlMs: maxOf(hs.map((h) => h.maxTtlMs)),
    availableSamples: available,
    // A client sits in one region and caches what that region's answers told it.
    contradictingSamples: contradicting,
    contradictingShare: available >= 2 ? contradicting / available : null,
    differingSamples: hs.reduce((n, h) => n + h.differingSamples, 0),
    catalogTtlMs: maxOf(hs.map((h) => h.catalogTtlMs)),
  };
}

function combineGates(
  results: RegionResult[],
  multi: boolean,
  split: string | null,
  missing: string[],
): GateResult[] {
  const revisions = [...new Set(results.flatMap((r) => r.analysis.gates.map((g) => g.revision)))].sort(
    byText,
  );
  return revisions.map((revision) => {
    const reasons: string[] = [];
    for (const r of results) {
      const g = r.analysis.gates.find((x) => x.revision === revision);
      if (!g) reasons.push(`${r.region}: not evaluated`);
      else if (!g.ready) reasons.push(...g.reasons.map((why) => (multi ? `${r.region}: ${why}` : why)));
    }
    if (missing.length > 0)
      reasons.push(
        `no recent result from ${plural(missing.length, 'region', 'regions')}: ${listIds(missing)}`,
      );
    if (split) reasons.push(`regions disagree: ${split}`);
    return { revision, ready: reasons.length === 0, reasons };
  });
}

function combineWindow(results: RegionResult[], multi: boolean): WindowProgress | null {
  const windows = results.flatMap((r) =>
    r.analysis.window ? [{ region: r.region, w: r.analysis.window }] : [],
  );
  const worst = windows.sort(
    (a, b) => WINDOW_RANK[a.w.status] - WINDOW_RANK[b.w.status] || byText(a.region, b.region),
  )[0];
  if (!worst) return null;
  return multi ? { ...worst.w, label: `${worst.region}: ${worst.w.label}` } : worst.w;
}

/**
 * The cross-region verdict from each region's own analysis. With one region the analysis is that region's,
 * plus the region fields. With several: the partitions are merged (each group names its regions), a
 * region's own divergence keeps its severity, and regions that disagree are `region-split`.
 */
export function combineRegions(input: CombineInput): BalancerAnalysis {
  validateCombine(input);
  const results = [...input.results].sort((a, b) => byText(a.region, b.region));
  const summaries = results.map(summarizeRegion);
  const have = new Set(results.map((r) => r.region));
  const missingRegions = [...new Set(input.expectedRegions ?? [])].filter((r) => !have.has(r)).sort(byText);
  const regionPartition = groupRegions(summaries);
  const prev = input.previous ?? null;
  const judged = summaries.filter((s) => s.status !== 'unknown').length;
  // Split needs two regions that each saw something; with fewer, the last settled answer stands.
  const alone = results.length === 1 && missingRegions.length === 0;
  const splitNow = judged >= 2 ? regionPartition.length > 1 : alone ? false : null;
  const settledSplit = splitNow ?? prev?.regionSplit ?? false;
  const multi = results.length > 1 || results.some((r) => r.region !== DEFAULT_REGION);

  const only = results.length === 1 ? results[0] : undefined;
  if (only && missingRegions.length === 0) return singleRegion(only, summaries, regionPartition, multi);

  const partition = mergePartitions(results);
  const split = splitNow === true ? describeRegionSplit(regionPartition, partition) : null;
  const { severity, state } = combinedState(results, summaries, splitNow);
  const { degraded, unavailableSamples, flapping } = combineUnavailable(results);
  const reasons = [
    ...new Set(results.flatMap((r) => (r.analysis.reasons ?? []).map((why) => `${r.region}: ${why}`))),
    ...(split ? [`regions disagree: ${split}`] : []),
  ];
  const gates = combineGates(results, multi, split, missingRegions);
  const window = combineWindow(results, multi);
  const rolling = window?.status === 'open' && state === 'non-uniform';
  const isDegraded = results.some((r) => r.analysis.degraded);
  const counts = combineCounts(results);
  const regionStatus = (s: string) => summaries.some((x) => x.displayStatus === s);
  const displayStatus = pickDisplayStatus({
    stuck: window?.status === 'stuck',
    rolling,
    'era-split': severity === 'era-split',
    drift: severity === 'drift',
    'region-split': severity === 'region-split',
    down: state === 'unknown' && summaries.every((s) => s.displayStatus === 'down'),
    'auth-gated': state === 'unknown' && regionStatus('auth-gated'),
    flapping: flapping.length > 0,
    degraded: isDegraded,
    uniform: state === 'uniform',
  });

  const snapshot: BalancerSnapshot = {
    version: results[0]?.analysis.snapshot.version ?? 1,
    balancerId: input.balancerId,
    at: input.at,
    state,
    severity,
    settledState: settledStateOf(results, prev),
    displayStatus,
    rolling,
    window: window
      ? { id: window.windowId, status: window.status, label: window.label, deadline: window.deadline }
      : null,
    nodes: results
      .flatMap((r) => r.analysis.snapshot.nodes.map((n) => ({ ...n, region: r.region })))
      .sort((a, b) => byText(a.nodeId, b.nodeId) || byText(a.region, b.region)),
    flapping: flapping.map((f) => f.nodeId),
    gates: gates.map((g) => ({ revision: g.revision, ready: g.ready, reasons: g.reasons })),
    stuckWindows: [...new Set(results.flatMap((r) => r.analysis.snapshot.stuckWindows))],
    cycle: (prev?.cycle ?? 0) + 1,
    regionSplit: settledSplit,
    regionPartition: splitNow === null ? (prev?.regionPartition ?? regionPartition) : regionPartition,
  };

  return {
    balancerId: input.balancerId,
    analyzedAt: input.at,
    status: state,
    severity,
    partition,
    degradedNodes: degraded,
    unavailableSamples,
    unplacedSamples: results.reduce((n, r) => n + r.analysis.unplacedSamples, 0),
    reasons,
    degraded: isDegraded,
    flapping,
    cacheHazard: combineHazard(results),
    gates,
    window,
    rolling,
    holdAlerts: rolling,
    displayStatus,
    counts,
    regions: summaries,
    regionPartition,
    regionSplit: splitNow === true,
    missingRegions,
    snapshot,
  };
}

/** One region and no region missing: its own analysis, its groups and nodes labelled with the region. */
function singleRegion(
  only: RegionResult,
  summaries: RegionSummary[],
  regionPartition: RegionGroup[],
  multi: boolean,
): BalancerAnalysis {
  const a = only.analysis;
  return {
    ...a,
    partition: a.partition.map((g) => ({ ...g, regions: [only.region] })),
    regions: summaries,
    regionPartition,
    regionSplit: false,
    missingRegions: [],
    snapshot: {
      ...a.snapshot,
      nodes: multi ? a.snapshot.nodes.map((n) => ({ ...n, region: only.region })) : a.snapshot.nodes,
      regionSplit: false,
      regionPartition,
    },
  };
}

/** The regions' unavailable nodes (each with its region), unavailable samples and flapping nodes, together. */
function combineUnavailable(results: readonly RegionResult[]) {
  const degraded = results
    .flatMap((r) => r.analysis.degradedNodes.map((d) => ({ ...d, region: r.region })))
    .sort((a, b) => byText(a.nodeId, b.nodeId) || byText(a.region, b.region));
  const unavailableSamples = results.flatMap((r) => r.analysis.unavailableSamples);
  const flapping = [
    ...results
      .flatMap((r) => r.analysis.flapping)
      .reduce(
        (m, f) => m.set(f.nodeId, Math.max(m.get(f.nodeId) ?? 0, f.changes)),
        new Map<string, number>(),
      ),
  ]
    .map(([nodeId, changes]) => ({ nodeId, changes }))
    .sort((a, b) => byText(a.nodeId, b.nodeId));
  return { degraded, unavailableSamples, flapping };
}

/** The regions' counts added up. */
function combineCounts(results: readonly RegionResult[]): BalancerAnalysis['counts'] {
  const sum = (f: (c: BalancerAnalysis['counts']) => number) =>
    results.reduce((n, r) => n + f(r.analysis.counts), 0);
  return {
    nodes: sum((c) => c.nodes),
    availableNodes: sum((c) => c.availableNodes),
    samples: sum((c) => c.samples),
    availableSamples: sum((c) => c.availableSamples),
  };
}

/** The worst severity within a region, else a region split; non-uniform when either holds. */
function combinedState(
  results: readonly RegionResult[],
  summaries: readonly RegionSummary[],
  splitNow: boolean | null,
): { severity: Severity | null; state: BalancerAnalysis['status'] } {
  const within = results
    .map((r) => r.analysis.severity)
    .filter((s): s is Severity => s !== null)
    .sort((a, b) => SEVERITY_RANK[a] - SEVERITY_RANK[b])[0];
  const severity: Severity | null = within ?? (splitNow === true ? 'region-split' : null);
  const anyNonUniform = results.some((r) => r.analysis.status === 'non-uniform');
  const state =
    anyNonUniform || splitNow === true
      ? 'non-uniform'
      : summaries.some((s) => s.status === 'uniform')
        ? 'uniform'
        : 'unknown';
  return { severity, state };
}

/**
 * The settled state over the regions: divergence inside a region is `balancer.diverged`; regions that
 * disagree are `balancer.region_split`, not a settled state. None settled keeps the previous one.
 */
function settledStateOf(
  results: readonly RegionResult[],
  prev: BalancerSnapshot | null,
): BalancerSnapshot['settledState'] {
  const settledWithin = results.map((r) => r.analysis.snapshot.settledState);
  if (settledWithin.includes('non-uniform')) return 'non-uniform';
  if (settledWithin.includes('uniform')) return 'uniform';
  return prev?.settledState ?? null;
}
