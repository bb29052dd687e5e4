// The balancer analysis as lib/rollout computes it and the poller stores it, and the snapshot the next cycle
// diffs against, as zod schemas checked against lib/rollout/types.ts at compile time. These are the store's
// shapes: readers parse stored JSON with them once, at the store's edge (lib/schemas/stored.ts), and the API
// and the screens see the analysis in the API's vocabulary (lib/schemas/balancer-analysis.ts). Client-safe.
import { z } from 'zod';
import { SERVED_ERAS } from '@/lib/probe/types';
import {
  BALANCER_STATES,
  DISPLAY_STATUSES,
  SEVERITIES,
  SNAPSHOT_VERSION,
  WINDOW_STATUSES,
  type BalancerAnalysis as BalancerAnalysisType,
  type BalancerSnapshot as BalancerSnapshotType,
} from '@/lib/rollout/types';
import { ToolCatalog, assertSame, type Same } from './verdict';

export const AvailableEra = z.enum(['modern', 'legacy']);

export const Fingerprint = z
  .object({
    era: AvailableEra,
    negotiatedVersion: z.string().nullable(),
    supported: z.array(z.string()),
    servedEras: z.enum(SERVED_ERAS),
    serverName: z.string().nullable(),
    serverVersion: z.string().nullable(),
    catalogDigest: z
      .string()
      .nullable()
      .optional()
      .meta({ description: "the tool catalog's digest; null when not listed" }),
  })
  .meta({ id: 'Fingerprint' });

export const Counts = z.object({
  nodes: z.int(),
  availableNodes: z.int(),
  samples: z.int(),
  availableSamples: z.int(),
});

export const CatalogDiff = z
  .object({
    adds: z.array(z.string()),
    lacks: z.array(z.string()),
    changed: z.array(z.string()),
  })
  .meta({ id: 'CatalogDiff' });

export const RegionGroup = z.object({ keys: z.array(z.string()), regions: z.array(z.string()) });

const GateEntry = z.object({ revision: z.string(), ready: z.boolean(), reasons: z.array(z.string()) });

const NodeSnapshot = z.object({
  nodeId: z.string(),
  region: z.string().optional(),
  available: z.boolean(),
  reason: z.string().nullable(),
  fingerprintKey: z.string().nullable(),
  era: AvailableEra.nullable(),
  servedEras: z.enum(SERVED_ERAS).nullable(),
  catalog: ToolCatalog.nullable().optional(),
  catalogFailedKey: z.string().optional(),
});

export const BalancerSnapshot = z.object({
  version: z.literal(SNAPSHOT_VERSION),
  balancerId: z.string(),
  at: z.number(),
  state: z.enum(BALANCER_STATES),
  severity: z.enum(SEVERITIES).nullable(),
  settledState: z.enum(['uniform', 'non-uniform']).nullable(),
  displayStatus: z.enum(DISPLAY_STATUSES),
  rolling: z.boolean(),
  window: z
    .object({ id: z.string(), status: z.enum(WINDOW_STATUSES), label: z.string(), deadline: z.number() })
    .nullable(),
  nodes: z.array(NodeSnapshot),
  flapping: z.array(z.string()),
  gates: z.array(GateEntry),
  stuckWindows: z.array(z.string()),
  cycle: z.int().optional(),
  regionSplit: z.boolean().nullable().optional(),
  regionPartition: z.array(RegionGroup).optional(),
});

const PartitionGroup = z.object({
  key: z.string(),
  fingerprint: Fingerprint,
  nodeIds: z.array(z.string()),
  sampleCount: z.int(),
  sampleNodeIds: z.array(z.string()),
  toolNames: z.array(z.string()).nullable().optional(),
  catalogDiff: CatalogDiff.nullable().optional(),
  regions: z.array(z.string()).optional(),
});

const UnavailableNode = z.object({
  nodeId: z.string(),
  url: z.string(),
  reason: z.string(),
  anomaly: z.string().nullable(),
  authGated: z.boolean().optional(),
  region: z.string().optional(),
});

const UnavailableSample = z.object({
  nodeId: z.string().nullable(),
  url: z.string(),
  reason: z.string(),
  authGated: z.boolean().optional(),
});

const CacheHazard = z.object({
  maxTtlMs: z.number().nullable(),
  availableSamples: z.int(),
  contradictingSamples: z.int(),
  contradictingShare: z.number().nullable(),
  differingSamples: z.int(),
  catalogTtlMs: z.number().nullable().optional(),
});

const WindowProgress = z.object({
  windowId: z.string(),
  status: z.enum(WINDOW_STATUSES),
  onTarget: z.int(),
  total: z.int(),
  unit: z.enum(['nodes', 'samples']),
  label: z.string(),
  targetLabel: z.string(),
  deadline: z.number(),
  stuck: z.boolean(),
});

const RegionSummary = z.object({
  region: z.string(),
  at: z.number(),
  state: z.enum(BALANCER_STATES),
  severity: z.enum(SEVERITIES).nullable(),
  displayStatus: z.enum(DISPLAY_STATUSES),
  keys: z.array(z.string()),
  isDegraded: z.boolean(),
  counts: Counts,
});

/** The analysis as lib/rollout computes it, snapshot included. */
export const ComputedAnalysis = z.object({
  balancerId: z.string(),
  at: z.number(),
  state: z.enum(BALANCER_STATES),
  severity: z.enum(SEVERITIES).nullable(),
  partition: z.array(PartitionGroup),
  degraded: z.array(UnavailableNode),
  unavailableSamples: z.array(UnavailableSample),
  unplacedSamples: z.int().optional(),
  reasons: z.array(z.string()).optional(),
  isDegraded: z.boolean(),
  flapping: z.array(z.object({ nodeId: z.string(), changes: z.int() })),
  cacheHazard: CacheHazard,
  gates: z.array(GateEntry),
  window: WindowProgress.nullable(),
  rolling: z.boolean(),
  holdAlerts: z.boolean(),
  displayStatus: z.enum(DISPLAY_STATUSES),
  counts: Counts,
  regions: z.array(RegionSummary).optional(),
  regionPartition: z.array(RegionGroup).optional(),
  regionSplit: z.boolean().optional(),
  missingRegions: z.array(z.string()).optional(),
  snapshot: BalancerSnapshot,
});

/** The analysis JSON the poller stores beside the balancer: all of it but the snapshot (a column of its own). */
export const StoredAnalysisJson = ComputedAnalysis.omit({ snapshot: true });
export type StoredAnalysisJson = z.output<typeof StoredAnalysisJson>;

assertSame<Same<z.output<typeof BalancerSnapshot>, BalancerSnapshotType>>();
assertSame<Same<z.output<typeof ComputedAnalysis>, BalancerAnalysisType>>();
