// The balancer analysis, declared once as zod schemas: what lib/rollout computes, what the poller stores
// (lib/schemas/stored-analysis.ts adds the version) and, with `since`, what the API answers
// (lib/schemas/balancer-analysis.ts). Every type is the schema's output; the field names are the API's.
// Client-safe: no Node imports.
import { z } from 'zod';
import { ToolCatalog } from '@/lib/probe/catalog-schema';
import { SERVED_ERAS } from '@/lib/probe/types';

const EpochMs = z.int().min(0).meta({ description: 'epoch milliseconds' });

export const BALANCER_STATES = ['uniform', 'non-uniform', 'unknown'] as const;
export type BalancerState = (typeof BALANCER_STATES)[number];

/** `region-split`: every region is uniform but they disagree (one public URL, different answers by region). */
export const SEVERITIES = ['era-split', 'drift', 'region-split'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const WINDOW_STATUSES = ['scheduled', 'open', 'complete', 'stuck'] as const;
export type WindowStatus = (typeof WINDOW_STATUSES)[number];

/** One status for the UI; the tuple order is the precedence, highest first. */
export const DISPLAY_STATUSES = [
  'stuck',
  'rolling',
  'era-split',
  'drift',
  'region-split',
  'down',
  'auth-gated',
  'flapping',
  'degraded',
  'uniform',
  'unknown',
] as const;
export type DisplayStatus = (typeof DISPLAY_STATUSES)[number];

export const AvailableEra = z.enum(['modern', 'legacy']);
export type AvailableEra = z.output<typeof AvailableEra>;

/** The comparable part of a verdict. `supported` is normalised: distinct, newest first. */
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
export type Fingerprint = z.output<typeof Fingerprint>;

export const Counts = z.object({
  nodes: z.int(),
  availableNodes: z.int(),
  samples: z.int(),
  availableSamples: z.int(),
});
export type Counts = z.output<typeof Counts>;

export const CatalogDiff = z
  .object({
    adds: z.array(z.string()),
    lacks: z.array(z.string()),
    changed: z.array(z.string()),
  })
  .meta({ id: 'CatalogDiff' });
export type CatalogDiff = z.output<typeof CatalogDiff>;

/** Regions that saw the same set of fingerprints. */
export const RegionGroup = z.object({ keys: z.array(z.string()), regions: z.array(z.string()) });
export type RegionGroup = z.output<typeof RegionGroup>;

export const GateResult = z.object({
  revision: z.string(),
  ready: z.boolean(),
  reasons: z.array(z.string()),
});
export type GateResult = z.output<typeof GateResult>;
export const GateSnapshot = GateResult;
export type GateSnapshot = GateResult;

export const NodeSnapshot = z.object({
  nodeId: z.string(),
  /** The region that probed it, when the snapshot spans regions (the same node once per region). */
  region: z.string().optional(),
  available: z.boolean(),
  /** The unavailable reason, or null when available. */
  reason: z.string().nullable(),
  /** Current fingerprint when available; the last known one while unavailable (null if never seen). */
  fingerprintKey: z.string().nullable(),
  era: AvailableEra.nullable(),
  servedEras: z.enum(SERVED_ERAS).nullable(),
  /** The last catalog listed in full (kept across outages and cadence), for the next cycle to carry and diff. */
  catalog: ToolCatalog.nullable().optional(),
  /**
   * With no full catalog yet: the settled key of the last listing that failed, so the next try waits for the
   * cadence (or a changed verdict) instead of coming every cycle.
   */
  catalogFailedKey: z.string().optional(),
});
export type NodeSnapshot = z.output<typeof NodeSnapshot>;

export const WindowSnapshot = z.object({
  id: z.string(),
  status: z.enum(WINDOW_STATUSES),
  label: z.string(),
  deadline: z.number(),
});
export type WindowSnapshot = z.output<typeof WindowSnapshot>;

export const SNAPSHOT_VERSION = 1;

/** The persistable part of an analysis, enough to diff the next cycle. JSON-safe; arrays sorted. */
export const BalancerSnapshot = z.object({
  version: z.literal(SNAPSHOT_VERSION),
  balancerId: z.string(),
  at: z.number(),
  state: z.enum(BALANCER_STATES),
  severity: z.enum(SEVERITIES).nullable(),
  /** Last determined uniform/non-uniform state, carried across `unknown` cycles. */
  settledState: z.enum(['uniform', 'non-uniform']).nullable(),
  displayStatus: z.enum(DISPLAY_STATUSES),
  rolling: z.boolean(),
  window: WindowSnapshot.nullable(),
  nodes: z.array(NodeSnapshot),
  flapping: z.array(z.string()),
  gates: z.array(GateSnapshot),
  /** Windows already flagged stuck, oldest first, bounded. */
  stuckWindows: z.array(z.string()),
  /** Cycles analysed so far, this one included (the catalog cadence counts them). */
  cycle: z.int().optional(),
  /** Last determined region split (true) or agreement (false), carried across cycles that cannot tell. */
  regionSplit: z.boolean().nullable().optional(),
  /** The region groups behind `regionSplit`, for the events that report it. */
  regionPartition: z.array(RegionGroup).optional(),
});
export type BalancerSnapshot = z.output<typeof BalancerSnapshot>;

/** One fingerprint and who presented it this cycle. */
export const PartitionGroup = z
  .object({
    key: z.string(),
    fingerprint: Fingerprint,
    /** Nodes probed directly, sorted. */
    nodeIds: z.array(z.string()),
    sampleCount: z.int(),
    /** Distinct nodes that samples in this group were attributed to, sorted. */
    sampleNodeIds: z.array(z.string()),
    toolNames: z
      .array(z.string())
      .nullable()
      .meta({ description: "the group's tool names, sorted; null when its catalog was not listed" }),
    catalogDiff: CatalogDiff.nullable().meta({
      description: 'tools this group adds, lacks or has in another form against the largest group',
    }),
    regions: z
      .array(z.string())
      .optional()
      .meta({ description: 'the regions whose probes presented this fingerprint' }),
  })
  .meta({ id: 'PartitionGroup' });
export type PartitionGroup = z.output<typeof PartitionGroup>;

export const UnavailableNode = z.object({
  nodeId: z.string(),
  url: z.string(),
  reason: z.string(),
  anomaly: z.string().nullable(),
  authGated: z
    .boolean()
    .meta({ description: 'refused at the door (401/403 or no token): not down, its era cannot be judged' }),
  region: z.string().optional().meta({ description: 'the region whose probe found it unavailable' }),
});
export type UnavailableNode = z.output<typeof UnavailableNode>;

export const UnavailableSample = z.object({
  nodeId: z.string().nullable(),
  url: z.string(),
  reason: z.string(),
  authGated: z.boolean(),
});
export type UnavailableSample = z.output<typeof UnavailableSample>;

export const FlappingNode = z.object({
  nodeId: z.string(),
  /** Fingerprint changes inside the flap window. */
  changes: z.int(),
});
export type FlappingNode = z.output<typeof FlappingNode>;

export const CacheHazard = z.object({
  /** Largest ttlMs among this cycle's nodes and samples; how long a client may keep a stale era. */
  maxTtlMs: z.number().nullable(),
  /** Available samples this cycle (the denominator of `contradictingShare`). */
  availableSamples: z.int(),
  /** Available samples whose era or negotiated version contradicts what a client cached from the first one. */
  contradictingSamples: z.int(),
  /** contradictingSamples / availableSamples; null with fewer than 2 available samples. */
  contradictingShare: z.number().nullable(),
  /** Available samples whose fingerprint differs from the first one's at all (drift included). */
  differingSamples: z.int(),
  catalogTtlMs: z.number().nullable().meta({
    description: 'largest catalog ttlMs among nodes when their catalogs differ',
  }),
});
export type CacheHazard = z.output<typeof CacheHazard>;

export const WindowProgress = z.object({
  windowId: z.string(),
  status: z.enum(WINDOW_STATUSES),
  onTarget: z.int(),
  total: z.int(),
  unit: z.enum(['nodes', 'samples']),
  /** e.g. "6 of 10 nodes on 2026-07-28". */
  label: z.string(),
  /** e.g. "2026-07-28" or "modern · dual-era". */
  targetLabel: z.string(),
  deadline: EpochMs,
  /** Past the deadline and not uniform on target (latched for the window). */
  stuck: z.boolean(),
});
export type WindowProgress = z.output<typeof WindowProgress>;

/** One region's own verdict on the balancer, as the cross-region analysis saw it. */
export const RegionSummary = z
  .object({
    region: z.string(),
    analyzedAt: EpochMs,
    status: z.enum(BALANCER_STATES),
    severity: z.enum(SEVERITIES).nullable(),
    displayStatus: z.enum(DISPLAY_STATUSES),
    keys: z
      .array(z.string())
      .meta({ description: 'the fingerprint keys this region saw, largest group first' }),
    degraded: z.boolean(),
    counts: Counts,
  })
  .meta({ id: 'RegionVerdict' });
export type RegionSummary = z.output<typeof RegionSummary>;

/** The analysis of one balancer without its snapshot: what the store keeps and the API answers. */
export const AnalysisFields = z.object({
  balancerId: z.string(),
  status: z.enum(BALANCER_STATES),
  severity: z.enum(SEVERITIES).nullable().meta({ description: 'set only when status is non-uniform' }),
  displayStatus: z.enum(DISPLAY_STATUSES),
  degraded: z.boolean().meta({ description: 'some nodes or samples were unavailable this cycle' }),
  analyzedAt: EpochMs,
  reasons: z
    .array(z.string())
    .meta({ description: 'what differs between the groups when non-uniform, e.g. "catalog differs"' }),
  partition: z
    .array(PartitionGroup)
    .meta({ description: 'available nodes and samples grouped by fingerprint, largest group first' }),
  /** Unavailable nodes with their reasons: reported beside the status, never counted as divergence. */
  degradedNodes: z.array(UnavailableNode),
  unavailableSamples: z.array(UnavailableSample),
  unplacedSamples: z.int().meta({
    description: 'available samples that joined no group: assembled from answers of different nodes',
  }),
  flapping: z.array(FlappingNode),
  cacheHazard: CacheHazard,
  gates: z
    .array(GateResult)
    .meta({ description: 'the gate of each revision the cycle judged (see GET /balancers/{id}/gate)' }),
  /** Non-uniform inside an open rollout window: expected, shown as progress. */
  rolling: z.boolean(),
  holdAlerts: z.boolean().meta({ description: 'rolling: divergence alerts are held, events still recorded' }),
  window: WindowProgress.nullable(),
  counts: Counts,
  regionSplit: z.boolean().meta({
    description:
      'the same public URL gives different fingerprints from different regions (severity region-split when every region is uniform)',
  }),
  regions: z
    .array(RegionSummary)
    .meta({ description: 'each region’s own verdict, by region name; empty before the first cycle' }),
  regionPartition: z.array(RegionGroup).meta({
    description:
      'regions grouped by the fingerprint keys each saw, largest group first: one group when the regions agree',
  }),
  missingRegions: z
    .array(z.string())
    .meta({ description: 'regions the balancer must be probed from that have no recent result' }),
});
export type AnalysisFields = z.output<typeof AnalysisFields>;

/** The analysis as lib/rollout computes it: the fields above and the snapshot the next cycle diffs. */
export const BalancerAnalysis = AnalysisFields.extend({ snapshot: BalancerSnapshot });
export type BalancerAnalysis = z.output<typeof BalancerAnalysis>;
