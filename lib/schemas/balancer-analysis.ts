// The current analysis of one balancer as the API answers it: what a script needs in one call to decide
// whether the fleet behind a public URL agrees, and what the dashboard draws. It is the analysis lib/rollout
// computes and the store keeps (lib/rollout/analysis.ts), with the same field names, plus `since`; a response
// counts a group's nodes instead of listing them, and lists at most DEGRADED_NODES_SHOWN unavailable nodes,
// so a balancer of thousands of nodes answers in a few kilobytes (the node rows are paged: node-query.ts).
// Client-safe: no database imports.
import { z } from 'zod';
import { AnalysisFields, PartitionGroup } from '@/lib/rollout/analysis';
import { Timestamp } from './common';

const since = Timestamp.nullable().meta({
  description:
    'when the current status began: the last balancer.diverged (non-uniform) or balancer.converged (uniform) event; null when unknown',
});

/**
 * The analysis as the store keeps it, with `since`: every group's node ids in full. For the server's own use
 * (alerts, progress, the gate); a response carries BalancerAnalysisView.
 */
export const StoredAnalysisView = AnalysisFields.omit({ balancerId: true }).extend({ since });
export type StoredAnalysisView = z.output<typeof StoredAnalysisView>;

/** A fingerprint group as a response carries it: how many nodes present it, not which. */
export const PartitionGroupView = PartitionGroup.omit({ nodeIds: true, sampleNodeIds: true })
  .extend({
    nodeCount: z.int().min(0).meta({
      description: 'nodes probed directly that present it (the matrix lists them: ?group=KEY)',
    }),
    sampleNodeCount: z.int().min(0).meta({ description: 'distinct nodes its samples were attributed to' }),
  })
  .meta({ id: 'PartitionGroupSummary' });
export type PartitionGroupView = z.output<typeof PartitionGroupView>;

/** At most this many unavailable nodes are listed in a response; `degradedNodeCount` counts them all. */
export const DEGRADED_NODES_SHOWN = 50;

export const BalancerAnalysisView = StoredAnalysisView.omit({ partition: true, degradedNodes: true })
  .extend({
    partition: z.array(PartitionGroupView).meta({
      description: 'available nodes and samples grouped by fingerprint, largest group first',
    }),
    degradedNodes: AnalysisFields.shape.degradedNodes.meta({
      description: `unavailable nodes with their reasons, at most ${DEGRADED_NODES_SHOWN} (by URL); never counted as divergence`,
    }),
    degradedNodeCount: z
      .int()
      .min(0)
      .meta({ description: 'every unavailable node (degradedNodes is capped)' }),
  })
  .meta({ id: 'BalancerAnalysis' });
export type BalancerAnalysisView = z.output<typeof BalancerAnalysisView>;

/** A stored or computed analysis with when its status began (node ids in full: see analysisResponseOf). */
export function analysisViewOf(a: AnalysisFields, since: number | null): StoredAnalysisView {
  const { balancerId: _balancerId, ...fields } = a;
  return { ...fields, since };
}

/** A group as a response carries it: its counts instead of its node ids. */
export function partitionGroupView(g: PartitionGroup): PartitionGroupView {
  const { nodeIds, sampleNodeIds, ...rest } = g;
  return { ...rest, nodeCount: nodeIds.length, sampleNodeCount: sampleNodeIds.length };
}

/** The analysis as a response carries it: groups counted, unavailable nodes capped. */
export function analysisResponseOf(a: StoredAnalysisView): BalancerAnalysisView {
  const degraded = [...a.degradedNodes].sort((x, y) =>
    x.url < y.url ? -1 : x.url > y.url ? 1 : x.nodeId < y.nodeId ? -1 : x.nodeId > y.nodeId ? 1 : 0,
  );
  return {
    ...a,
    partition: a.partition.map(partitionGroupView),
    degradedNodes: degraded.slice(0, DEGRADED_NODES_SHOWN),
    degradedNodeCount: a.degradedNodes.length,
  };
}
