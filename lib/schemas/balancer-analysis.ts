// The current analysis of one balancer in the API's vocabulary: what a script needs in one call to decide
// whether the fleet behind a public URL agrees, and what the dashboard draws. The store's edge maps the stored
// analysis (lib/schemas/snapshot.ts) into it once (`analysisViewOf`); nothing after that renames a field.
// Client-safe: no database imports.
import { z } from 'zod';
import { BALANCER_STATES, DISPLAY_STATUSES, SEVERITIES, WINDOW_STATUSES } from '@/lib/rollout/types';
import { Timestamp } from './common';
import { CatalogDiff, Counts, Fingerprint, RegionGroup, type StoredAnalysisJson } from './snapshot';

/** One region's own verdict on the balancer. */
export const RegionVerdict = z
  .object({
    region: z.string(),
    analyzedAt: Timestamp,
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

export const PartitionGroupView = z
  .object({
    key: z.string(),
    fingerprint: Fingerprint,
    nodeIds: z.array(z.string()),
    sampleCount: z.int(),
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

export const DegradedNodeView = z.object({
  nodeId: z.string(),
  url: z.string(),
  reason: z.string(),
  anomaly: z.string().nullable(),
  authGated: z
    .boolean()
    .meta({ description: 'refused at the door (401/403 or no token): not down, its era cannot be judged' }),
  region: z.string().optional().meta({ description: 'the region whose probe found it unavailable' }),
});

export const GateEntryView = z.object({
  revision: z.string(),
  ready: z.boolean(),
  reasons: z.array(z.string()),
});

export const BalancerAnalysisView = z
  .object({
    status: z.enum(BALANCER_STATES),
    severity: z.enum(SEVERITIES).nullable().meta({ description: 'set only when status is non-uniform' }),
    displayStatus: z.enum(DISPLAY_STATUSES),
    degraded: z.boolean().meta({ description: 'some nodes or samples were unavailable this cycle' }),
    analyzedAt: Timestamp,
    since: Timestamp.nullable().meta({
      description:
        'when the current status began: the last balancer.diverged (non-uniform) or balancer.converged (uniform) event; null when unknown',
    }),
    reasons: z
      .array(z.string())
      .meta({ description: 'what differs between the groups when non-uniform, e.g. "catalog differs"' }),
    partition: z
      .array(PartitionGroupView)
      .meta({ description: 'available nodes and samples grouped by fingerprint, largest group first' }),
    degradedNodes: z.array(DegradedNodeView),
    unavailableSamples: z.array(
      z.object({
        nodeId: z.string().nullable(),
        url: z.string(),
        reason: z.string(),
        authGated: z.boolean(),
      }),
    ),
    unplacedSamples: z.int().meta({
      description: 'available samples that joined no group: assembled from answers of different nodes',
    }),
    flapping: z.array(z.object({ nodeId: z.string(), changes: z.int() })),
    cacheHazard: z.object({
      maxTtlMs: z.number().nullable(),
      availableSamples: z.int(),
      contradictingSamples: z.int(),
      contradictingShare: z.number().nullable(),
      differingSamples: z.int(),
      catalogTtlMs: z.number().nullable().meta({
        description: 'largest catalog ttlMs among nodes when their catalogs differ',
      }),
    }),
    gates: z
      .array(GateEntryView)
      .meta({ description: 'the gate of each revision the cycle judged (see GET /balancers/{id}/gate)' }),
    rolling: z.boolean(),
    holdAlerts: z
      .boolean()
      .meta({ description: 'rolling: divergence alerts are held, events still recorded' }),
    window: z
      .object({
        windowId: z.string(),
        status: z.enum(WINDOW_STATUSES),
        onTarget: z.int(),
        total: z.int(),
        unit: z.enum(['nodes', 'samples']),
        label: z.string(),
        targetLabel: z.string(),
        deadline: Timestamp,
        stuck: z.boolean(),
      })
      .nullable(),
    counts: Counts,
    regionSplit: z.boolean().meta({
      description:
        'the same public URL gives different fingerprints from different regions (severity region-split when every region is uniform)',
    }),
    regions: z
      .array(RegionVerdict)
      .meta({ description: 'each region’s own verdict, by region name; empty before the first cycle' }),
    regionPartition: z.array(RegionGroup).meta({
      description:
        'regions grouped by the fingerprint keys each saw, largest group first: one group when the regions agree',
    }),
    missingRegions: z
      .array(z.string())
      .meta({ description: 'regions the balancer must be probed from that have no recent result' }),
  })
  .meta({ id: 'BalancerAnalysis' });
export type BalancerAnalysisView = z.output<typeof BalancerAnalysisView>;

/** The stored analysis in the API's vocabulary: the one place a stored field name becomes an API one. */
export function analysisViewOf(a: StoredAnalysisJson, since: number | null): BalancerAnalysisView {
  return {
    status: a.state,
    severity: a.severity,
    displayStatus: a.displayStatus,
    degraded: a.isDegraded,
    analyzedAt: a.at,
    since,
    reasons: a.reasons ?? [],
    partition: a.partition.map((g) => ({
      key: g.key,
      fingerprint: g.fingerprint,
      nodeIds: g.nodeIds,
      sampleCount: g.sampleCount,
      sampleNodeIds: g.sampleNodeIds,
      toolNames: g.toolNames ?? null,
      catalogDiff: g.catalogDiff ?? null,
      ...(g.regions ? { regions: g.regions } : {}),
    })),
    degradedNodes: a.degraded.map((d) => ({
      nodeId: d.nodeId,
      url: d.url,
      reason: d.reason,
      anomaly: d.anomaly,
      authGated: d.authGated ?? false,
      ...(d.region !== undefined ? { region: d.region } : {}),
    })),
    unavailableSamples: a.unavailableSamples.map((s) => ({
      nodeId: s.nodeId,
      url: s.url,
      reason: s.reason,
      authGated: s.authGated ?? false,
    })),
    unplacedSamples: a.unplacedSamples ?? 0,
    flapping: a.flapping,
    cacheHazard: { ...a.cacheHazard, catalogTtlMs: a.cacheHazard.catalogTtlMs ?? null },
    gates: a.gates,
    rolling: a.rolling,
    holdAlerts: a.holdAlerts,
    window: a.window,
    counts: a.counts,
    regionSplit: a.regionSplit ?? false,
    regions: (a.regions ?? []).map((r) => ({
      region: r.region,
      analyzedAt: r.at,
      status: r.state,
      severity: r.severity,
      displayStatus: r.displayStatus,
      keys: r.keys,
      degraded: r.isDegraded,
      counts: r.counts,
    })),
    regionPartition: a.regionPartition ?? [],
    missingRegions: a.missingRegions ?? [],
  };
}
