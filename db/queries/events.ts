import { and, asc, desc, eq, gt, gte, lt, max } from 'drizzle-orm';
import { ValidationError, type FieldIssue } from '@/lib/errors';
import type { Event } from '@/lib/schemas/event';
import { firstRow, type Store } from '../index';
import { newId } from '../ids';
import { EVENT_TYPES, type EventRow, type EventType } from '../schema';
import { clampLimit, encodeCursor } from './balancers';
import { enqueueDeliveries } from './webhooks';

export interface EventDraft {
  type: EventType;
  balancerId: string;
  nodeId?: string | null;
  /** Epoch ms of the transition. */
  at: number;
  data?: Record<string, unknown>;
}

/** An event as the API serves it (lib/schemas/event), with its insertion order. */
export type StoredEvent = Event & { seq: number };

function toEvent(r: EventRow): StoredEvent {
  return { ...r, type: r.type as EventType };
}

function validateDraft(d: EventDraft, i: number): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (!(EVENT_TYPES as readonly string[]).includes(d.type)) {
    issues.push({ path: `${i}.type`, message: `must be one of ${EVENT_TYPES.join(', ')}` });
  }
  if (typeof d.balancerId !== 'string' || d.balancerId === '')
    issues.push({ path: `${i}.balancerId`, message: 'is required' });
  if (!Number.isInteger(d.at) || d.at < 0)
    issues.push({ path: `${i}.at`, message: 'must be epoch milliseconds' });
  return issues;
}

/**
 * The single place events are written. Call it inside the write that records the state change (it joins
 * that transaction), so the event (and anything written beside it, such as webhook deliveries) commits or rolls back with it.
 */
export async function insertEvents(store: Store, drafts: EventDraft[]): Promise<StoredEvent[]> {
  const issues = drafts.flatMap(validateDraft);
  if (issues.length > 0) throw new ValidationError(issues);
  const { events } = store.t;
  return store.write(async (tx) => {
    const out: StoredEvent[] = [];
    for (const d of drafts) {
      const row = firstRow(
        await tx
          .insert(events)
          .values({
            id: newId('evt'),
            balancerId: d.balancerId,
            nodeId: d.nodeId ?? null,
            type: d.type,
            at: d.at,
            data: d.data ?? {},
          })
          .returning(),
      );
      out.push(toEvent(row));
    }
    // The webhook outbox rows commit or roll back with their events.
    await enqueueDeliveries(store, out);
    return out;
  });
}

export interface ListEventsOptions {
  balancerId?: string;
  nodeId?: string;
  type?: string;
  since?: number;
  until?: number;
  cursor?: string | null;
  limit?: number;
}

/** Newest first, of a balancer or a node if given; `since` inclusive, `until` exclusive (epoch ms); `cursor` continues a previous page. */
export async function listEvents(
  store: Store,
  opts: ListEventsOptions = {},
): Promise<{ items: StoredEvent[]; nextCursor: string | null }> {
  const { events } = store.t;
  const limit = clampLimit(opts.limit, 100, 1000);
  const issues: FieldIssue[] = [];
  if (opts.type !== undefined && !(EVENT_TYPES as readonly string[]).includes(opts.type)) {
    issues.push({ path: 'type', message: `must be one of ${EVENT_TYPES.join(', ')}` });
  }
  if (opts.since !== undefined && !Number.isFinite(opts.since))
    issues.push({ path: 'since', message: 'must be epoch milliseconds' });
  if (opts.until !== undefined && !Number.isFinite(opts.until))
    issues.push({ path: 'until', message: 'must be epoch milliseconds' });
  let before: number | null = null;
  if (opts.cursor) {
    const decoded = Buffer.from(opts.cursor, 'base64url').toString('utf8');
    const n = Number(decoded);
    if (!/^\d{1,15}$/.test(decoded) || encodeCursor(decoded) !== opts.cursor) {
      issues.push({ path: 'cursor', message: 'is not a cursor this API issued' });
    } else before = n;
  }
  if (issues.length > 0) throw new ValidationError(issues);
  const rows = await store.read((db) =>
    db
      .select()
      .from(events)
      .where(
        and(
          opts.balancerId !== undefined ? eq(events.balancerId, opts.balancerId) : undefined,
          opts.nodeId !== undefined ? eq(events.nodeId, opts.nodeId) : undefined,
          opts.type !== undefined ? eq(events.type, opts.type) : undefined,
          opts.since !== undefined ? gte(events.at, opts.since) : undefined,
          opts.until !== undefined ? lt(events.at, opts.until) : undefined,
          before !== null ? lt(events.seq, before) : undefined,
        ),
      )
      .orderBy(desc(events.seq))
      .limit(limit + 1),
  );
  const page = rows.slice(0, limit).map(toEvent);
  const last = page[page.length - 1];
  return { items: page, nextCursor: rows.length > limit && last ? encodeCursor(String(last.seq)) : null };
}

/** The newest event seq of a balancer (0 before its first): a mark to list what came after it. */
export async function latestEventSeq(store: Store, balancerId: string): Promise<number> {
  const { events } = store.t;
  const [row] = await store.read((db) =>
    db
      .select({ seq: max(events.seq) })
      .from(events)
      .where(eq(events.balancerId, balancerId)),
  );
  return Number(row?.seq ?? 0);
}

/** A balancer's events stored after `afterSeq`, oldest first (at most `limit`). */
export async function listEventsAfter(
  store: Store,
  balancerId: string,
  afterSeq: number,
  limit = 1000,
): Promise<StoredEvent[]> {
  const { events } = store.t;
  const rows = await store.read((db) =>
    db
      .select()
      .from(events)
      .where(and(eq(events.balancerId, balancerId), gt(events.seq, afterSeq)))
      .orderBy(asc(events.seq))
      .limit(limit),
  );
  return rows.map(toEvent);
}
