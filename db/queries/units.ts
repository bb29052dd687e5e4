// Poll units: one row per (balancer or stdio target, region). Workers claim due units in batches; a claim is a
// lease with a fencing token bumped on every take-over, and every write of a unit's cycle checks that token in
// its own transaction. On PostgreSQL claims skip rows another transaction holds (FOR UPDATE SKIP LOCKED) and
// compare against the database clock, and a claim or hand-back is one statement that commits by itself; on
// SQLite the same statements run inside one BEGIN IMMEDIATE.
import { and, eq, gt, inArray, notInArray, or, sql, type SQL } from 'drizzle-orm';
import { selectRows, type Db, type Store } from '@/db/index';
import { storeClockSql, storeNow } from '@/db/clock';
import { sqliteReleaseUnitsNow } from '@/db/engines/sqlite-exit';

export type UnitKind = 'balancer' | 'stdio';

export interface UnitRef {
  kind: UnitKind;
  unitId: string;
}

export interface ClaimedUnit extends UnitRef {
  token: number;
  dueAt: number;
  /** The asks for a cycle made before this claim: its cycle answers them (see requestUnitCycles). */
  requestedSeq: number;
}

export interface UnitClaimant {
  holder: string;
  pid: number;
  hostname: string;
  region: string;
}

/**
 * A condition that holds, and on PostgreSQL lets the statement's own transaction commit without waiting for the
 * log to reach disk (`synchronous_commit` off for that transaction only). For a unit's hand-back only: a server
 * crash may lose the last of them, which leaves the unit to its lease's end (its cycle's results, written before,
 * are durable). Claims stay durable: a worker that lost one could claim the unit again under the same token
 * while the first cycle still runs.
 * Evaluated for the rows the statement would change: a statement that changes none has nothing to commit.
 */
function bookkeepingCommit(store: Store): SQL | undefined {
  return store.engine === 'postgres' ? sql`set_config('synchronous_commit', 'off', true) = 'off'` : undefined;
}

/** The store's clock in epoch ms: the database's on PostgreSQL (workers on skewed hosts agree), else ours. */
const clock = storeClockSql;

export { storeNow };

/**
 * Makes the region's unit rows match the scheduled subjects: new ones are inserted due at `dueAt(ref)`,
 * rows of subjects that are gone are deleted. Existing rows (and their leases) are left alone.
 */
export async function syncUnits(
  store: Store,
  region: string,
  units: ReadonlyArray<UnitRef & { dueAt: number }>,
): Promise<number> {
  const { pollUnits: u } = store.t;
  return store.write(async (tx) => {
    // Only rows that are missing: an upsert of an existing row would wait on a cycle write that holds it.
    const existing = new Set(
      (await tx.select({ kind: u.kind, unitId: u.unitId }).from(u).where(eq(u.region, region))).map(
        (r) => `${r.kind}:${r.unitId}`,
      ),
    );
    const missing = units.filter((x) => !existing.has(`${x.kind}:${x.unitId}`));
    let added = 0;
    for (let i = 0; i < missing.length; i += 200) {
      const chunk = missing.slice(i, i + 200);
      const rows = await tx
        .insert(u)
        .values(chunk.map((x) => ({ kind: x.kind, unitId: x.unitId, region, dueAt: x.dueAt })))
        .onConflictDoNothing()
        .returning({ unitId: u.unitId });
      added += rows.length;
    }
    for (const kind of ['balancer', 'stdio'] as const) {
      const ids = units.filter((x) => x.kind === kind).map((x) => x.unitId);
      await tx
        .delete(u)
        .where(
          and(eq(u.region, region), eq(u.kind, kind), ids.length > 0 ? notInArray(u.unitId, ids) : undefined),
        );
    }
    return added;
  });
}

/** Holders with unexpired units on `hostname`, other than `except` (to tell which of them are gone). */
export async function unitHoldersOnHost(
  store: Store,
  hostname: string,
  except: string,
  now: number,
): Promise<Array<{ holder: string; pid: number }>> {
  const rows = await store.read(() =>
    selectRows<{ holder: string; pid: unknown }>(
      store,
      sql`SELECT DISTINCT holder, pid FROM poll_units
          WHERE hostname = ${hostname} AND holder IS NOT NULL AND holder <> ${except}
            AND expires_at > ${clock(store, now)}`,
    ),
  );
  return rows.map((r) => ({ holder: r.holder, pid: Number(r.pid) }));
}

/**
 * Claims up to `limit` due units of the claimant's region whose lease expired (or whose holder is in
 * `goneHolders`): each gets a new token and a lease of `ttlMs`. Two workers never get the same unit.
 */
export async function claimDueUnits(
  store: Store,
  me: UnitClaimant,
  opts: { limit: number; ttlMs: number; now: number; goneHolders?: readonly string[] },
): Promise<{ units: ClaimedUnit[]; at: number }> {
  if (opts.limit <= 0) return { units: [], at: await storeNow(store, opts.now) };
  const t = clock(store, opts.now);
  const gone = opts.goneHolders ?? [];
  const free =
    gone.length > 0
      ? sql`(expires_at <= ${t} OR holder IN (${sql.join(
          gone.map((g) => sql`${g}`),
          sql`, `,
        )}))`
      : sql`expires_at <= ${t}`;
  const set = sql`holder = ${me.holder}, pid = ${me.pid}, hostname = ${me.hostname}, token = token + 1,
              expires_at = ${t} + ${opts.ttlMs}`;
  const due = sql`region = ${me.region} AND due_at <= ${t} AND ${free} ORDER BY due_at LIMIT ${opts.limit}`;
  const returned = sql`kind, unit_id, token, due_at, requested_seq`;
  // PostgreSQL: one statement that commits by itself. The due rows are picked once (a materialized CTE), passing
  // by rows a concurrent claim holds (SKIP LOCKED) rather than waiting; the store's time comes back with an empty
  // claim too. SQLite: the same pick and update inside one BEGIN IMMEDIATE.
  const pg = store.engine === 'postgres';
  const query = pg
    ? sql`WITH picked AS MATERIALIZED (
            SELECT kind, unit_id FROM poll_units WHERE ${due} FOR UPDATE SKIP LOCKED),
          claimed AS (
            UPDATE poll_units AS u SET ${set} FROM picked
            WHERE u.region = ${me.region} AND u.kind = picked.kind AND u.unit_id = picked.unit_id
            RETURNING u.kind, u.unit_id, u.token, u.due_at, u.requested_seq)
          SELECT claimed.*, ${t} AS at FROM (SELECT 1) AS one LEFT JOIN claimed ON true`
    : sql`UPDATE poll_units SET ${set}
          WHERE region = ${me.region} AND (kind, unit_id) IN (SELECT kind, unit_id FROM poll_units WHERE ${due})
          RETURNING ${returned}, ${t} AS at`;
  return store.writeOne(async () => {
    const rows = await selectRows<{
      kind: UnitKind;
      unit_id: string | null;
      token: unknown;
      due_at: unknown;
      requested_seq: unknown;
      at: unknown;
    }>(store, query);
    const at = rows[0] ? Number(rows[0].at) : await storeNow(store, opts.now);
    return {
      at,
      units: rows.flatMap((r) =>
        r.unit_id === null
          ? []
          : [
              {
                kind: r.kind,
                unitId: r.unit_id,
                token: Number(r.token),
                dueAt: Number(r.due_at),
                requestedSeq: Number(r.requested_seq),
              },
            ],
      ),
    };
  });
}

/**
 * Claims one unit now, due or not, when its lease is free (or its holder is in `goneHolders`): a new token and a
 * lease of `ttlMs`, the row created when missing. Null while another holder has it.
 */
export async function claimUnit(
  store: Store,
  me: UnitClaimant,
  ref: UnitRef,
  opts: { ttlMs: number; now: number; goneHolders?: readonly string[] },
): Promise<ClaimedUnit | null> {
  const { pollUnits: u } = store.t;
  const t = clock(store, opts.now);
  const gone = opts.goneHolders ?? [];
  return store.write(async (tx) => {
    const at = await storeNow(store, opts.now);
    await tx
      .insert(u)
      .values({ kind: ref.kind, unitId: ref.unitId, region: me.region, dueAt: at })
      .onConflictDoNothing();
    const free =
      gone.length > 0
        ? or(sql`${u.expiresAt} <= ${t}`, inArray(u.holder, [...gone]))
        : sql`${u.expiresAt} <= ${t}`;
    const rows = await tx
      .update(u)
      .set({
        holder: me.holder,
        pid: me.pid,
        hostname: me.hostname,
        token: sql`${u.token} + 1`,
        expiresAt: sql`${t} + ${opts.ttlMs}`,
      })
      .where(and(eq(u.kind, ref.kind), eq(u.unitId, ref.unitId), eq(u.region, me.region), free))
      .returning({ token: u.token, dueAt: u.dueAt, requestedSeq: u.requestedSeq });
    const row = rows[0];
    return row
      ? { ...ref, token: Number(row.token), dueAt: Number(row.dueAt), requestedSeq: Number(row.requestedSeq) }
      : null;
  });
}

/**
 * The earliest time, in the store's clock, at which a unit of the region can be claimed by `holder`: a unit is
 * claimable once it is due and its lease has ended, so one that another worker holds counts at its lease's
 * end (a stopped or cut-off holder's units are taken over the moment their leases run out). Null when none.
 */
export async function nextClaimableAt(store: Store, region: string, holder: string): Promise<number | null> {
  const rows = await store.read(() =>
    selectRows<{ at: unknown }>(
      store,
      sql`SELECT min(CASE WHEN expires_at > due_at THEN expires_at ELSE due_at END) AS at FROM poll_units
          WHERE region = ${region} AND (holder IS NULL OR holder <> ${holder} OR expires_at = 0)`,
    ),
  );
  const at = rows[0]?.at;
  return at === null || at === undefined ? null : Number(at);
}

function unitMatch(store: Store, ref: UnitRef & { token: number }, region: string, holder: string) {
  const { pollUnits: u } = store.t;
  return and(
    eq(u.kind, ref.kind),
    eq(u.unitId, ref.unitId),
    eq(u.region, region),
    eq(u.holder, holder),
    eq(u.token, ref.token),
  );
}

/** Extends the leases of units still ours; answers the ones that are no longer ours (taken over). */
export async function renewUnits(
  store: Store,
  me: UnitClaimant,
  units: ReadonlyArray<ClaimedUnit>,
  ttlMs: number,
  now: number,
): Promise<ClaimedUnit[]> {
  return (await renewUnitLeases(store, me, units, ttlMs, now)).lost;
}

/**
 * Extends the leases of units still ours. `renewed` are the units whose lease this call extended; `lost` the
 * ones that are no longer ours (taken over). On PostgreSQL a unit can be in neither: its row was locked (by our
 * own cycle's fence, or by another worker's claim under way), so its lease was not extended and it may still be
 * taken over: its holder must not count on a lease it did not get.
 */
export async function renewUnitLeases(
  store: Store,
  me: UnitClaimant,
  units: ReadonlyArray<ClaimedUnit>,
  ttlMs: number,
  now: number,
): Promise<{ renewed: ClaimedUnit[]; lost: ClaimedUnit[] }> {
  if (units.length === 0) return { renewed: [], lost: [] };
  const { pollUnits: u } = store.t;
  const t = clock(store, now);
  if (store.engine === 'postgres') return renewUnitsSkippingLocked(store, me, units, ttlMs, t);
  return store.lease(async (tx) => {
    const lost: ClaimedUnit[] = [];
    const renewed: ClaimedUnit[] = [];
    for (const unit of units) {
      const rows = await tx
        .update(u)
        .set({ expiresAt: sql`${t} + ${ttlMs}` })
        .where(unitMatch(store, unit, me.region, me.holder))
        .returning({ token: u.token });
      (rows.length === 0 ? lost : renewed).push(unit);
    }
    return { renewed, lost };
  });
}

/**
 * PostgreSQL: one statement on the lease connection that passes by rows locked right now (our own cycle write
 * holds its unit's row under the fence, which extends that lease itself, and claims skip locked rows too), so
 * a renewal never queues behind a write. A unit counts as lost only once its row shows another holder or token;
 * a row passed by is neither renewed nor lost.
 */
async function renewUnitsSkippingLocked(
  store: Store,
  me: UnitClaimant,
  units: ReadonlyArray<ClaimedUnit>,
  ttlMs: number,
  t: SQL,
): Promise<{ renewed: ClaimedUnit[]; lost: ClaimedUnit[] }> {
  const tuples = (list: ReadonlyArray<ClaimedUnit>) =>
    sql.join(
      list.map((u) => sql`(${u.kind}, ${u.unitId}, ${u.token}::bigint)`),
      sql`, `,
    );
  return store.lease(async () => {
    const rows = await selectRows<{ kind: UnitKind; unit_id: string }>(
      store,
      sql`UPDATE poll_units SET expires_at = ${t} + ${ttlMs}
          WHERE region = ${me.region} AND (kind, unit_id) IN (
            SELECT kind, unit_id FROM poll_units
            WHERE region = ${me.region} AND holder = ${me.holder} AND (kind, unit_id, token) IN (${tuples(units)})
            FOR UPDATE SKIP LOCKED)
          RETURNING kind, unit_id`,
    );
    const done = new Set(rows.map((r) => `${r.kind}:${r.unit_id}`));
    const renewed = units.filter((u) => done.has(`${u.kind}:${u.unitId}`));
    const rest = units.filter((u) => !done.has(`${u.kind}:${u.unitId}`));
    if (rest.length === 0) return { renewed, lost: [] };
    const still = await selectRows<{ kind: UnitKind; unit_id: string }>(
      store,
      sql`SELECT kind, unit_id FROM poll_units
          WHERE region = ${me.region} AND holder = ${me.holder} AND (kind, unit_id, token) IN (${tuples(rest)})`,
    );
    const ours = new Set(still.map((r) => `${r.kind}:${r.unit_id}`));
    return { renewed, lost: rest.filter((u) => !ours.has(`${u.kind}:${u.unitId}`)) };
  });
}

/** How a claimed unit's turn ended, for its hand-back. */
export interface UnitTurn {
  /** The cycle ran (stored or failed): the asks seen at its claim are answered. False when it never started. */
  attempted: boolean;
  /** When its results were stored, and how many probes it made; null when it stored nothing. */
  stored: { at: number; probes: number } | null;
}

/**
 * Hands a unit back, due again at `nextDueAt`, or at once when an ask came after its claim; nothing when its
 * token moved. The row keeps its last holder.
 */
export async function releaseUnit(
  store: Store,
  me: UnitClaimant,
  unit: ClaimedUnit,
  nextDueAt: number,
  turn: UnitTurn,
  now: number,
): Promise<boolean> {
  const { pollUnits: u } = store.t;
  const t = clock(store, now);
  const answered = turn.attempted
    ? sql`CASE WHEN ${u.answeredSeq} > ${unit.requestedSeq} THEN ${u.answeredSeq} ELSE ${unit.requestedSeq} END`
    : u.answeredSeq;
  return store.writeOne(async (tx) => {
    const rows = await tx
      .update(u)
      .set({
        expiresAt: 0,
        dueAt: sql`CASE WHEN ${u.requestedSeq} > ${answered} THEN ${t} ELSE ${nextDueAt} END`,
        answeredSeq: answered,
        ...(turn.stored ? { lastCycleAt: turn.stored.at, lastCycleProbes: turn.stored.probes } : {}),
      })
      .where(and(unitMatch(store, unit, me.region, me.holder), bookkeepingCommit(store)))
      .returning({ token: u.token });
    return rows.length === 1;
  });
}

/**
 * Asks for a cycle of the subject in each of `regions` now: each region's unit (created when its worker has
 * not listed it yet) counts one more ask and is due at once. Answers the ask number each region must reach.
 */
export async function requestUnitCycles(
  store: Store,
  kind: UnitKind,
  unitId: string,
  regions: readonly string[],
  now: number,
): Promise<Map<string, number>> {
  const { pollUnits: u } = store.t;
  const t = clock(store, now);
  return store.write(async (tx) => {
    const at = await storeNow(store, now);
    await tx
      .insert(u)
      .values(regions.map((region) => ({ kind, unitId, region, dueAt: at })))
      .onConflictDoNothing();
    const rows = await tx
      .update(u)
      .set({
        requestedSeq: sql`${u.requestedSeq} + 1`,
        dueAt: sql`CASE WHEN ${u.dueAt} > ${t} THEN ${t} ELSE ${u.dueAt} END`,
      })
      .where(and(eq(u.kind, kind), eq(u.unitId, unitId), inArray(u.region, [...regions])))
      .returning({ region: u.region, seq: u.requestedSeq });
    return new Map(rows.map((r) => [r.region, Number(r.seq)]));
  });
}

export interface UnitAnswer {
  region: string;
  answeredSeq: number;
  storedSeq: number;
  lastCycleAt: number | null;
  lastCycleProbes: number;
}

/** Where the subject's units in `regions` stand with the asks made of them. */
export async function readUnitAnswers(
  store: Store,
  kind: UnitKind,
  unitId: string,
  regions: readonly string[],
): Promise<UnitAnswer[]> {
  const { pollUnits: u } = store.t;
  const rows = await store.read((db) =>
    db
      .select({
        region: u.region,
        answeredSeq: u.answeredSeq,
        storedSeq: u.storedSeq,
        lastCycleAt: u.lastCycleAt,
        lastCycleProbes: u.lastCycleProbes,
      })
      .from(u)
      .where(and(eq(u.kind, kind), eq(u.unitId, unitId), inArray(u.region, [...regions]))),
  );
  return rows.map((r) => ({
    ...r,
    answeredSeq: Number(r.answeredSeq),
    storedSeq: Number(r.storedSeq),
    lastCycleProbes: Number(r.lastCycleProbes),
  }));
}

/** Whether an ask waits on a unit of the region that nobody holds: the claim loop then looks at once. */
export async function hasAskedUnits(store: Store, region: string, now: number): Promise<boolean> {
  const rows = await store.read(() =>
    selectRows<{ one: unknown }>(
      store,
      sql`SELECT 1 AS one FROM poll_units
          WHERE region = ${region} AND requested_seq > answered_seq AND expires_at <= ${clock(store, now)}
          LIMIT 1`,
    ),
  );
  return rows.length > 0;
}

/** Hands back every unit `holder` still holds, keeping their due times (another worker takes them at once). */
export async function releaseAllUnits(store: Store, holder: string): Promise<number> {
  const { pollUnits: u } = store.t;
  const rows = await store.write((tx) =>
    tx.update(u).set({ expiresAt: 0 }).where(eq(u.holder, holder)).returning({ unitId: u.unitId }),
  );
  return rows.length;
}

/**
 * Inside the write transaction `_tx` (its statement joins it): true while `unit` is still held with `token`, so the caller's writes may go
 * ahead. On PostgreSQL the row is locked until the transaction ends, so no take-over can commit in between.
 * With `ttlMs` (just before commit) the lease is extended to `ttlMs` past the statement's own time: renewals
 * pass by the locked row, so a write that ran long would otherwise commit with its lease lapsed. Only then,
 * since a row updated by an open transaction makes other writers' conflict checks on it wait.
 */
export async function unitFenceHolds(
  store: Store,
  _tx: Db,
  unit: UnitRef & { token: number; requestedSeq?: number },
  region: string,
  holder: string,
  ttlMs?: number,
): Promise<boolean> {
  const match = sql`kind = ${unit.kind} AND unit_id = ${unit.unitId} AND region = ${region}
          AND holder = ${holder} AND token = ${unit.token}`;
  // Just before commit the asks seen at the claim are marked stored, in the same transaction as the results.
  const seq = unit.requestedSeq ?? 0;
  const stored = sql`stored_seq = CASE WHEN stored_seq > ${seq} THEN stored_seq ELSE ${seq} END`;
  let query = sql`SELECT token FROM poll_units WHERE ${match}`;
  if (store.engine === 'postgres')
    query =
      ttlMs === undefined
        ? sql`${query} FOR UPDATE`
        : // clock_timestamp(), not now(): the transaction may have started long before this statement.
          sql`UPDATE poll_units
            SET expires_at = GREATEST(expires_at, CAST(floor(extract(epoch from clock_timestamp()) * 1000) AS bigint) + ${ttlMs}),
                ${stored}
            WHERE ${match} RETURNING token`;
  else if (ttlMs !== undefined) query = sql`UPDATE poll_units SET ${stored} WHERE ${match} RETURNING token`;
  const rows = await selectRows<{ token: unknown }>(store, query);
  return rows.length === 1;
}

export interface UnitRow extends UnitRef {
  region: string;
  holder: string | null;
  pid: number | null;
  token: number;
  expiresAt: number;
  dueAt: number;
  lastCycleAt: number | null;
}

export async function listUnits(store: Store, region?: string): Promise<UnitRow[]> {
  const { pollUnits: u } = store.t;
  return store.read((db) =>
    db
      .select({
        kind: u.kind,
        unitId: u.unitId,
        region: u.region,
        holder: u.holder,
        pid: u.pid,
        token: u.token,
        expiresAt: u.expiresAt,
        dueAt: u.dueAt,
        lastCycleAt: u.lastCycleAt,
      })
      .from(u)
      .where(region === undefined ? undefined : eq(u.region, region)),
  );
}

// ---- Poll workers: who runs the poll role, where ----

export interface PollWorker {
  holder: string;
  region: string;
  pid: number;
  hostname: string;
  startedAt: number;
  expiresAt: number;
  unitsHeld: number;
  lastCycleAt: number | null;
}

/** Records (or renews) this worker's presence; its row expires `ttlMs` after the store's time now. */
export async function heartbeatPollWorker(
  store: Store,
  me: UnitClaimant,
  ttlMs: number,
  now: number,
  unitsHeld: number,
  lastCycleAt: number | null,
): Promise<void> {
  const { pollWorkers: w } = store.t;
  await store.lease(async (tx) => {
    const at = await storeNow(store, now);
    await tx
      .insert(w)
      .values({
        holder: me.holder,
        region: me.region,
        pid: me.pid,
        hostname: me.hostname,
        startedAt: at,
        expiresAt: at + ttlMs,
        unitsHeld,
        lastCycleAt,
      })
      .onConflictDoUpdate({
        target: w.holder,
        set: {
          expiresAt: at + ttlMs,
          unitsHeld,
          ...(lastCycleAt !== null ? { lastCycleAt } : {}),
        },
      });
  });
}

export async function removePollWorker(store: Store, holder: string): Promise<void> {
  const { pollWorkers: w } = store.t;
  await store.write((tx) => tx.delete(w).where(eq(w.holder, holder)));
}

/** Poll workers whose presence has not expired, by region then holder. */
export async function listPollWorkers(store: Store, now: number): Promise<PollWorker[]> {
  const { pollWorkers: w } = store.t;
  // One statement: the store's clock decides what is live (see db/clock.ts).
  const rows = await store.read((db) =>
    db
      .select()
      .from(w)
      .where(gt(w.expiresAt, storeClockSql(store, now))),
  );
  return rows.sort((a, b) => a.region.localeCompare(b.region) || a.holder.localeCompare(b.holder));
}

/**
 * At process exit, where nothing can be awaited: hands back this holder's units and presence synchronously on
 * SQLite. Other engines cannot; their leases expire on their own. Never throws.
 */
export function releaseUnitsAtExit(store: Store, holder: string): void {
  if (store.engine !== 'sqlite') return;
  try {
    sqliteReleaseUnitsNow(store.sqlite, holder);
  } catch {
    // The database may already be closed; the leases then expire on their own.
  }
}
