import { and, asc, eq, gte, inArray, lt, or, sql } from 'drizzle-orm';
import { NotFoundError, ValidationError } from '@/lib/errors';
import { availabilityOf, CLIENT_ERAS } from '@/lib/probe/types';
import { nodeLabel } from '@/lib/schemas/node-label';
import { pageNodeRows, type NodeFacts, type NodeListQuery, type NodePage } from '@/lib/schemas/node-query';
import type { z } from 'zod';
import type { NodeHistoryEntry, NodeState, NodeWithState, RollupEntry } from '@/lib/schemas/balancer-view';
import { selectRows, type Store } from '../index';
import { formatHistogram, mergeHistograms, parseHistogram, quantileMs } from '../histogram';
import {
  firstKeyOfHour,
  HOUR_MS,
  hourOf,
  MINUTE_MS,
  MINUTE_SLOTS,
  minuteOf,
  minuteRingStart,
  rollupKey,
  splitRollupKey,
} from '../rollup-key';
import { listRegionIds } from './regions';
import { clampLimit } from './balancers';
import type { SubjectStateRow, SubjectTickRow } from '../schema';
import { readSubjectHistory, subjectStateOf, ticksJoin, withTicks, type SubjectStateView } from './subjects';

// The result shapes are the API's (lib/schemas), so the store and the contract cannot drift apart.
export type { NodeState, NodeWithState } from '@/lib/schemas/balancer-view';

function toState(row: SubjectStateView | null): NodeState | null {
  const s = subjectStateOf(row);
  if (!s) return null;
  // The last available fingerprint is the poller's bookkeeping, not part of the node's state.
  const { lastAvailableKey: _k, ...rest } = s;
  // The stored JSON may be from an earlier probe with the same answer; the timing columns are the latest.
  return {
    ...rest,
    availability: availabilityOf(rest.verdict),
    clientEra: CLIENT_ERAS.find((e) => e === s.clientEra) ?? rest.verdict.verdict,
    verdict: { ...rest.verdict, probedAt: s.probedAt, durationMs: s.durationMs },
  };
}

type NodeRow = Omit<NodeWithState, 'state' | 'regions'>;
type StateRowOf = SubjectStateRow | null;
type TickRowOf = SubjectTickRow | null;

/**
 * Rows of (node, its state in one region) folded into one node each: `state` is the latest of any region,
 * with its region, and `regions` lists each region's when more than one region or a named one probed it.
 */
function foldRegions(rows: Array<{ n: NodeRow; s: StateRowOf; k: TickRowOf }>): NodeWithState[] {
  const byId = new Map<string, { n: NodeRow; states: SubjectStateView[] }>();
  for (const row of rows) {
    // The rollup sequence number is the store's own key, not part of the node.
    const { seq: _seq, ...n } = row.n as NodeRow & { seq?: number | null };
    const s = withTicks(row.s, row.k);
    const entry = byId.get(n.id) ?? { n, states: [] };
    if (s) entry.states.push(s);
    byId.set(n.id, entry);
  }
  return Array.from(byId, ([, { n, states }]) => {
    const latest = states.reduce<SubjectStateView | null>(
      (a, b) => (a && a.probedAt >= b.probedAt ? a : b),
      null,
    );
    const state = toState(latest);
    const regional = states.length > 1 || states.some((s) => s.region !== 'default');
    const regions = [...states]
      .sort((a, b) => (a.region < b.region ? -1 : a.region > b.region ? 1 : 0))
      .flatMap((s) => {
        const one = toState(s);
        return one ? [{ ...one, region: s.region }] : [];
      });
    return {
      ...n,
      state: state && latest ? { ...state, region: latest.region } : state,
      ...(regional ? { regions } : {}),
    };
  });
}

/** Every node of a balancer (listed, DNS and sample-attributed), with its state from every region. */
export async function listNodes(store: Store, balancerId: string): Promise<NodeWithState[]> {
  const { balancers, nodes, subjectStates, subjectTicks } = store.t;
  const [exists] = await store.read((db) =>
    db.select({ id: balancers.id }).from(balancers).where(eq(balancers.id, balancerId)),
  );
  if (!exists) throw new NotFoundError('balancer', balancerId);
  return foldRegions(
    await store.read((db) =>
      db
        .select({ n: nodes, s: subjectStates, k: subjectTicks })
        .from(nodes)
        .leftJoin(subjectStates, eq(subjectStates.subjectId, nodes.id))
        .leftJoin(subjectTicks, ticksJoin(store))
        .where(eq(nodes.balancerId, balancerId))
        .orderBy(asc(nodes.key), asc(subjectStates.region)),
    ),
  );
}

/** What a node's row is filtered and sorted by, from one of its states (null: not probed). */
export function nodeFactsOf(n: NodeWithState, st: NodeState | null): NodeFacts {
  const available = st !== null && st.availability === 'available' && st.fingerprintKey !== 'unavailable';
  return {
    nodeId: n.id,
    name: nodeLabel(n),
    url: n.url,
    address: n.address,
    region: st?.region ?? 'default',
    clientEra: st?.clientEra ?? null,
    served: st?.verdict.servedEras ?? null,
    groupKey: available ? st.fingerprintKey : null,
    availability: st?.availability ?? null,
    supported: st?.verdict.supported ?? null,
    probedAt: st?.probedAt ?? null,
    latencyMs: st?.verdict.durationMs ?? null,
  };
}

/**
 * A page of a balancer's nodes (`query`: filters, sort, cursor, limit). A node is one item, filtered and
 * sorted by its latest verdict, or by the verdict of the region the query names.
 */
export async function listNodePage(
  store: Store,
  balancerId: string,
  query: NodeListQuery,
): Promise<NodePage<NodeWithState>> {
  const nodes = await listNodes(store, balancerId);
  const rows = nodes.map((n) => {
    const st =
      query.region === undefined
        ? n.state
        : ((n.regions ?? []).find((r) => r.region === query.region) ??
          (n.state?.region === query.region ? n.state : null));
    const facts = nodeFactsOf(n, st);
    // A node the named region never probed is no row of that region.
    return { row: n, facts: st === null && query.region !== undefined ? { ...facts, region: '' } : facts };
  });
  return pageNodeRows(rows, query);
}

/** One node with its current verdict and evidence, from every region that probed it. */
export async function getNode(store: Store, nodeId: string): Promise<NodeWithState> {
  const { nodes, subjectStates, subjectTicks } = store.t;
  const [node] = foldRegions(
    await store.read((db) =>
      db
        .select({ n: nodes, s: subjectStates, k: subjectTicks })
        .from(nodes)
        .leftJoin(subjectStates, eq(subjectStates.subjectId, nodes.id))
        .leftJoin(subjectTicks, ticksJoin(store))
        .where(eq(nodes.id, nodeId)),
    ),
  );
  if (!node) throw new NotFoundError('node', nodeId);
  return node;
}

/** Fingerprint spans of a node, newest first; the open span has `endedAt` null. */
export async function getNodeHistory(
  store: Store,
  nodeId: string,
  opts: { limit?: number } = {},
): Promise<z.output<typeof NodeHistoryEntry>[]> {
  const limit = clampLimit(opts.limit, 100, 1000);
  await getNode(store, nodeId);
  return (await readSubjectHistory(store, nodeId, limit, null)).map((span) => ({ ...span, nodeId }));
}

export type Rollup = z.output<typeof RollupEntry> & {
  /** The sparse histogram ("bucket:count,..."), for callers that merge further. */
  latency: string;
};

export type RollupQuery = (
  { nodeId: string; balancerId?: undefined } | { balancerId: string; nodeId?: undefined }
) & {
  since: number;
  /** One region's rollups; every region's merged when unset. */
  region?: string;
};

/** At most this many hours are read per query (about 13 months). */
const MAX_ROLLUP_HOURS = 24 * 400;
/** Above this many keys a balancer query scans the hours' ranges instead of looking keys up. */
const MAX_LOOKUP_KEYS = 100_000;

export interface RollupRow {
  key: number;
  probes: number;
  failures: number;
  latency: string;
}

function toRollup(hour: number, probes: number, failures: number, h: Map<number, number>): Rollup {
  return {
    hourStart: hour * HOUR_MS,
    probes,
    failures,
    p50Ms: quantileMs(h, 0.5),
    p95Ms: quantileMs(h, 0.95),
    latency: formatHistogram(h),
  };
}

export async function readRollups(
  store: Store,
  regionIds: number[],
  seqs: number[],
  firstHour: number,
  lastHour: number,
): Promise<RollupRow[]> {
  if (seqs.length === 0 || lastHour < firstHour || regionIds.length === 0) return [];
  const { nodeRollups: r } = store.t;
  const cols = { key: r.key, probes: r.probes, failures: r.failures, latency: r.latency };
  const hours = lastHour - firstHour + 1;
  if (seqs.length * hours * regionIds.length <= MAX_LOOKUP_KEYS) {
    const keys: number[] = [];
    for (const region of regionIds)
      for (let h = firstHour; h <= lastHour; h++)
        for (const seq of seqs) keys.push(rollupKey(h, seq, region));
    const out: RollupRow[] = [];
    // Chunks keep each statement under the engines' bound-parameter limits.
    for (let i = 0; i < keys.length; i += 500) {
      const chunk = keys.slice(i, i + 500);
      out.push(...(await store.read((db) => db.select(cols).from(r).where(inArray(r.key, chunk)))));
    }
    return out;
  }
  const wanted = new Set(seqs);
  const out: RollupRow[] = [];
  // Within a region the key is hour-major: one range scan per region.
  for (const region of regionIds) {
    const rows = await store.read((db) =>
      db
        .select(cols)
        .from(r)
        .where(
          and(gte(r.key, firstKeyOfHour(firstHour, region)), lt(r.key, firstKeyOfHour(lastHour + 1, region))),
        ),
    );
    out.push(...rows.filter((r) => wanted.has(splitRollupKey(r.key).seq)));
  }
  return out;
}

/** Each node's last probed hour per region (its ticks row), keyed `regionId:seq`. */
export async function lastProbedHours(
  store: Store,
  numbered: ReadonlyArray<{ id: string; seq: number | null }>,
  regions: ReadonlyArray<{ id: number; name: string }>,
): Promise<Map<string, number>> {
  const { subjectTicks: k } = store.t;
  const seqOf = new Map(numbered.flatMap((n) => (n.seq === null ? [] : [[n.id, n.seq] as const])));
  const regionOf = new Map(regions.map((r) => [r.name, r.id]));
  const ids = [...seqOf.keys()];
  const out = new Map<string, number>();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const rows = await store.read((db) =>
      db
        .select({ id: k.subjectId, region: k.region, at: k.probedAt })
        .from(k)
        .where(inArray(k.subjectId, chunk)),
    );
    for (const r of rows) {
      const regionId = regionOf.get(r.region);
      const seq = seqOf.get(r.id);
      if (regionId !== undefined && seq !== undefined) out.set(`${regionId}:${seq}`, hourOf(r.at));
    }
  }
  return out;
}

/** Seqs per ring read: each is one key range of the minute ring, in one statement. */
const RING_READ_CHUNK = 200;

/** The minute ring's slots of hours `firstHour` … `lastHour`, summed per node, region and hour (as rollup rows). */
export async function readRingHours(
  store: Store,
  regionIds: number[],
  seqs: number[],
  firstHour: number,
  lastHour: number,
): Promise<RollupRow[]> {
  if (seqs.length === 0 || lastHour < firstHour || regionIds.length === 0) return [];
  const { nodeMinuteRollups: m } = store.t;
  const slots = sql.raw(String(MINUTE_SLOTS));
  const latency =
    store.engine === 'postgres' ? sql`string_agg(latency, ',')` : sql`group_concat(latency, ',')`;
  const out: RollupRow[] = [];
  for (const region of regionIds)
    for (let i = 0; i < seqs.length; i += RING_READ_CHUNK) {
      const ranges = seqs.slice(i, i + RING_READ_CHUNK).map((seq) => {
        const start = minuteRingStart(seq, region);
        return and(gte(m.key, start), lt(m.key, start + MINUTE_SLOTS));
      });
      const rows = await store.read(() =>
        selectRows<{
          ring: number | string;
          hour: number | string;
          probes: number | string;
          failures: number | string;
          latency: string | null;
        }>(
          store,
          sql`SELECT key / ${slots} AS ring, minute / 60 AS hour, sum(probes) AS probes, sum(failures) AS failures,
              ${latency} AS latency
            FROM node_minute_rollups
            WHERE (${or(...ranges)}) AND minute >= ${firstHour * 60} AND minute < ${(lastHour + 1) * 60}
            GROUP BY 1, 2`,
        ),
      );
      for (const r of rows) {
        const ring = Number(r.ring);
        const regionId = Math.floor(ring / 2 ** 24);
        out.push({
          key: rollupKey(Number(r.hour), ring - regionId * 2 ** 24, regionId),
          probes: Number(r.probes),
          failures: Number(r.failures),
          latency: r.latency ?? '',
        });
      }
    }
  return out;
}

/**
 * Hourly rollups of hours starting at or after `since` (epoch ms) up to `now`, oldest first; for a
 * balancer, its nodes merged per hour.
 */
export async function getRollups(
  store: Store,
  query: RollupQuery,
  now: number = Date.now(),
): Promise<Rollup[]> {
  const { balancers, nodes } = store.t;
  if (!Number.isFinite(query.since)) {
    throw new ValidationError([{ path: 'since', message: 'must be epoch milliseconds' }]);
  }
  const lastHour = hourOf(now);
  const firstHour = Math.max(Math.ceil(query.since / HOUR_MS), lastHour - MAX_ROLLUP_HOURS + 1);
  let numbered: Array<{ id: string; seq: number | null }>;
  if (query.nodeId !== undefined) {
    const [row] = await store.read((db) =>
      db.select({ id: nodes.id, seq: nodes.seq }).from(nodes).where(eq(nodes.id, query.nodeId)),
    );
    if (!row) throw new NotFoundError('node', query.nodeId);
    numbered = [row];
  } else {
    const [exists] = await store.read((db) =>
      db.select({ id: balancers.id }).from(balancers).where(eq(balancers.id, query.balancerId)),
    );
    if (!exists) throw new NotFoundError('balancer', query.balancerId);
    numbered = await store.read((db) =>
      db.select({ id: nodes.id, seq: nodes.seq }).from(nodes).where(eq(nodes.balancerId, query.balancerId)),
    );
  }
  const seqs = numbered.flatMap((r) => (r.seq === null ? [] : [r.seq]));
  const byHour = new Map<number, { probes: number; failures: number; h: Map<number, number> }>();
  const regions = (await listRegionIds(store)).filter(
    (r) => query.region === undefined || r.name === query.region,
  );
  const regionIds = regions.map((r) => r.id);
  // An hour is in its row once a node's next probe falls in a later hour (hourToFold), and in the minute ring
  // while the ring still holds its minutes. The ring's last hours, and a node's last probed hour (not folded
  // until the node is probed again), are read from the ring; where a row exists too, whichever counted more
  // probes is the whole hour (the row is the ring's sum when written, and the ring only loses minutes of it
  // after that; a store from before the ring has only rows). Older minutes left in the ring are not read:
  // their hours are in rows, or were pruned.
  const ringFrom = hourOf(now) - (MINUTE_SLOTS / 60 - 1);
  const lastProbed = await lastProbedHours(store, numbered, regions);
  const best = new Map<number, RollupRow>();
  for (const r of await readRollups(store, regionIds, seqs, firstHour, lastHour)) best.set(r.key, r);
  for (const r of await readRingHours(store, regionIds, seqs, firstHour, lastHour)) {
    const { hour, seq, regionId } = splitRollupKey(r.key);
    if (hour < ringFrom && lastProbed.get(`${regionId}:${seq}`) !== hour) continue;
    if (r.probes > (best.get(r.key)?.probes ?? -1)) best.set(r.key, r);
  }
  for (const [, r] of best) {
    const { hour } = splitRollupKey(r.key);
    const acc = byHour.get(hour) ?? { probes: 0, failures: 0, h: new Map<number, number>() };
    acc.probes += r.probes;
    acc.failures += r.failures;
    mergeHistograms(acc.h, parseHistogram(r.latency));
    byHour.set(hour, acc);
  }
  return [...byHour.entries()]
    .sort((x, y) => x[0] - y[0])
    .map(([hour, a]) => toRollup(hour, a.probes, a.failures, a.h));
}

/** One minute of a node's probes, every region merged. */
export interface MinuteRollup {
  minuteStart: number;
  probes: number;
  failures: number;
  p50Ms: number | null;
  p95Ms: number | null;
}

/**
 * A node's minute buckets from `since` up to `now`, oldest first, every region merged; at most the last
 * MINUTE_SLOTS minutes are kept, so an older `since` answers from the ring's start.
 */
export async function getMinuteRollups(
  store: Store,
  nodeId: string,
  since: number,
  now: number = Date.now(),
): Promise<MinuteRollup[]> {
  const { nodes, nodeMinuteRollups: m } = store.t;
  const [row] = await store.read((db) =>
    db.select({ seq: nodes.seq }).from(nodes).where(eq(nodes.id, nodeId)),
  );
  if (!row) throw new NotFoundError('node', nodeId);
  if (row.seq === null) return [];
  const seq = row.seq;
  const first = Math.max(minuteOf(since), minuteOf(now) - MINUTE_SLOTS + 1);
  const last = minuteOf(now);
  const byMinute = new Map<number, { probes: number; failures: number; h: Map<number, number> }>();
  for (const { id } of await listRegionIds(store)) {
    const start = minuteRingStart(seq, id);
    const rows = await store.read((db) =>
      db
        .select()
        .from(m)
        .where(and(gte(m.key, start), lt(m.key, start + MINUTE_SLOTS), gte(m.minute, first))),
    );
    for (const r of rows) {
      if (r.minute > last) continue;
      const acc = byMinute.get(r.minute) ?? { probes: 0, failures: 0, h: new Map<number, number>() };
      acc.probes += r.probes;
      acc.failures += r.failures;
      mergeHistograms(acc.h, parseHistogram(r.latency));
      byMinute.set(r.minute, acc);
    }
  }
  return [...byMinute.entries()]
    .sort((x, y) => x[0] - y[0])
    .map(([minute, a]) => ({
      minuteStart: minute * MINUTE_MS,
      probes: a.probes,
      failures: a.failures,
      p50Ms: quantileMs(a.h, 0.5),
      p95Ms: quantileMs(a.h, 0.95),
    }));
}
