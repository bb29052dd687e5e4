// The dashboard's read model: one query for the whole fleet overview and one for a balancer's
// headline, both from the analysis the poller stores beside each balancer. The public REST API stays the
// contract for integrations; this serves exactly what the screens draw, so 1,000 balancers cost one query.
import { and, asc, eq, inArray, max } from 'drizzle-orm';
import type { Store } from '@/db/index';
import { getBalancer } from '@/db/queries/balancers';
import { listNodes } from '@/db/queries/nodes';
import { getOpenWindow } from '@/db/queries/rollouts';
import { balancerStates, balancers, events, nodes } from '@/db/schema';
import type { BalancerDetail, NodeSummary, StoredAnalysis } from '@/lib/query/types';
import { redactAuth, redactHeaders } from '@/lib/schemas/balancer-view';
import { sortFleet, toFleetRow, type FleetRow } from '@/lib/ui/fleet';
import { nodeLabel } from '@/lib/ui/node-label';

function asAnalysis(value: unknown): StoredAnalysis | null {
  // Written by our own poller as JSON of StoredAnalysis; anything else (an older shape) is treated as absent.
  if (typeof value !== 'object' || value === null) return null;
  const a = value as Partial<StoredAnalysis>;
  return typeof a.displayStatus === 'string' && Array.isArray(a.partition) && typeof a.at === 'number'
    ? (a as StoredAnalysis)
    : null;
}

/** Every balancer as an overview row, non-uniform first. */
export function readFleetRows(store: Store): FleetRow[] {
  const rows = store.db
    .select({
      id: balancers.id,
      name: balancers.name,
      publicUrl: balancers.publicUrl,
      analysis: balancerStates.analysis,
    })
    .from(balancers)
    .leftJoin(balancerStates, eq(balancerStates.balancerId, balancers.id))
    .orderBy(asc(balancers.name))
    .all();
  const fleet = rows.map((r) => toFleetRow({ ...r, analysis: asAnalysis(r.analysis) }));
  const diverging = fleet.filter((r) => r.nonUniform).map((r) => r.id);
  if (diverging.length > 0) {
    const since = new Map(
      store.db
        .select({ balancerId: events.balancerId, at: max(events.at) })
        .from(events)
        .where(and(eq(events.type, 'balancer.diverged'), inArray(events.balancerId, diverging)))
        .groupBy(events.balancerId)
        .all()
        .map((e) => [e.balancerId, e.at]),
    );
    for (const r of fleet) if (r.nonUniform) r.nonUniformSince = since.get(r.id) ?? null;
  }
  return sortFleet(fleet);
}

/** One balancer's settings (header secrets redacted), latest analysis and open rollout window; NotFound if none. */
export function readBalancerDetail(store: Store, id: string): BalancerDetail {
  const b = getBalancer(store, id);
  const state = store.db
    .select({ analysis: balancerStates.analysis })
    .from(balancerStates)
    .where(eq(balancerStates.balancerId, id))
    .get();
  return {
    ...b,
    headers: redactHeaders(b.headers),
    auth: redactAuth(b.auth),
    analysis: asAnalysis(state?.analysis),
    window: getOpenWindow(store, id),
  };
}

/** A balancer's nodes for the matrix: identity and the verdict's headline, without the evidence. */
export function readNodeSummaries(store: Store, balancerId: string): NodeSummary[] {
  return listNodes(store, balancerId).map((n) => ({
    id: n.id,
    balancerId: n.balancerId,
    origin: n.origin,
    url: n.url,
    address: n.address,
    servedBy: n.servedBy,
    state: n.state
      ? {
          clientEra: n.state.clientEra,
          reason: n.state.reason,
          probedAt: n.state.probedAt,
          verdict: {
            verdict: n.state.verdict.verdict,
            reason: n.state.verdict.reason,
            negotiatedVersion: n.state.verdict.negotiatedVersion,
            supported: n.state.verdict.supported,
            servedEras: n.state.verdict.servedEras,
            durationMs: n.state.verdict.durationMs,
          },
        }
      : null,
  }));
}

/** How operators know each of these nodes (URL, address or attribution), for lists that carry node ids. */
export function readNodeLabels(store: Store, ids: readonly string[]): Record<string, string> {
  if (ids.length === 0) return {};
  const rows = store.db
    .select({
      id: nodes.id,
      origin: nodes.origin,
      url: nodes.url,
      servedBy: nodes.servedBy,
      address: nodes.address,
    })
    .from(nodes)
    .where(inArray(nodes.id, [...ids]))
    .all();
  return Object.fromEntries(rows.map((r) => [r.id, nodeLabel(r)]));
}
