// The probed subjects' state: what a cycle reads before probing, its one write, stdio target results, the
// subjects the scheduler spreads, and retention.
import { parseStoredRegionAnalysis, parseStoredSnapshot, parseStoredVerdict } from '@/lib/schemas/stored';
import { storedAnalysisOf } from '@/lib/schemas/stored-analysis';
import { and, desc, eq, gte, isNotNull, isNull, lt, ne, notExists, sql, type SQL } from 'drizzle-orm';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { BalancerSnapshot } from '@/lib/rollout/types';
import { selectRows, type Store } from '../index';
import { endKeyOfRegion, firstKeyOfHour, hourOf } from '../rollup-key';
import { postgresWriteCycle, postgresWriteStdioResult } from '../engines/postgres-subjects';
import { sqliteKnownNodeRows, sqliteRecentChangeRows } from '../engines/sqlite-reads';
import { postgresKnownNodeRows, type KnownNodeRow } from '../engines/known-nodes';
import { sqliteWriteProbes } from '../engines/sqlite-subjects';
import type { CycleWrite, ProbeWrite, StoredRegionState } from '../subject-state';
import type { SubjectHistoryRow, SubjectStateRow, SubjectTickRow } from '../schema';
import { insertEvents, type StoredEvent } from './events';
import { toBalancer, type Balancer } from './balancers';
import { NotFoundError } from '@/lib/errors';
import type { BalancerRow, RolloutWindowRow } from '../schema';
import { postgresCycleRead } from '../engines/postgres-cycle-read';
import { regionIdIn } from './regions';

export {
  classifyTransition,
  UNAVAILABLE_KEY,
  verdictDigest,
  type CycleWrite,
  type NewNode,
  type NodeResult,
  type PriorState,
  type ProbeWrite,
  type StdioWrite,
  type StoredRegionState,
  type SubjectPrior,
} from '../subject-state';

/**
 * The one writer of probed subjects: a balancer's cycle (nodes, states, history, rollups, analysis, events)
 * or one stdio target's probe (state, history), each in one transaction; returns the events stored.
 */
export async function writeProbes(store: Store, write: ProbeWrite): Promise<StoredEvent[]> {
  return store.write(async (tx) => {
    const regionId = write.kind === 'node' ? await regionIdIn(store, tx, write.region) : 0;
    // The hot path has each engine's own statements (prepared and synchronous, or pipelined).
    if (store.engine === 'sqlite') sqliteWriteProbes(store.sqlite, write, regionId);
    else if (write.kind === 'node') await postgresWriteCycle(store.db(), write, regionId);
    else await postgresWriteStdioResult(store.db(), write);
    return write.kind === 'node' && write.events.length > 0 ? insertEvents(store, write.events) : [];
  });
}

/**
 * Stores the region's own analysis beside the other regions' and answers theirs and the last combined
 * snapshot (with its digest), for the cycle to combine; call it inside the cycle's write, so two regions
 * finishing at once each see the other's row, and store the combination with writeProbes in the same
 * transaction. `w.analysisDigest` is the region's analysis's digest (lib/rollout/digest.ts); `ownDigestBefore` is the digest of the region's stored analysis, read before probing (only
 * this unit's holder writes that row): when the analysis says the same again, only its time and cycle count
 * are written.
 */
export async function storeRegionAnalysis(
  store: Store,
  w: Pick<CycleWrite, 'balancerId' | 'region' | 'at' | 'analysis' | 'analysisDigest'>,
  ownDigestBefore: string | null,
): Promise<{
  others: StoredRegionState[];
  previousCombined: BalancerSnapshot | null;
  previousCombinedDigest: string | null;
}> {
  const { balancerRegionStates: rs, balancerStates: bs } = store.t;
  const { snapshot } = w.analysis;
  const ownAnalysis = storedAnalysisOf(w.analysis);
  const digest = w.analysisDigest;
  const cycles = snapshot.cycle ?? 0;
  return store.write(async (tx) => {
    // Two regions finishing at once must combine one after the other: on PostgreSQL each would otherwise read
    // the other's previous row and the combined snapshot from before either wrote, and both would raise the
    // same event (two balancer.region_split for one split). The lock lasts until the transaction ends; the
    // reads below then see what the other region committed. SQLite's writes are serial already.
    const lock =
      store.engine === 'postgres'
        ? selectRows(
            store,
            sql`SELECT pg_advisory_xact_lock(hashtextextended(${`erawatch:combine:${w.balancerId}`}, 0))`,
          )
        : Promise.resolve([]);
    const own =
      ownDigestBefore === digest
        ? tx
            .update(rs)
            .set({ analyzedAt: w.at, cycles })
            .where(and(eq(rs.balancerId, w.balancerId), eq(rs.region, w.region)))
        : tx
            .insert(rs)
            .values({
              balancerId: w.balancerId,
              region: w.region,
              analysis: ownAnalysis,
              snapshot,
              analysisDigest: digest,
              analyzedAt: w.at,
              cycles,
            })
            .onConflictDoUpdate({
              target: [rs.balancerId, rs.region],
              set: { analysis: ownAnalysis, snapshot, analysisDigest: digest, analyzedAt: w.at, cycles },
            });
    // The cross-region step takes this region's analysis from the write itself: reading its row back would only
    // parse the snapshot just written.
    const others = tx
      .select()
      .from(rs)
      .where(and(eq(rs.balancerId, w.balancerId), ne(rs.region, w.region)));
    const previous = tx
      .select({ snapshot: bs.snapshot, digest: bs.analysisDigest, at: bs.analyzedAt, cycle: bs.cycles })
      .from(bs)
      .where(eq(bs.balancerId, w.balancerId));
    // Sent together, in this order: the transaction's connection runs them one after the other (the lock
    // first), without a round trip between them.
    const [, , rows, [prev]] = await Promise.all([lock, own, others, previous]);
    const stored: StoredRegionState[] = rows.map((r) => ({
      region: r.region,
      analysis: parseStoredRegionAnalysis(r.analysis, r.snapshot, { at: r.analyzedAt, cycle: r.cycles }),
      analyzedAt: r.analyzedAt,
    }));
    return {
      others: stored,
      previousCombined: prev ? parseStoredSnapshot(prev.snapshot, prev) : null,
      previousCombinedDigest: prev?.digest ?? null,
    };
  });
}

/** What a balancer's cycle reads before probing, in one read of the store. */
export interface CycleInputs {
  balancer: Balancer;
  /** The balancer's nodes by key, each with its prior state in the region. */
  known: Map<string, KnownNode>;
  /** The snapshot the region's previous cycle stored (null before its first). */
  previous: BalancerSnapshot | null;
  /** The digest of the region's stored analysis (see storeRegionAnalysis); null before its first. */
  previousDigest: string | null;
  /** The balancer's open rollout window, if any. */
  openWindow: RolloutWindowRow | null;
  /** Fingerprint changes of the balancer's nodes in the region since `changesSince`, per node, oldest first. */
  recentChanges: Map<string, number[]>;
}

/**
 * The cycle's read before probing: the balancer, its known nodes with their prior state, the previous
 * snapshot and the open rollout window. SQLite runs them as one synchronous batch of prepared statements;
 * PostgreSQL sends them together on the pool.
 */
export async function readCycleInputs(
  store: Store,
  balancerId: string,
  region: string,
  changesSince: number,
): Promise<CycleInputs> {
  const { balancers: b, balancerStates: bs, balancerRegionStates: rs, rolloutWindows: w } = store.t;
  return store.read(async (db) => {
    let parts: {
      balancer: BalancerRow | undefined;
      known: KnownNodeRow[];
      own: { snapshot: unknown; digest?: string | null; at: number; cycle: number } | undefined;
      legacy: { snapshot: unknown; at: number; cycle: number } | undefined;
      window: RolloutWindowRow | undefined;
      changes: ReadonlyArray<{ nodeId: string; at: number }>;
    };
    if (store.engine === 'postgres') {
      // Two statements: the nodes as rows, everything else as one JSON row (see postgres-cycle-read.ts).
      const [known, rest] = await Promise.all([
        postgresKnownNodeRows(store.db(), balancerId, region),
        postgresCycleRead(store.db(), balancerId, region, changesSince),
      ]);
      parts = {
        balancer: rest.balancer ?? undefined,
        known,
        own: rest.own ?? undefined,
        legacy: rest.legacy ?? undefined,
        window: rest.window ?? undefined,
        changes: rest.changes,
      };
    } else {
      const [balancerRows, ownRows, legacyRows, windows] = await Promise.all([
        db.select().from(b).where(eq(b.id, balancerId)),
        db
          .select({ snapshot: rs.snapshot, digest: rs.analysisDigest, at: rs.analyzedAt, cycle: rs.cycles })
          .from(rs)
          .where(and(eq(rs.balancerId, balancerId), eq(rs.region, region))),
        // A store from before regions has only the combined snapshot: the default region carries on from it.
        region === 'default'
          ? db
              .select({ snapshot: bs.snapshot, at: bs.analyzedAt, cycle: bs.cycles })
              .from(bs)
              .where(
                and(
                  eq(bs.balancerId, balancerId),
                  notExists(
                    db
                      .select({ one: sql`1` })
                      .from(rs)
                      .where(and(eq(rs.balancerId, balancerId), eq(rs.region, region))),
                  ),
                ),
              )
          : Promise.resolve([]),
        db
          .select()
          .from(w)
          .where(and(eq(w.balancerId, balancerId), isNull(w.closedAt))),
      ]);
      parts = {
        balancer: balancerRows[0],
        known: sqliteKnownNodeRows(store.sqlite, balancerId, region),
        own: ownRows[0],
        legacy: legacyRows[0],
        window: windows[0],
        changes: sqliteRecentChangeRows(store.sqlite, balancerId, region, changesSince),
      };
    }
    const row = parts.balancer;
    if (!row) throw new NotFoundError('balancer', balancerId);
    // The time and cycle count come from the row's columns (a quiet cycle writes only those).
    const from = parts.own ?? parts.legacy;
    return {
      balancer: toBalancer(row),
      known: new Map(parts.known.map((r) => [r.key, r])),
      previous: from ? { ...(from.snapshot as BalancerSnapshot), at: from.at, cycle: from.cycle } : null,
      previousDigest: parts.own?.digest ?? null,
      openWindow: parts.window ?? null,
      recentChanges: changesByNode(parts.changes),
    };
  });
}

/** A balancer's node with its prior state in the region. */
export type KnownNode = KnownNodeRow;

function changesByNode(rows: ReadonlyArray<{ nodeId: string; at: number }>): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const r of rows) {
    const list = out.get(r.nodeId);
    if (list) list.push(r.at);
    else out.set(r.nodeId, [r.at]);
  }
  return out;
}

/**
 * The snapshot the region's previous cycle stored, or null before its first. A store from before regions
 * has only the balancer's snapshot: the default region carries on from it.
 */
export async function readPreviousSnapshot(
  store: Store,
  balancerId: string,
  region: string,
): Promise<BalancerSnapshot | null> {
  const { balancerStates: bs, balancerRegionStates: rs } = store.t;
  const [own] = await store.read((db) =>
    db
      .select({ snapshot: rs.snapshot, at: rs.analyzedAt, cycle: rs.cycles })
      .from(rs)
      .where(and(eq(rs.balancerId, balancerId), eq(rs.region, region))),
  );
  if (own) return parseStoredSnapshot(own.snapshot, own);
  if (region !== 'default') return null;
  const [row] = await store.read((db) =>
    db
      .select({ snapshot: bs.snapshot, at: bs.analyzedAt, cycle: bs.cycles })
      .from(bs)
      .where(eq(bs.balancerId, balancerId)),
  );
  return row ? parseStoredSnapshot(row.snapshot, row) : null;
}

export interface ScheduledSubjects {
  balancers: Array<{ id: string; intervalMs: number; regions: string[] }>;
  stdioTargets: Array<{ id: string; intervalMs: number; regions: string[] }>;
}

/** Every balancer and stdio target with its interval, for the scheduler. */
export function listScheduledSubjects(store: Store): Promise<ScheduledSubjects> {
  const { balancers: b, stdioTargets: t } = store.t;
  return store.read(async (db) => ({
    balancers: await db.select({ id: b.id, intervalMs: b.intervalMs, regions: b.regions }).from(b),
    stdioTargets: await db.select({ id: t.id, intervalMs: t.intervalMs, regions: t.regions }).from(t),
  }));
}

export interface PruneResult {
  rollups: number;
  history: number;
  events: number;
}

/**
 * Retention, the one pruning path: rollups, closed history spans of every subject (nodes and stdio targets
 * alike) and events older than the cutoff go, in one transaction.
 */
export function pruneOldData(store: Store, cutoff: number): Promise<PruneResult> {
  if (!Number.isFinite(cutoff)) throw new RangeError('cutoff must be epoch milliseconds');
  const { nodeRollups: r, subjectHistory: h, events: e, regions } = store.t;
  return store.write(async (tx) => {
    // One range delete per region: within a region the key is hour-major.
    let rollups: unknown[] = [];
    for (const { id } of await tx.select({ id: regions.id }).from(regions)) {
      const cut = Math.min(firstKeyOfHour(hourOf(cutoff), id), endKeyOfRegion(id));
      const gone = await tx
        .delete(r)
        .where(and(gte(r.key, firstKeyOfHour(0, id)), lt(r.key, cut)))
        .returning({ key: r.key });
      rollups = rollups.concat(gone);
    }
    const history = await tx
      .delete(h)
      .where(and(isNotNull(h.endedAt), lt(h.endedAt, cutoff)))
      .returning({ id: h.id });
    const gone = await tx.delete(e).where(lt(e.at, cutoff)).returning({ id: e.id });
    return {
      rollups: rollups.length,
      history: history.length,
      events: gone.length,
    };
  });
}

/** A subject's verdict row with its ticks (the latest probe's time and duration, the span's counters). */
export type SubjectStateView = SubjectStateRow & Omit<SubjectTickRow, 'subjectId' | 'region'>;

/** A verdict row and its ticks row, as one (null before the first probe). */
export function withTicks(row: SubjectStateRow | null, tick: SubjectTickRow | null): SubjectStateView | null {
  if (!row) return null;
  const {
    subjectId: _s,
    region: _r,
    ...t
  } = tick ?? {
    subjectId: row.subjectId,
    region: row.region,
    probedAt: row.fingerprintSince,
    durationMs: 0,
    probes: 0,
    failures: 0,
    consecutiveFailures: 0,
  };
  return { ...row, ...t };
}

/** A subject's stored state without its key columns: what the node and stdio readers build on. */
export type SubjectState = Omit<
  SubjectStateView,
  'subjectId' | 'region' | 'kind' | 'nodeId' | 'targetId' | 'verdictDigest'
>;

/** The one reader shape of a state row (null before the first probe). */
export function subjectStateOf(row: SubjectStateView | null): SubjectState | null {
  if (!row) return null;
  const { subjectId: _s, region: _r, kind: _k, nodeId: _n, targetId: _t, verdictDigest: _d, ...state } = row;
  return { ...state, verdict: parseStoredVerdict(state.verdict) };
}

/** The join condition of a state row's ticks. */
export function ticksJoin(store: Store): SQL | undefined {
  const { subjectStates: s, subjectTicks: k } = store.t;
  return and(eq(k.subjectId, s.subjectId), eq(k.region, s.region));
}

/** The join condition of a subject's state in the region, for readers that list subjects with their state. */
export function stateJoin(store: Store, subjectId: AnySQLiteColumn, region: string): SQL | undefined {
  const { subjectStates: s } = store.t;
  return and(eq(s.subjectId, subjectId), eq(s.region, region));
}

/** A subject's history span without its key columns. */
export type SubjectSpan = Omit<SubjectHistoryRow, 'subjectId' | 'kind' | 'nodeId' | 'targetId'>;

/** Fingerprint spans of one subject in the region (null: every region), newest first; open spans have `endedAt` null. */
export async function readSubjectHistory(
  store: Store,
  subjectId: string,
  limit: number,
  region: string | null,
): Promise<SubjectSpan[]> {
  const { subjectHistory: h } = store.t;
  const rows = await store.read((db) =>
    db
      .select()
      .from(h)
      .where(and(eq(h.subjectId, subjectId), region === null ? undefined : eq(h.region, region)))
      .orderBy(desc(h.startedAt), desc(h.id))
      .limit(limit),
  );
  // Every span names its region; across regions (region null) the spans of all of them interleave.
  return rows.map(({ subjectId: _s, kind: _k, nodeId: _n, targetId: _t, ...span }) => span);
}
