import type { Statement } from 'better-sqlite3';
import { and, asc, eq, gt, max, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { ConflictError, NotFoundError, ValidationError, toFieldIssues } from '@/lib/errors';
import {
  CreateBalancerInput,
  UpdateBalancerInput,
  type BalancerSettings,
  type CreateBalancerInput as CreateBalancerInputType,
  type UpdateBalancerInput as UpdateBalancerInputType,
} from '@/lib/schemas/balancer';
import type { BalancerListItemView, BalancerView } from '@/lib/schemas/balancer-view';
import { writeTransaction, type Store } from '../index';
import { newId } from '../ids';
import { rollupKey, splitRollupKey } from '../rollup-key';
import { balancers, balancerStates, events, nodes, type BalancerRow } from '../schema';

// The result shapes are the API's (lib/schemas/balancer-view), so the store and the contract cannot drift.
export type Balancer = Omit<z.output<typeof BalancerView>, 'summary'>;
export type BalancerSummary = NonNullable<z.output<typeof BalancerView>['summary']>;
export type BalancerListItem = Balancer & { summary: BalancerSummary | null };

export interface ListBalancersOptions {
  limit?: number;
  cursor?: string | null;
  q?: string | null;
}

function toBalancer(row: BalancerRow): Balancer {
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
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function parseSettings(input: unknown): BalancerSettings {
  const parsed = CreateBalancerInput.safeParse(input);
  if (!parsed.success) throw new ValidationError(toFieldIssues(parsed.error.issues));
  return parsed.data;
}

function assertNameFree(store: Store, name: string, exceptId: string | null): void {
  const clash = store.db.select({ id: balancers.id }).from(balancers).where(eq(balancers.name, name)).get();
  if (clash && clash.id !== exceptId) throw new ConflictError(`a balancer named '${name}' already exists`);
}

/** Validates and stores a new balancer. Duplicate name: ConflictError; bad input: ValidationError. */
export function createBalancer(
  store: Store,
  input: CreateBalancerInputType,
  now: number = Date.now(),
): Balancer {
  const settings = parseSettings(input);
  return writeTransaction(store, (tx) => {
    assertNameFree(store, settings.name, null);
    const row = tx
      .insert(balancers)
      .values({ id: newId('bal'), ...settings, createdAt: now, updatedAt: now })
      .returning()
      .get();
    return toBalancer(row);
  });
}

export function getBalancer(store: Store, id: string): Balancer {
  const row = store.db.select().from(balancers).where(eq(balancers.id, id)).get();
  if (!row) throw new NotFoundError('balancer', id);
  return toBalancer(row);
}

export function getBalancerByName(store: Store, name: string): Balancer {
  const row = store.db.select().from(balancers).where(eq(balancers.name, name)).get();
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
export function listBalancers(
  store: Store,
  opts: ListBalancersOptions = {},
): { items: BalancerListItem[]; nextCursor: string | null } {
  const limit = clampLimit(opts.limit, 50, 500);
  const after = opts.cursor ? decodeCursor(opts.cursor) : null;
  const q = opts.q?.trim() ?? '';
  if (q.length > 100) throw new ValidationError([{ path: 'q', message: 'must be at most 100 characters' }]);
  const pattern = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows = store.db
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
    .limit(limit + 1)
    .all();
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

interface PageRow {
  id: string;
  name: string;
  publicUrl: string;
  nodeUrlCount: number;
  resolveDns: number;
  samplesPerCycle: number;
  intervalMs: number;
  timeoutMs: number;
  legacyProbeTimeoutMs: number;
  allowLegacy: number;
  auditLegacy: number;
  attributionHeader: string | null;
  catalog: number;
  catalogEvery: number;
  createdAt: number;
  updatedAt: number;
  status: string | null;
  severity: string | null;
  displayStatus: string | null;
  degraded: number | null;
  analyzedAt: number | null;
}

// The API's list page is the hottest read: one statement prepared per store, only the columns the page
// shows, and the node count taken in SQL instead of parsing every node URL list.
const pageStatements = new WeakMap<Store, Statement<[string, string, number], PageRow>>();
function pageStatement(store: Store): Statement<[string, string, number], PageRow> {
  let stmt = pageStatements.get(store);
  if (!stmt) {
    stmt = store.sqlite.prepare<[string, string, number], PageRow>(
      `SELECT b.id, b.name, b.public_url AS publicUrl, json_array_length(b.node_urls) AS nodeUrlCount,
        b.resolve_dns AS resolveDns, b.samples_per_cycle AS samplesPerCycle, b.interval_ms AS intervalMs,
        b.timeout_ms AS timeoutMs, b.legacy_probe_timeout_ms AS legacyProbeTimeoutMs,
        b.allow_legacy AS allowLegacy, b.audit_legacy AS auditLegacy, b.attribution_header AS attributionHeader,
        b.catalog, b.catalog_every AS catalogEvery, b.created_at AS createdAt, b.updated_at AS updatedAt, s.status, s.severity,
        s.display_status AS displayStatus, s.degraded, s.analyzed_at AS analyzedAt
      FROM balancers b LEFT JOIN balancer_states s ON s.balancer_id = b.id
      WHERE b.name > ? AND b.name LIKE ? ESCAPE '\\'
      ORDER BY b.name LIMIT ?`,
    );
    pageStatements.set(store, stmt);
  }
  return stmt;
}

/** One page of balancers for the API list, by name, each with its latest analysis summary. */
export function listBalancerPage(
  store: Store,
  opts: ListBalancersOptions = {},
): { items: BalancerPageItem[]; nextCursor: string | null } {
  const limit = clampLimit(opts.limit, 50, 500);
  const after = opts.cursor ? decodeCursor(opts.cursor) : '';
  const q = opts.q?.trim() ?? '';
  if (q.length > 100) throw new ValidationError([{ path: 'q', message: 'must be at most 100 characters' }]);
  // Every name is non-empty, so '' as the lower bound and '%%' as the pattern select everything.
  const rows = pageStatement(store).all(after, `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`, limit + 1);
  const items = rows.slice(0, limit).map((r) => ({
    id: r.id,
    name: r.name,
    publicUrl: r.publicUrl,
    nodeUrlCount: r.nodeUrlCount,
    resolveDns: r.resolveDns === 1,
    samplesPerCycle: r.samplesPerCycle,
    intervalMs: r.intervalMs,
    timeoutMs: r.timeoutMs,
    legacyProbeTimeoutMs: r.legacyProbeTimeoutMs,
    allowLegacy: r.allowLegacy === 1,
    auditLegacy: r.auditLegacy === 1,
    attributionHeader: r.attributionHeader,
    catalog: r.catalog === 1,
    catalogEvery: r.catalogEvery,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    summary:
      r.status !== null && r.displayStatus !== null && r.analyzedAt !== null
        ? {
            status: r.status,
            severity: r.severity,
            displayStatus: r.displayStatus,
            degraded: r.degraded === 1,
            analyzedAt: r.analyzedAt,
          }
        : null,
  }));
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last ? encodeCursor(last.name) : null };
}

/** Applies the fields present in `patch`; the merged settings are validated as a whole. */
export function updateBalancer(
  store: Store,
  id: string,
  patch: UpdateBalancerInputType,
  now: number = Date.now(),
): Balancer {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
    throw new ValidationError([{ path: '', message: 'must be an object' }]);
  }
  const parsed = UpdateBalancerInput.safeParse(patch);
  if (!parsed.success) throw new ValidationError(toFieldIssues(parsed.error.issues));
  // zod applies defaults inside partial(): keep only the keys the caller actually sent.
  const sent = new Set(Object.keys(patch));
  const changes = Object.fromEntries(Object.entries(parsed.data).filter(([k]) => sent.has(k)));
  return writeTransaction(store, (tx) => {
    const current = getBalancer(store, id);
    const { id: _id, createdAt: _c, updatedAt: _u, ...settings } = current;
    const merged = parseSettings({ ...settings, ...changes });
    assertNameFree(store, merged.name, id);
    // Listed nodes follow the configured list: a URL taken off it goes, with its state and history.
    const keep = new Set(merged.nodeUrls.map((u) => `listed:${u}`));
    const dropped = tx
      .select({ id: nodes.id, key: nodes.key, seq: nodes.seq })
      .from(nodes)
      .where(and(eq(nodes.balancerId, id), eq(nodes.origin, 'listed')))
      .all()
      .filter((n) => !keep.has(n.key));
    deleteRollupsOf(
      store,
      dropped.flatMap((n) => (n.seq === null ? [] : [n.seq])),
    );
    for (const n of dropped) tx.delete(nodes).where(eq(nodes.id, n.id)).run();
    const row = tx
      .update(balancers)
      .set({ ...merged, updatedAt: now })
      .where(eq(balancers.id, id))
      .returning()
      .get();
    return toBalancer(row);
  });
}

/** Deletes a balancer with its nodes, states, history, rollups, events, windows and analysis. */
export function deleteBalancer(store: Store, id: string): void {
  writeTransaction(store, (tx) => {
    // Rollups are keyed by node seq, not by a foreign key: remove them with the nodes.
    const seqs = tx.select({ seq: nodes.seq }).from(nodes).where(eq(nodes.balancerId, id)).all();
    deleteRollupsOf(
      store,
      seqs.flatMap((r) => (r.seq === null ? [] : [r.seq])),
    );
    const res = tx.delete(balancers).where(eq(balancers.id, id)).run();
    if (res.changes === 0) throw new NotFoundError('balancer', id);
  });
}

function deleteRollupsOf(store: Store, seqs: number[]): void {
  if (seqs.length === 0) return;
  const span = store.sqlite.prepare('SELECT min(key) AS lo, max(key) AS hi FROM node_rollups').get() as {
    lo: number | null;
    hi: number | null;
  };
  if (span.lo === null || span.hi === null) return;
  const del = store.sqlite.prepare('DELETE FROM node_rollups WHERE key = ?');
  for (let hour = splitRollupKey(span.lo).hour; hour <= splitRollupKey(span.hi).hour; hour++) {
    for (const seq of seqs) del.run(rollupKey(hour, seq));
  }
}

/** How many balancers are registered (readiness: an empty fleet has no cycles to be late). */
export function countBalancers(store: Store): number {
  return (store.sqlite.prepare('SELECT count(*) AS n FROM balancers').get() as { n: number }).n;
}

export interface StoredBalancerAnalysis {
  /** The analysis JSON the poller stored (without the snapshot), in the shape it wrote. */
  analysis: unknown;
  /** When the current state began: the latest diverged (non-uniform) or converged (uniform) event. */
  since: number | null;
}

/** The latest analysis of one balancer and since when its state holds; null before the first cycle. */
export function readBalancerAnalysis(store: Store, id: string): StoredBalancerAnalysis | null {
  const state = store.db
    .select({ status: balancerStates.status, analysis: balancerStates.analysis })
    .from(balancerStates)
    .where(eq(balancerStates.balancerId, id))
    .get();
  if (!state) return null;
  const type =
    state.status === 'non-uniform'
      ? 'balancer.diverged'
      : state.status === 'uniform'
        ? 'balancer.converged'
        : null;
  const since =
    type === null
      ? null
      : (store.db
          .select({ at: max(events.at) })
          .from(events)
          .where(and(eq(events.balancerId, id), eq(events.type, type)))
          .get()?.at ?? null);
  return { analysis: state.analysis, since };
}
