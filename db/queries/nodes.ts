import { and, asc, desc, eq, gte } from 'drizzle-orm';
import { NotFoundError, ValidationError } from '@/lib/errors';
import type { Verdict } from '@/lib/probe/types';
import type { Store } from '../index';
import { formatHistogram, mergeHistograms, parseHistogram, quantileMs } from '../histogram';
import { clampLimit } from './balancers';
import {
  balancers,
  hourlyRollups,
  nodeHistory,
  nodes,
  nodeStates,
  type NodeHistoryRow,
  type NodeOrigin,
  type NodeStateRow,
} from '../schema';

export interface NodeState {
  verdict: Verdict;
  fingerprintKey: string;
  clientEra: string;
  reason: string;
  probedAt: number;
  durationMs: number;
  fingerprintSince: number;
  probes: number;
  failures: number;
  consecutiveFailures: number;
}

export interface NodeWithState {
  id: string;
  balancerId: string;
  key: string;
  origin: NodeOrigin;
  url: string;
  address: string | null;
  servedBy: string | null;
  createdAt: number;
  lastSeenAt: number;
  state: NodeState | null;
}

function toState(s: NodeStateRow | null): NodeState | null {
  if (!s) return null;
  const { nodeId: _n, ...rest } = s;
  return rest;
}

/** Every node of a balancer (listed, DNS and sample-attributed), with its current state; NotFound if no balancer. */
export function listNodes(store: Store, balancerId: string): NodeWithState[] {
  const exists = store.db
    .select({ id: balancers.id })
    .from(balancers)
    .where(eq(balancers.id, balancerId))
    .get();
  if (!exists) throw new NotFoundError('balancer', balancerId);
  return store.db
    .select({ n: nodes, s: nodeStates })
    .from(nodes)
    .leftJoin(nodeStates, eq(nodeStates.nodeId, nodes.id))
    .where(eq(nodes.balancerId, balancerId))
    .orderBy(asc(nodes.key))
    .all()
    .map(({ n, s }) => ({ ...n, state: toState(s) }));
}

/** One node with its current verdict and evidence. */
export function getNode(store: Store, nodeId: string): NodeWithState {
  const row = store.db
    .select({ n: nodes, s: nodeStates })
    .from(nodes)
    .leftJoin(nodeStates, eq(nodeStates.nodeId, nodes.id))
    .where(eq(nodes.id, nodeId))
    .get();
  if (!row) throw new NotFoundError('node', nodeId);
  return { ...row.n, state: toState(row.s) };
}

/** Fingerprint spans of a node, newest first; the open span has `endedAt` null. */
export function getNodeHistory(
  store: Store,
  nodeId: string,
  opts: { limit?: number } = {},
): NodeHistoryRow[] {
  const limit = clampLimit(opts.limit, 100, 1000);
  getNode(store, nodeId);
  return store.db
    .select()
    .from(nodeHistory)
    .where(eq(nodeHistory.nodeId, nodeId))
    .orderBy(desc(nodeHistory.startedAt), desc(nodeHistory.id))
    .limit(limit)
    .all();
}

export interface Rollup {
  hourStart: number;
  probes: number;
  failures: number;
  p50Ms: number | null;
  p95Ms: number | null;
  /** The sparse histogram ("bucket:count,..."), for callers that merge further. */
  latency: string;
}

export type RollupQuery = (
  { nodeId: string; balancerId?: undefined } | { balancerId: string; nodeId?: undefined }
) & {
  since: number;
};

/** Hourly rollups from `since` (inclusive, epoch ms), oldest first; for a balancer, its nodes merged per hour. */
export function getRollups(store: Store, query: RollupQuery): Rollup[] {
  if (!Number.isFinite(query.since))
    throw new ValidationError([{ path: 'since', message: 'must be epoch milliseconds' }]);
  if (query.nodeId !== undefined) {
    getNode(store, query.nodeId);
    const rows = store.db
      .select()
      .from(hourlyRollups)
      .where(and(eq(hourlyRollups.nodeId, query.nodeId), gte(hourlyRollups.hourStart, query.since)))
      .orderBy(asc(hourlyRollups.hourStart))
      .all();
    return rows.map((r) => {
      const h = parseHistogram(r.latency);
      return {
        hourStart: r.hourStart,
        probes: r.probes,
        failures: r.failures,
        p50Ms: quantileMs(h, 0.5),
        p95Ms: quantileMs(h, 0.95),
        latency: r.latency,
      };
    });
  }
  const exists = store.db
    .select({ id: balancers.id })
    .from(balancers)
    .where(eq(balancers.id, query.balancerId))
    .get();
  if (!exists) throw new NotFoundError('balancer', query.balancerId);
  const rows = store.db
    .select()
    .from(hourlyRollups)
    .where(and(eq(hourlyRollups.balancerId, query.balancerId), gte(hourlyRollups.hourStart, query.since)))
    .orderBy(asc(hourlyRollups.hourStart))
    .all();
  const byHour = new Map<number, { probes: number; failures: number; h: Map<number, number> }>();
  for (const r of rows) {
    const acc = byHour.get(r.hourStart) ?? { probes: 0, failures: 0, h: new Map<number, number>() };
    acc.probes += r.probes;
    acc.failures += r.failures;
    mergeHistograms(acc.h, parseHistogram(r.latency));
    byHour.set(r.hourStart, acc);
  }
  return [...byHour.entries()].map(([hourStart, a]) => ({
    hourStart,
    probes: a.probes,
    failures: a.failures,
    p50Ms: quantileMs(a.h, 0.5),
    p95Ms: quantileMs(a.h, 0.95),
    latency: formatHistogram(a.h),
  }));
}
