// Balancers' progress toward one served set (lib/rollout/progress.ts), from what is already stored: the latest
// analysis, the open rollout window and the fingerprint spans of the nodes over the last hour. No new writes.
import { and, eq, gt, inArray, isNull, or } from 'drizzle-orm';
import { computeProgress, HOUR_MS, type BalancerProgress, type ProgressSpan } from '@/lib/rollout/progress';
import { describeTarget } from '@/lib/rollout/window';
import type { StoredAnalysisView } from '@/lib/schemas/balancer-analysis';
import type { RolloutWindow } from '@/lib/schemas/rollout';
import type { Store } from '../index';

export interface ProgressFacts {
  balancerId: string;
  intervalMs: number;
  analysis: Pick<StoredAnalysisView, 'partition'> | null;
  window: Pick<RolloutWindow, 'target' | 'openedAt'> | null;
}

/** The last hour's fingerprint spans of the nodes of these balancers, by balancer. */
async function readSpans(
  store: Store,
  balancerIds: string[],
  now: number,
): Promise<Map<string, ProgressSpan[]>> {
  const out = new Map<string, ProgressSpan[]>();
  if (balancerIds.length === 0) return out;
  const { subjectHistory: h, nodes } = store.t;
  const rows = await store.read((db) =>
    db
      .select({
        balancerId: nodes.balancerId,
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
      .innerJoin(nodes, eq(nodes.id, h.nodeId))
      .where(
        and(inArray(nodes.balancerId, balancerIds), or(isNull(h.endedAt), gt(h.endedAt, now - HOUR_MS))),
      ),
  );
  const regions = new Map<string, Set<string>>();
  for (const r of rows) regions.set(r.balancerId, (regions.get(r.balancerId) ?? new Set()).add(r.region));
  for (const r of rows) {
    const list = out.get(r.balancerId) ?? [];
    list.push({
      // Across regions a node has spans per region: each region's view of it counts as its own history.
      nodeId: (regions.get(r.balancerId)?.size ?? 1) > 1 ? `${r.region} ${r.nodeId ?? ''}` : (r.nodeId ?? ''),
      fingerprintKey: r.fingerprintKey,
      clientEra: r.clientEra,
      negotiatedVersion: r.negotiatedVersion,
      servedEras: r.servedEras,
      startedAt: r.startedAt,
      endedAt: r.endedAt,
    });
    out.set(r.balancerId, list);
  }
  return out;
}

function progressOf(facts: ProgressFacts, spans: ProgressSpan[], now: number): BalancerProgress | null {
  if (!facts.analysis) return null;
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

/** Progress of one balancer at `now`; null before its first analysis. */
export async function readBalancerProgress(
  store: Store,
  facts: ProgressFacts,
  now: number,
): Promise<BalancerProgress | null> {
  if (!facts.analysis) return null;
  const spans = await readSpans(store, [facts.balancerId], now);
  return progressOf(facts, spans.get(facts.balancerId) ?? [], now);
}

/**
 * Progress of each of these balancers (their analyses given), in three reads whatever their number: their
 * intervals, their open windows, their nodes' spans. Keyed by balancer id; absent before a first analysis.
 */
export async function readFleetProgress(
  store: Store,
  balancers: ReadonlyArray<{ id: string; analysis?: Pick<StoredAnalysisView, 'partition'> | null }>,
  now: number,
): Promise<Map<string, BalancerProgress>> {
  const out = new Map<string, BalancerProgress>();
  const analysed = balancers.filter((b) => b.analysis);
  const ids = analysed.map((b) => b.id);
  if (ids.length === 0) return out;
  const { balancers: bt, rolloutWindows: w } = store.t;
  const intervals = new Map(
    (
      await store.read((db) =>
        db.select({ id: bt.id, intervalMs: bt.intervalMs }).from(bt).where(inArray(bt.id, ids)),
      )
    ).map((r) => [r.id, r.intervalMs]),
  );
  const windows = new Map(
    (
      await store.read((db) =>
        db
          .select({ balancerId: w.balancerId, target: w.target, openedAt: w.openedAt })
          .from(w)
          .where(and(inArray(w.balancerId, ids), isNull(w.closedAt))),
      )
    ).map((r) => [r.balancerId, r]),
  );
  const spans = await readSpans(store, ids, now);
  for (const b of analysed) {
    const p = progressOf(
      {
        balancerId: b.id,
        intervalMs: intervals.get(b.id) ?? 60_000,
        analysis: b.analysis ?? null,
        window: windows.get(b.id) ?? null,
      },
      spans.get(b.id) ?? [],
      now,
    );
    if (p) out.set(b.id, p);
  }
  return out;
}
