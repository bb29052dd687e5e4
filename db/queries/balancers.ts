import { and, asc, count, eq, gt, gte, inArray, lt, max, min, sql } from 'drizzle-orm';
import type { StoredAnalysisView } from '@/lib/schemas/balancer-analysis';
import { parseStoredAnalysis } from '@/lib/schemas/stored';
import type { z } from 'zod';
import { ConflictError, NotFoundError, ValidationError } from '@/lib/errors';
import type { BalancerSettings } from '@/lib/schemas/balancer';
import type { BalancerListItemView, BalancerView } from '@/lib/schemas/balancer-view';
import { firstRow, type Store } from '../index';
import { newId } from '../ids';
import {
  endKeyOfRegion,
  firstKeyOfHour,
  MINUTE_SLOTS,
  minuteRingStart,
  rollupKey,
  splitRollupKey,
} from '../rollup-key';
import { type BalancerRow } from '../schema';

// The result shapes are the API's (lib/schemas/balancer-view), so the store and the contract cannot drift.
export type Balancer = Omit<z.output<typeof BalancerView>, 'summary'>;
export type BalancerSummary = NonNullable<z.output<typeof BalancerView>['summary']>;
export type BalancerListItem = Balancer & { summary: BalancerSummary | null };

export interface ListBalancersOptions {
  limit?: number;
  cursor?: string | null;
  q?: string | null;
}

export function toBalancer(row: BalancerRow): Balancer {
  return {
    id: row.id,
    name: row.name,
    publicUrl: row.publicUrl,
    nodeUrls: row.nodeUrls,
    resolveDns: row.resolveDns,
    samplesPerCycle: row.samplesPerCycle,
    intervalMs: row.intervalMs,
    timeoutMs: row.timeoutMs,
    legacyProbeTimeoutMs: row.legacyProbeTimeoutMs,
    allowLegacy: row.allowLegacy,
    auditLegacy: row.auditLegacy,
    legacyVersions: row.legacyVersions,
    headers: row.headers,
    attributionHeader: row.attributionHeader,
    catalog: row.catalog,
    catalogEvery: row.catalogEvery,
    auth: row.auth ?? null,
    tlsCa: row.tlsCa ?? null,
    // Stored as a list: empty means every region that has a worker, which the API calls null.
    regions: row.regions.length > 0 ? row.regions : null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

async function assertNameFree(store: Store, name: string, exceptId: string | null): Promise<void> {
  const { balancers } = store.t;
  const [clash] = await store.read((db) =>
    db.select({ id: balancers.id }).from(balancers).where(eq(balancers.name, name)),
  );
  if (clash && clash.id !== exceptId) throw new ConflictError(`a balancer named '${name}' already exists`);
}

/** A balancer's settings as stored: the balancer without its id and times. */
export type StoredBalancerSettings = Omit<Balancer, 'id' | 'createdAt' | 'updatedAt'>;

/** Stores a new balancer with settings validated by its owner (lib/balancers). Duplicate name: ConflictError. */
export async function insertBalancer(
  store: Store,
  settings: BalancerSettings,
  now: number = Date.now(),
): Promise<Balancer> {
  const { balancers } = store.t;
  return store.write(async (tx) => {
    await assertNameFree(store, settings.name, null);
    const row = firstRow(
      await tx
        .insert(balancers)
        .values({
          id: newId('bal'),
          ...settings,
          regions: settings.regions ?? [],
          createdAt: now,
          updatedAt: now,
        })
        .returning(),
    );
    return toBalancer(row);
  });
}

export async function getBalancer(store: Store, id: string): Promise<Balancer> {
  const { balancers } = store.t;
  const [row] = await store.read((db) => db.select().from(balancers).where(eq(balancers.id, id)));
  if (!row) throw new NotFoundError('balancer', id);
  return toBalancer(row);
}

export async function getBalancerByName(store: Store, name: string): Promise<Balancer> {
  const { balancers } = store.t;
  const [row] = await store.read((db) => db.select().from(balancers).where(eq(balancers.name, name)));
  if (!row) throw new NotFoundError('balancer', name);
  return toBalancer(row);
}

export function encodeCursor(value: string): string {
  return Buffer.from(value, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string {
  const value = Buffer.from(cursor, 'base64url').toString('utf8');
  if (value === '' || encodeCursor(value) !== cursor) {
    throw new ValidationError([{ path: 'cursor', message: 'is not a cursor this API issued' }]);
  }
  return value;
}

export function clampLimit(limit: number | undefined, fallback: number, max: number): number {
  if (limit === undefined) return fallback;
  if (!Number.isInteger(limit) || limit < 1 || limit > max) {
    throw new ValidationError([{ path: 'limit', message: `must be an integer from 1 to ${max}` }]);
  }
  return limit;
}

/** Balancers by name, each with its latest analysis summary; `q` matches a substring of the name. */
export async function listBalancers(
  store: Store,
  opts: ListBalancersOptions = {},
): Promise<{ items: BalancerListItem[]; nextCursor: string | null }> {
  const { balancers, balancerStates } = store.t;
  const limit = clampLimit(opts.limit, 50, 500);
  const after = opts.cursor ? decodeCursor(opts.cursor) : null;
  const q = opts.q?.trim() ?? '';
  if (q.length > 100) throw new ValidationError([{ path: 'q', message: 'must be at most 100 characters' }]);
  const pattern = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows = await store.read((db) =>
    db
      // Only the summary columns: the state row's analysis and snapshot JSON are large and the list never reads them.
      .select({
        b: balancers,
        s: {
          status: balancerStates.status,
          severity: balancerStates.severity,
          displayStatus: balancerStates.displayStatus,
          degraded: balancerStates.degraded,
          analyzedAt: balancerStates.analyzedAt,
        },
      })
      .from(balancers)
      .leftJoin(balancerStates, eq(balancerStates.balancerId, balancers.id))
      .where(
        and(
          after === null ? undefined : gt(balancers.name, after),
          q === '' ? undefined : sql`${balancers.name} LIKE ${pattern} ESCAPE '\\'`,
        ),
      )
      .orderBy(asc(balancers.name))
      .limit(limit + 1),
  );
  const page = rows.slice(0, limit);
  const items = page.map(({ b, s }) => ({
    ...toBalancer(b),
    summary: s,
  }));
  const last = page[page.length - 1];
  return { items, nextCursor: rows.length > limit && last ? encodeCursor(last.b.name) : null };
}

/** A list-page item: the settings without node URLs, headers or legacy versions (the full view has them). */
export type BalancerPageItem = z.output<typeof BalancerListItemView> & { summary: BalancerSummary | null };

/** One page of balancers for the API list, by name, each with its latest analysis summary. */
export async function listBalancerPage(
  store: Store,
  opts: ListBalancersOptions = {},
): Promise<{ items: BalancerPageItem[]; nextCursor: string | null }> {
  const limit = clampLimit(opts.limit, 50, 500);
  const after = opts.cursor ? decodeCursor(opts.cursor) : '';
  const q = opts.q?.trim() ?? '';
  if (q.length > 100) throw new ValidationError([{ path: 'q', message: 'must be at most 100 characters' }]);
  const { balancers: b, balancerStates: s } = store.t;
  // The list page is the hottest read: only the columns it shows, and the node count taken in SQL
  // (each engine names its JSON array length function differently) instead of parsing every URL list.
  const nodeUrlCount =
    store.engine === 'sqlite'
      ? sql<number>`json_array_length(${b.nodeUrls})`
      : sql<number>`jsonb_array_length(${b.nodeUrls})`;
  const pattern = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  // Every name is non-empty, so '' as the lower bound and '%%' as the pattern select everything.
  const rows = await store.read((db) =>
    db
      .select({
        id: b.id,
        name: b.name,
        publicUrl: b.publicUrl,
        nodeUrlCount,
        resolveDns: b.resolveDns,
        samplesPerCycle: b.samplesPerCycle,
        intervalMs: b.intervalMs,
        timeoutMs: b.timeoutMs,
        legacyProbeTimeoutMs: b.legacyProbeTimeoutMs,
        allowLegacy: b.allowLegacy,
        auditLegacy: b.auditLegacy,
        attributionHeader: b.attributionHeader,
        catalog: b.catalog,
        catalogEvery: b.catalogEvery,
        regions: b.regions,
        createdAt: b.createdAt,
        updatedAt: b.updatedAt,
        status: s.status,
        severity: s.severity,
        displayStatus: s.displayStatus,
        degraded: s.degraded,
        analyzedAt: s.analyzedAt,
      })
      .from(b)
      .leftJoin(s, eq(s.balancerId, b.id))
      .where(and(gt(b.name, after), sql`${b.name} LIKE ${pattern} ESCAPE '\\'`))
      .orderBy(asc(b.name))
      .limit(limit + 1),
  );
  const items = rows.slice(0, limit).map((r) => {
    const {
      status,
      severity,
      displayStatus,
      degraded,
      analyzedAt,
      nodeUrlCount: count,
      regions,
      ...rest
    } = r;
    return {
      ...rest,
      regions: regions.length > 0 ? regions : null,
      nodeUrlCount: Number(count),
      summary:
        status !== null && displayStatus !== null && analyzedAt !== null
          ? { status, severity, displayStatus, degraded: degraded === true, analyzedAt }
          : null,
    };
  });
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last ? encodeCursor(last.name) : null };
}

/**
 * Replaces a balancer's settings with `next(current)`, in one transaction with the read of the current ones
 * (`next` validates them: lib/balancers). Listed nodes follow the new list: a URL taken off it goes, with its
 * state, history and rollups. Unknown id: NotFoundError; a name another balancer has: ConflictError.
 */
export async function updateBalancerSettings(
  store: Store,
  id: string,
  next: (current: StoredBalancerSettings) => BalancerSettings,
  now: number = Date.now(),
): Promise<Balancer> {
  const { balancers, nodes } = store.t;
  return store.write(async (tx) => {
    const current = await getBalancer(store, id);
    const { id: _id, createdAt: _c, updatedAt: _u, ...settings } = current;
    const merged = next(settings);
    await assertNameFree(store, merged.name, id);
    const keep = new Set(merged.nodeUrls.map((u) => `listed:${u}`));
    const dropped = (
      await tx
        .select({ id: nodes.id, key: nodes.key, seq: nodes.seq })
        .from(nodes)
        .where(and(eq(nodes.balancerId, id), eq(nodes.origin, 'listed')))
    ).filter((n) => !keep.has(n.key));
    await deleteRollupsOf(
      store,
      dropped.flatMap((n) => (n.seq === null ? [] : [n.seq])),
    );
    for (const n of dropped) await tx.delete(nodes).where(eq(nodes.id, n.id));
    const row = firstRow(
      await tx
        .update(balancers)
        .set({ ...merged, regions: merged.regions ?? [], updatedAt: now })
        .where(eq(balancers.id, id))
        .returning(),
    );
    return toBalancer(row);
  });
}

/** Deletes a balancer with its nodes, states, history, rollups, events, windows and analysis. */
export async function deleteBalancer(store: Store, id: string): Promise<void> {
  const { balancers, nodes } = store.t;
  await store.write(async (tx) => {
    // Rollups are keyed by node seq, not by a foreign key: remove them with the nodes.
    const seqs = await tx.select({ seq: nodes.seq }).from(nodes).where(eq(nodes.balancerId, id));
    await deleteRollupsOf(
      store,
      seqs.flatMap((r) => (r.seq === null ? [] : [r.seq])),
    );
    const gone = await tx.delete(balancers).where(eq(balancers.id, id)).returning({ id: balancers.id });
    if (gone.length === 0) throw new NotFoundError('balancer', id);
  });
}

async function deleteRollupsOf(store: Store, seqs: number[]): Promise<void> {
  if (seqs.length === 0) return;
  const { nodeRollups: r, nodeMinuteRollups: m, regions } = store.t;
  await store.write(async (tx) => {
    for (const { id: region } of await tx.select({ id: regions.id }).from(regions)) {
      // Each node's minute ring is one key range.
      for (const seq of seqs) {
        const start = minuteRingStart(seq, region);
        await tx.delete(m).where(and(gte(m.key, start), lt(m.key, start + MINUTE_SLOTS)));
      }
      const inRegion = and(gte(r.key, firstKeyOfHour(0, region)), lt(r.key, endKeyOfRegion(region)));
      const [span] = await tx
        .select({ lo: min(r.key), hi: max(r.key) })
        .from(r)
        .where(inRegion);
      if (span?.lo == null || span.hi == null) continue;
      const keys: number[] = [];
      for (
        let hour = splitRollupKey(Number(span.lo)).hour;
        hour <= splitRollupKey(Number(span.hi)).hour;
        hour++
      ) {
        for (const seq of seqs) keys.push(rollupKey(hour, seq, region));
      }
      // Chunks keep each statement under the engines' bound-parameter limits.
      for (let i = 0; i < keys.length; i += 500)
        await tx.delete(r).where(inArray(r.key, keys.slice(i, i + 500)));
    }
  });
}

/** How many balancers are registered (readiness: an empty fleet has no cycles to be late). */
export async function countBalancers(store: Store): Promise<number> {
  const { balancers: b } = store.t;
  const [row] = await store.read((db) => db.select({ n: count() }).from(b));
  return Number(row?.n ?? 0);
}

/**
 * The latest analysis of one balancer in the API's vocabulary, with since when its status holds (the latest
 * diverged, region split or converged event); null before the first cycle. A stored analysis that does not
 * parse throws StoredDataInvalidError.
 */
export async function readBalancerAnalysis(store: Store, id: string): Promise<StoredAnalysisView | null> {
  const { balancerStates, events } = store.t;
  const state = (
    await store.read((db) =>
      db
        .select({
          status: balancerStates.status,
          severity: balancerStates.severity,
          analysis: balancerStates.analysis,
          analyzedAt: balancerStates.analyzedAt,
        })
        .from(balancerStates)
        .where(eq(balancerStates.balancerId, id)),
    )
  )[0];
  if (!state) return null;
  // Regions that disagree began at their own event; a divergence inside a region at balancer.diverged.
  const type =
    state.status === 'non-uniform'
      ? state.severity === 'region-split'
        ? 'balancer.region_split'
        : 'balancer.diverged'
      : state.status === 'uniform'
        ? 'balancer.converged'
        : null;
  const since =
    type === null
      ? null
      : ((
          await store.read((db) =>
            db
              .select({ at: max(events.at) })
              .from(events)
              .where(and(eq(events.balancerId, id), eq(events.type, type))),
          )
        )[0]?.at ?? null);
  const { balancerRegionStates: rs } = store.t;
  const regionTimes = await store.read((db) =>
    db.select({ region: rs.region, at: rs.analyzedAt }).from(rs).where(eq(rs.balancerId, id)),
  );
  return parseStoredAnalysis(
    state.analysis,
    since,
    state.analyzedAt,
    new Map(regionTimes.map((r) => [r.region, r.at])),
  );
}
