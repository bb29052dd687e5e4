// The dashboard's reads: one query for the whole fleet and one for a balancer's headline, both from the
// analysis the poller stores beside each balancer. Data only: the screens' shaping is in lib/api/read-model.ts.
import { and, asc, eq, inArray, max } from 'drizzle-orm';
import type { Store } from '@/db/index';
import { getBalancer, readBalancerAnalysis } from '@/db/queries/balancers';
import { listNodes, nodeFactsOf } from '@/db/queries/nodes';
import { readBalancerProgress } from '@/db/queries/progress';
import { getOpenWindow } from '@/db/queries/rollouts';
import type { NodeIdentity, NodeState, NodeWithState } from '@/lib/schemas/balancer-view';
import {
  pageNodeRows,
  type NodeFacts,
  type NodeListQuery,
  type NodePage,
  type NodeRow,
} from '@/lib/schemas/node-query';
import { analysisResponseOf, type StoredAnalysisView } from '@/lib/schemas/balancer-analysis';
import type { BalancerDetail, NodeSummary } from '@/lib/schemas/dashboard';
import { parseStoredAnalysis } from '@/lib/schemas/stored';

export interface FleetSourceRow {
  id: string;
  name: string;
  publicUrl: string;
  /** In the API's vocabulary; `since` is null here (the overview reads when divergence began itself). */
  analysis: StoredAnalysisView | null;
}

/** Every balancer with its latest analysis, by name. */
export async function readFleetSources(store: Store): Promise<FleetSourceRow[]> {
  const { balancerStates, balancers } = store.t;
  return (
    await store.read((db) =>
      db
        .select({
          id: balancers.id,
          name: balancers.name,
          publicUrl: balancers.publicUrl,
          analysis: balancerStates.analysis,
          analyzedAt: balancerStates.analyzedAt,
        })
        .from(balancers)
        .leftJoin(balancerStates, eq(balancerStates.balancerId, balancers.id))
        .orderBy(asc(balancers.name)),
    )
  ).map(({ analyzedAt, ...r }) => ({
    ...r,
    analysis:
      r.analysis === null || analyzedAt === null ? null : parseStoredAnalysis(r.analysis, null, analyzedAt),
  }));
}

/** When each of these balancers last diverged (its latest `balancer.diverged`), by id; absent when never. */
export async function readDivergedSince(
  store: Store,
  balancerIds: readonly string[],
): Promise<Record<string, number>> {
  const { events } = store.t;
  if (balancerIds.length === 0) return {};
  const rows = await store.read((db) =>
    db
      .select({ balancerId: events.balancerId, at: max(events.at) })
      .from(events)
      .where(and(eq(events.type, 'balancer.diverged'), inArray(events.balancerId, [...balancerIds])))
      .groupBy(events.balancerId),
  );
  return Object.fromEntries(rows.flatMap((e) => (e.at === null ? [] : [[e.balancerId, e.at]])));
}

/** One balancer's settings as stored (secrets included: the caller shows them redacted), latest analysis and
 *  open rollout window; NotFound if none. */
export async function readBalancerDetail(
  store: Store,
  id: string,
  now = Date.now(),
): Promise<BalancerDetail> {
  const balancer = await getBalancer(store, id);
  const analysis = await readBalancerAnalysis(store, id);
  const window = await getOpenWindow(store, id);
  const facts = { balancerId: id, intervalMs: balancer.intervalMs, analysis, window };
  const progress = await readBalancerProgress(store, facts, now);
  return { ...balancer, analysis: analysis && analysisResponseOf(analysis), window, progress };
}

type SummaryState = NonNullable<NodeSummary['state']>;

function summaryStateOf(st: NodeState): SummaryState {
  return {
    ...(st.region !== undefined ? { region: st.region } : {}),
    clientEra: st.clientEra,
    reason: st.reason,
    probedAt: st.probedAt,
    verdict: {
      verdict: st.verdict.verdict,
      reason: st.verdict.reason,
      negotiatedVersion: st.verdict.negotiatedVersion,
      supported: st.verdict.supported,
      servedEras: st.verdict.servedEras,
      durationMs: st.verdict.durationMs,
    },
  };
}

/** A node's rows for the matrix, one per region that probed it, with what each is filtered and sorted by. */
function nodeRowsOf(n: NodeWithState): Array<{ row: NodeRow; facts: NodeFacts }> {
  // Across regions a node has one row per region that probed it, each with that region's verdict.
  const states = n.regions && n.regions.length > 0 ? n.regions : [n.state];
  return states.map((st) => {
    const facts = nodeFactsOf(n, st);
    return {
      facts,
      row: {
        id: n.id,
        balancerId: n.balancerId,
        origin: n.origin,
        url: n.url,
        address: n.address,
        servedBy: n.servedBy,
        state: st ? summaryStateOf(st) : null,
        groupKey: facts.groupKey,
      },
    };
  });
}

/** Every matrix row of a balancer, by node key (the first page of a large balancer is readNodeRowPage's). */
export async function readNodeSummaries(store: Store, balancerId: string): Promise<NodeRow[]> {
  return (await listNodes(store, balancerId)).flatMap(nodeRowsOf).map((r) => r.row);
}

/** A page of a balancer's matrix rows: identity and the verdict's headline, without the evidence. */
export async function readNodeRowPage(
  store: Store,
  balancerId: string,
  query: NodeListQuery,
): Promise<NodePage<NodeRow>> {
  return pageNodeRows((await listNodes(store, balancerId)).flatMap(nodeRowsOf), query);
}

/** The identity of each of these nodes (origin, URL, address, attribution), by id; unknown ids are absent. */
export async function readNodeIdentities(
  store: Store,
  ids: readonly string[],
): Promise<Record<string, NodeIdentity>> {
  const { nodes } = store.t;
  if (ids.length === 0) return {};
  const rows = await store.read((db) =>
    db
      .select({
        id: nodes.id,
        origin: nodes.origin,
        url: nodes.url,
        servedBy: nodes.servedBy,
        address: nodes.address,
      })
      .from(nodes)
      .where(inArray(nodes.id, [...ids])),
  );
  return Object.fromEntries(rows.map(({ id, ...identity }) => [id, identity]));
}
