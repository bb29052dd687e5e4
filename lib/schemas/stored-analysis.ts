// The balancer analysis as the store keeps it: the analysis's own fields (lib/rollout/analysis.ts) with a
// version, `v`. Analyses stored before the version (v1) used other names (`state`, `isDegraded`, `degraded`
// for the nodes, `at`) and left some fields out; `upgradeStoredAnalysis` reads them into today's shape.
// Client-safe.
import { z } from 'zod';
import {
  AnalysisFields,
  BALANCER_STATES,
  CacheHazard,
  Counts,
  DISPLAY_STATUSES,
  PartitionGroup,
  RegionSummary,
  SEVERITIES,
  UnavailableNode,
  UnavailableSample,
  type BalancerAnalysis,
} from '@/lib/rollout/analysis';

export const ANALYSIS_VERSION = 2;

/** The stored analysis JSON: the analysis without its snapshot (a column of its own), versioned. */
export const StoredAnalysis = AnalysisFields.extend({ v: z.literal(ANALYSIS_VERSION) });
export type StoredAnalysis = z.output<typeof StoredAnalysis>;

/** The analysis JSON to store for a computed analysis. */
export function storedAnalysisOf(a: BalancerAnalysis): StoredAnalysis {
  const { snapshot: _snapshot, ...fields } = a;
  return { v: ANALYSIS_VERSION, ...fields };
}

/** The first stored shape, before `v`: the analysis's old field names, several fields optional. */
export const StoredAnalysisV1 = z.object({
  balancerId: z.string(),
  at: z.number(),
  state: z.enum(BALANCER_STATES),
  severity: z.enum(SEVERITIES).nullable(),
  partition: z.array(
    PartitionGroup.extend({
      toolNames: z.array(z.string()).nullable().optional(),
      catalogDiff: PartitionGroup.shape.catalogDiff.optional(),
    }),
  ),
  degraded: z.array(UnavailableNode.extend({ authGated: z.boolean().optional() })),
  unavailableSamples: z.array(UnavailableSample.extend({ authGated: z.boolean().optional() })),
  unplacedSamples: z.int().optional(),
  reasons: z.array(z.string()).optional(),
  isDegraded: z.boolean(),
  flapping: AnalysisFields.shape.flapping,
  cacheHazard: CacheHazard.extend({ catalogTtlMs: z.number().nullable().optional() }),
  gates: AnalysisFields.shape.gates,
  window: AnalysisFields.shape.window,
  rolling: z.boolean(),
  holdAlerts: z.boolean(),
  displayStatus: z.enum(DISPLAY_STATUSES),
  counts: Counts,
  regions: z
    .array(
      RegionSummary.omit({ analyzedAt: true, status: true, degraded: true }).extend({
        at: z.number(),
        state: z.enum(BALANCER_STATES),
        isDegraded: z.boolean(),
      }),
    )
    .optional(),
  regionPartition: AnalysisFields.shape.regionPartition.optional(),
  regionSplit: z.boolean().optional(),
  missingRegions: z.array(z.string()).optional(),
});
export type StoredAnalysisV1 = z.output<typeof StoredAnalysisV1>;

/** A v1 analysis in today's shape: the API's names, the fields it left out at their defaults. */
function upgradeV1(a: StoredAnalysisV1): AnalysisFields {
  return {
    balancerId: a.balancerId,
    status: a.state,
    severity: a.severity,
    displayStatus: a.displayStatus,
    degraded: a.isDegraded,
    analyzedAt: a.at,
    reasons: a.reasons ?? [],
    partition: a.partition.map((g) => ({
      ...g,
      toolNames: g.toolNames ?? null,
      catalogDiff: g.catalogDiff ?? null,
    })),
    degradedNodes: a.degraded.map((d) => ({ ...d, authGated: d.authGated ?? false })),
    unavailableSamples: a.unavailableSamples.map((s) => ({ ...s, authGated: s.authGated ?? false })),
    unplacedSamples: a.unplacedSamples ?? 0,
    flapping: a.flapping,
    cacheHazard: { ...a.cacheHazard, catalogTtlMs: a.cacheHazard.catalogTtlMs ?? null },
    gates: a.gates,
    rolling: a.rolling,
    holdAlerts: a.holdAlerts,
    window: a.window,
    counts: a.counts,
    regionSplit: a.regionSplit ?? false,
    regions: (a.regions ?? []).map(({ at, state, isDegraded, ...r }) => ({
      ...r,
      analyzedAt: at,
      status: state,
      degraded: isDegraded,
    })),
    regionPartition: a.regionPartition ?? [],
    missingRegions: a.missingRegions ?? [],
  };
}

/** The schema of a stored analysis JSON: today's when it carries `v`, else the first one. */
export function storedAnalysisSchemaOf(value: unknown): typeof StoredAnalysis | typeof StoredAnalysisV1 {
  return typeof value === 'object' && value !== null && 'v' in value ? StoredAnalysis : StoredAnalysisV1;
}

/** A parsed stored analysis of any version in today's shape, without `v`. */
export function upgradeStoredAnalysis(a: StoredAnalysis | StoredAnalysisV1): AnalysisFields {
  if ('v' in a) {
    const { v: _v, ...fields } = a;
    return fields;
  }
  return upgradeV1(a);
}
