// A balancer's node rows, filtered, sorted and paged: one query schema for the dashboard's matrix
// (GET /dashboard-data/balancers/{id}/nodes) and the API (GET /api/v1/balancers/{id}/nodes), and the pure
// steps both answer with. The store reads a balancer's nodes once; what a screen or a script asks for is cut
// here, so the two can never disagree on what a filter selects or where a page ends. Client-safe.
import { z } from 'zod';
import { ValidationError } from '@/lib/errors';
import type { AVAILABILITIES } from '@/lib/probe/types';
import { CLIENT_ERAS, SERVED_ERAS } from '@/lib/probe/types';
import { NodeSummaryView } from './dashboard';
import { NODE_ORDERS, NODE_SORTS, NodeFilter, oneOf, type NodeSort } from './node-filter';

export { NODE_ORDERS, NODE_SORTS, NodeFilter, type NodeSort } from './node-filter';

export const NODE_LIMIT_DEFAULT = 100;
export const NODE_LIMIT_MAX = 1000;

export const NodeListQuery = NodeFilter.extend({
  sort: oneOf(NODE_SORTS)
    .default('name')
    .meta({ description: 'ties by node id, then region: the order is stable between reads' }),
  order: oneOf(NODE_ORDERS).default('asc'),
  limit: z.coerce
    .number({ error: 'must be an integer' })
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(NODE_LIMIT_MAX, `must be at most ${NODE_LIMIT_MAX}`)
    .default(NODE_LIMIT_DEFAULT),
  cursor: z
    .string()
    .max(400)
    .regex(/^[A-Za-z0-9_-]+$/, 'is not a cursor this API issued')
    .optional()
    .meta({ description: 'nextCursor of the previous page (opaque)' }),
});
export type NodeListQuery = z.output<typeof NodeListQuery>;

/** One row of the matrix: a node (per region that probed it) without evidence, with its group. */
export const NodeRowView = NodeSummaryView.extend({
  groupKey: z
    .string()
    .nullable()
    .meta({ description: 'the fingerprint key of the row’s group; null while unavailable or not probed' }),
}).meta({ id: 'NodeRow' });
export type NodeRow = z.output<typeof NodeRowView>;

/** A page of rows: `matched` rows pass the filters, `total` rows there are before them. */
export function nodePageOf<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    matched: z.int().meta({ description: 'rows that pass the filters, over every page' }),
    total: z.int().meta({ description: 'rows before the filters' }),
    nextCursor: z.string().nullable(),
  });
}

/** What a row is filtered and sorted by; the store derives it from a node and one region's state. */
export interface NodeFacts {
  nodeId: string;
  /** The display name (the name, else the label a screen shows). */
  name: string;
  url: string;
  address: string | null;
  region: string;
  clientEra: (typeof CLIENT_ERAS)[number] | null;
  served: (typeof SERVED_ERAS)[number] | null;
  groupKey: string | null;
  availability: (typeof AVAILABILITIES)[number] | null;
  /** The revisions it serves (null: not probed). */
  supported: readonly string[] | null;
  probedAt: number | null;
  latencyMs: number | null;
}

/** Whether a row passes every filter given. */
export function matchesNodeFilter(f: NodeFacts, filter: NodeFilter): boolean {
  if (filter.q !== undefined) {
    const q = filter.q.toLowerCase();
    const hay = [f.name, f.url, f.address ?? ''];
    if (!hay.some((s) => s.toLowerCase().includes(q))) return false;
  }
  if (filter.group !== undefined && f.groupKey !== filter.group) return false;
  if (filter.clientEra !== undefined && f.clientEra !== filter.clientEra) return false;
  if (filter.served !== undefined && f.served !== filter.served) return false;
  if (filter.region !== undefined && f.region !== filter.region) return false;
  if (filter.availability !== undefined && f.availability !== filter.availability) return false;
  if (filter.lacks !== undefined) {
    if (f.availability !== 'available' || f.supported === null) return false;
    if (f.supported.includes(filter.lacks)) return false;
  }
  return true;
}

type SortValue = string | number | null;

function sortValue(f: NodeFacts, sort: NodeSort): SortValue {
  switch (sort) {
    case 'name':
      return f.name.toLowerCase();
    case 'url':
      return f.url;
    case 'clientEra':
      return f.clientEra === null ? null : CLIENT_ERAS.indexOf(f.clientEra);
    case 'served':
      return f.served === null ? null : SERVED_ERAS.indexOf(f.served);
    case 'group':
      return f.groupKey;
    case 'region':
      return f.region;
    case 'probedAt':
      return f.probedAt;
    case 'latency':
      return f.latencyMs;
  }
}

/** Nulls (not probed, no group) sort after every value, in either order. */
function compareValues(a: SortValue, b: SortValue, desc: boolean): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  const c = a < b ? -1 : 1;
  return desc ? -c : c;
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A row's place: its sort value, then node id and region ascending, so equal values keep one order. */
interface Position {
  v: SortValue;
  i: string;
  r: string;
}

function comparePositions(a: Position, b: Position, desc: boolean): number {
  return compareValues(a.v, b.v, desc) || byText(a.i, b.i) || byText(a.r, b.r);
}

interface CursorBody {
  s: NodeSort;
  o: 'asc' | 'desc';
  i: string;
  r: string;
  /** The sort value; absent when too long for a cursor (the row is then found by its id). */
  v?: SortValue;
}

/** The longest cursor a request may carry (lib/api/route.ts checks every cursor's shape). */
const MAX_CURSOR = 400;

function toBase64Url(text: string): string {
  let bin = '';
  for (const byte of new TextEncoder().encode(text)) bin += String.fromCharCode(byte);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): string {
  const bin = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

function encodeCursor(at: Position, sort: NodeSort, order: 'asc' | 'desc'): string {
  const full = toBase64Url(JSON.stringify({ s: sort, o: order, i: at.i, r: at.r, v: at.v }));
  return full.length <= MAX_CURSOR
    ? full
    : toBase64Url(JSON.stringify({ s: sort, o: order, i: at.i, r: at.r }));
}

function badCursor(message = 'is not a cursor this API issued'): ValidationError {
  return new ValidationError([{ path: 'cursor', message }]);
}

function decodeCursor(cursor: string, sort: NodeSort, order: 'asc' | 'desc'): CursorBody {
  let body: unknown;
  try {
    body = JSON.parse(fromBase64Url(cursor));
  } catch {
    throw badCursor();
  }
  const b = body as Partial<CursorBody> | null;
  const valueOk =
    b !== null && (b.v === undefined || b.v === null || typeof b.v === 'string' || typeof b.v === 'number');
  if (!valueOk || typeof b.i !== 'string' || typeof b.r !== 'string') throw badCursor();
  if (b.s !== sort || b.o !== order)
    throw badCursor('belongs to another sort order: start again without a cursor');
  return b as CursorBody;
}

/** Where the page after `after` starts among the sorted rows. */
function startAfter(matched: ReadonlyArray<{ at: Position }>, after: CursorBody, desc: boolean): number {
  if (after.v === undefined) {
    const i = matched.findIndex((m) => m.at.i === after.i && m.at.r === after.r);
    if (i < 0) throw badCursor('the row it continues from is gone: start again without a cursor');
    return i + 1;
  }
  const from = { v: after.v, i: after.i, r: after.r };
  const i = matched.findIndex((m) => comparePositions(m.at, from, desc) > 0);
  return i < 0 ? matched.length : i;
}

export interface NodePage<T> {
  items: T[];
  matched: number;
  total: number;
  nextCursor: string | null;
}

/**
 * The page `query` asks for out of every row of a balancer: filtered, sorted (ties by node id, then region),
 * and cut after the cursor's row. A cursor names the last row's place, not an offset, so rows that come or go
 * between two reads never repeat or skip one. Throws ValidationError (a 400) for a cursor it did not issue.
 */
export function pageNodeRows<T>(
  rows: ReadonlyArray<{ row: T; facts: NodeFacts }>,
  query: NodeListQuery,
): NodePage<T> {
  const desc = query.order === 'desc';
  const matched = rows
    .filter((r) => matchesNodeFilter(r.facts, query))
    .map((r) => ({
      row: r.row,
      at: { v: sortValue(r.facts, query.sort), i: r.facts.nodeId, r: r.facts.region },
    }))
    .sort((a, b) => comparePositions(a.at, b.at, desc));
  const from =
    query.cursor === undefined
      ? 0
      : startAfter(matched, decodeCursor(query.cursor, query.sort, query.order), desc);
  const page = matched.slice(from, from + query.limit);
  const last = page[page.length - 1];
  const more = from + page.length < matched.length && last !== undefined;
  return {
    items: page.map((m) => m.row),
    matched: matched.length,
    total: rows.length,
    nextCursor: more ? encodeCursor(last.at, query.sort, query.order) : null,
  };
}
