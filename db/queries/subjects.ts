// The probed subjects' state: what a cycle reads before probing, its one write, stdio target results, the
// subjects the scheduler spreads, and retention.
import { and, asc, eq, gte, isNotNull, lt } from 'drizzle-orm';
import type { Verdict } from '@/lib/probe/types';
import type { BalancerSnapshot } from '@/lib/rollout/types';
import { postgresOf, sqliteOf, type Store } from '../index';
import { firstKeyOfHour, hourOf } from '../rollup-key';
import { postgresWriteCycle, postgresWriteStdioResult } from '../engines/postgres-subjects';
import { sqliteWriteCycle, sqliteWriteStdioResult } from '../engines/sqlite-subjects';
import type { CycleWrite } from '../subject-state';
import { insertEvents, type StoredEvent } from './events';

export {
  classifyTransition,
  UNAVAILABLE_KEY,
  verdictDigest,
  type CycleWrite,
  type NewNode,
  type NodeResult,
  type PriorState,
  type SubjectPrior,
} from '../subject-state';

/** Writes one cycle (nodes, states, history, rollups, analysis, events) in one transaction; returns the events. */
export async function writeCycle(store: Store, w: CycleWrite): Promise<StoredEvent[]> {
  return store.write(async () => {
    // The hot path has each engine's own statements (prepared and synchronous, or pipelined).
    if (store.engine === 'sqlite') sqliteWriteCycle(sqliteOf(store), w);
    else await postgresWriteCycle(postgresOf(store).db(), w);
    return w.events.length > 0 ? insertEvents(store, w.events) : [];
  });
}

/** Stores one probe of a stdio target in one transaction. */
export async function writeStdioResult(
  store: Store,
  targetId: string,
  v: Verdict,
  fingerprintKey: string | null,
): Promise<void> {
  await store.write(async () => {
    if (store.engine === 'sqlite') sqliteWriteStdioResult(sqliteOf(store), targetId, v, fingerprintKey);
    else await postgresWriteStdioResult(postgresOf(store).db(), targetId, v, fingerprintKey);
  });
}

export interface KnownNode {
  id: string;
  seq: number | null;
  key: string;
  origin: string;
  address: string | null;
  lastSeenAt: number;
  fingerprintKey: string | null;
  verdictDigest: string | null;
  lastAvailableKey: string | null;
  fingerprintSince: number | null;
  probes: number | null;
  failures: number | null;
  consecutiveFailures: number | null;
}

/** A balancer's nodes by key, each with its prior state. */
export function readKnownNodes(store: Store, balancerId: string): Promise<Map<string, KnownNode>> {
  const { nodes: n, nodeStates: s } = store.t;
  return store.read(async (db) => {
    const rows = await db
      .select({
        id: n.id,
        seq: n.seq,
        key: n.key,
        origin: n.origin,
        address: n.address,
        lastSeenAt: n.lastSeenAt,
        fingerprintKey: s.fingerprintKey,
        verdictDigest: s.verdictDigest,
        lastAvailableKey: s.lastAvailableKey,
        fingerprintSince: s.fingerprintSince,
        probes: s.probes,
        failures: s.failures,
        consecutiveFailures: s.consecutiveFailures,
      })
      .from(n)
      .leftJoin(s, eq(s.nodeId, n.id))
      .where(eq(n.balancerId, balancerId));
    return new Map(rows.map((r) => [r.key, r]));
  });
}

/** Fingerprint changes of a balancer's nodes since `since`, per node, oldest first. */
export function readRecentChanges(
  store: Store,
  balancerId: string,
  since: number,
): Promise<Map<string, number[]>> {
  const { nodes: n, nodeHistory: h } = store.t;
  return store.read(async (db) => {
    const rows = await db
      .select({ nodeId: h.nodeId, at: h.startedAt })
      .from(h)
      .innerJoin(n, eq(n.id, h.nodeId))
      .where(and(eq(n.balancerId, balancerId), eq(h.isChange, true), gte(h.startedAt, since)))
      .orderBy(asc(h.startedAt));
    const out = new Map<string, number[]>();
    for (const r of rows) out.set(r.nodeId, [...(out.get(r.nodeId) ?? []), r.at]);
    return out;
  });
}

/** The snapshot the previous cycle stored, or null before the first. */
export async function readPreviousSnapshot(
  store: Store,
  balancerId: string,
): Promise<BalancerSnapshot | null> {
  const { balancerStates: bs } = store.t;
  const [row] = await store.read((db) =>
    db.select({ snapshot: bs.snapshot }).from(bs).where(eq(bs.balancerId, balancerId)),
  );
  return row ? (row.snapshot as BalancerSnapshot) : null;
}

export interface ScheduledSubjects {
  balancers: Array<{ id: string; intervalMs: number }>;
  stdioTargets: Array<{ id: string; intervalMs: number }>;
}

/** Every balancer and stdio target with its interval, for the scheduler. */
export function listScheduledSubjects(store: Store): Promise<ScheduledSubjects> {
  const { balancers: b, stdioTargets: t } = store.t;
  return store.read(async (db) => ({
    balancers: await db.select({ id: b.id, intervalMs: b.intervalMs }).from(b),
    stdioTargets: await db.select({ id: t.id, intervalMs: t.intervalMs }).from(t),
  }));
}

export interface PruneResult {
  rollups: number;
  history: number;
  events: number;
}

/** Retention: rollups, closed history spans and events older than the cutoff go, in one transaction. */
export function pruneOldData(store: Store, cutoff: number): Promise<PruneResult> {
  if (!Number.isFinite(cutoff)) throw new RangeError('cutoff must be epoch milliseconds');
  const { nodeRollups: r, nodeHistory: h, stdioTargetHistory: sh, events: e } = store.t;
  return store.write(async (tx) => {
    const rollups = await tx
      .delete(r)
      .where(lt(r.key, firstKeyOfHour(hourOf(cutoff))))
      .returning({ key: r.key });
    const history = await tx
      .delete(h)
      .where(and(isNotNull(h.endedAt), lt(h.endedAt, cutoff)))
      .returning({ id: h.id });
    const stdioHistory = await tx
      .delete(sh)
      .where(and(isNotNull(sh.endedAt), lt(sh.endedAt, cutoff)))
      .returning({ id: sh.id });
    const gone = await tx.delete(e).where(lt(e.at, cutoff)).returning({ id: e.id });
    return {
      rollups: rollups.length,
      history: history.length + stdioHistory.length,
      events: gone.length,
    };
  });
}
