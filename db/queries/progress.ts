// A balancer's progress toward one served set (lib/rollout/progress.ts), from what is already stored: its
// latest analysis, its open rollout window and the fingerprint spans of its nodes over the last hour.
import { and, eq, gt, inArray, isNull, or } from 'drizzle-orm';
import { computeProgress, HOUR_MS, type BalancerProgress, type ProgressSpan } from '@/lib/rollout/progress';
import { describeTarget } from '@/lib/rollout/window';
import type { BalancerAnalysisView } from '@/lib/schemas/balancer-analysis';
import type { RolloutWindow } from '@/lib/schemas/rollout';
import type { Store } from '../index';

export interface ProgressFacts {
  balancerId: string;
  intervalMs: number;
  analysis: Pick<BalancerAnalysisView, 'partition'> | null;
  window: Pick<RolloutWindow, 'target' | 'openedAt'> | null;
}

/** Progress of one balancer at `now`; null before its first analysis. */
export async function readBalancerProgress(
  store: Store,
  facts: ProgressFacts,
  now: number,
): Promise<BalancerProgress | null> {
  if (!facts.analysis) return null;
  const { subjectHistory: h, nodes } = store.t;
  const rows = await store.read((db) =>
    db
      .select({
        nodeId: h.nodeId,
        region: h.region,
        fingerprintKey: h.fingerprintKey,
        clientEra: h.clientEra,
        negotiatedVersion: h.negotiatedVersion,
        servedEras: h.servedEras,
        startedAt: h.startedAt,
        endedAt: h.endedAt,
      })
      .from(h)
      .where(
        and(
          inArray(
            h.nodeId,
            db.select({ id: nodes.id }).from(nodes).where(eq(nodes.balancerId, facts.balancerId)),
          ),
          or(isNull(h.endedAt), gt(h.endedAt, now - HOUR_MS)),
        ),
      ),
  );
  const regions = new Set(rows.map((r) => r.region));
  const spans: ProgressSpan[] = rows.map((r) => ({
    // Across regions a node has spans per region: each region's view of it counts as its own history.
    nodeId: regions.size > 1 ? `${r.region} ${r.nodeId ?? ''}` : (r.nodeId ?? ''),
    fingerprintKey: r.fingerprintKey,
    clientEra: r.clientEra,
    negotiatedVersion: r.negotiatedVersion,
    servedEras: r.servedEras,
    startedAt: r.startedAt,
    endedAt: r.endedAt,
  }));
  return computeProgress({
    now,
    intervalMs: facts.intervalMs,
    partition: facts.analysis.partition,
    window: facts.window
      ? {
          target: facts.window.target,
          targetLabel: describeTarget(facts.window.target),
          openedAt: facts.window.openedAt,
        }
      : null,
    spans,
  });
}
