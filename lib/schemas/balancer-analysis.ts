// The current analysis of one balancer as the single view shows it: what a script needs in one call to decide
// whether the fleet behind a public URL agrees. Client-safe: no database imports.
import { z } from 'zod';
import { SERVED_ERAS } from '@/lib/probe/types';
import { BALANCER_STATES, DISPLAY_STATUSES, SEVERITIES, WINDOW_STATUSES } from '@/lib/rollout/types';
import { Timestamp } from './common';

const Fingerprint = z.object({
  era: z.enum(['modern', 'legacy']),
  negotiatedVersion: z.string().nullable(),
  supported: z.array(z.string()),
  servedEras: z.enum(SERVED_ERAS),
  serverName: z.string().nullable(),
  serverVersion: z.string().nullable(),
});

const Counts = z.object({
  nodes: z.int(),
  availableNodes: z.int(),
  samples: z.int(),
  availableSamples: z.int(),
});

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
    partition: z
      .array(
        z.object({
          key: z.string(),
          fingerprint: Fingerprint,
          nodeIds: z.array(z.string()),
          sampleCount: z.int(),
          sampleNodeIds: z.array(z.string()),
          regions: z
            .array(z.string())
            .optional()
            .meta({ description: 'the regions whose probes presented this fingerprint' }),
        }),
      )
      .meta({ description: 'available nodes and samples grouped by fingerprint, largest group first' }),
    degradedNodes: z.array(
      z.object({
        nodeId: z.string(),
        url: z.string(),
        reason: z.string(),
        anomaly: z.string().nullable(),
        region: z.string().optional().meta({ description: 'the region whose probe found it unavailable' }),
      }),
    ),
    unavailableSamples: z.array(
      z.object({ nodeId: z.string().nullable(), url: z.string(), reason: z.string() }),
    ),
    flapping: z.array(z.object({ nodeId: z.string(), changes: z.int() })),
    cacheHazard: z.object({
      maxTtlMs: z.number().nullable(),
      availableSamples: z.int(),
      contradictingSamples: z.int(),
      contradictingShare: z.number().nullable(),
      differingSamples: z.int(),
    }),
    rolling: z.boolean(),
    window: z
      .object({
        windowId: z.string(),
        status: z.enum(WINDOW_STATUSES),
        onTarget: z.int(),
        total: z.int(),
        label: z.string(),
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
    regionPartition: z.array(z.object({ keys: z.array(z.string()), regions: z.array(z.string()) })).meta({
      description:
        'regions grouped by the fingerprint keys each saw, largest group first: one group when the regions agree',
    }),
    missingRegions: z
      .array(z.string())
      .meta({ description: 'regions the balancer must be probed from that have no recent result' }),
  })
  .meta({ id: 'BalancerAnalysis' });
export type BalancerAnalysisView = z.output<typeof BalancerAnalysisView>;
