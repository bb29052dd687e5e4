import { and, asc, desc, eq, inArray, isNotNull, lt, lte, or, sql, count, min } from 'drizzle-orm';
import { ConflictError, NotFoundError, ValidationError } from '@/lib/errors';
import type {
  DeliveryStatus,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookSettings,
} from '@/lib/schemas/webhook';
import { TEST_EVENT_TYPE, type EnvelopeEvent } from '@/lib/schemas/webhook-envelope';
import { firstRow, selectRows, type Db, type Store } from '../index';
import { holdingInterest, planDeliveries } from '@/lib/deliver/plan';
import { dueAtOnce } from '../clock';
import { newId } from '../ids';
import { type EndpointKind, type WebhookDeliveryRow, type WebhookEndpointRow } from '../schema';
import { encodeCursor } from './balancers';
import { redactUrl } from '@/lib/schemas/url-redaction';

/** An endpoint as the API shows it: never its signing secrets, and its URL's query values redacted. */
export function toWebhookEndpoint(row: WebhookEndpointRow, now: number = Date.now()): WebhookEndpoint {
  return {
    id: row.id,
    name: row.name,
    url: redactUrl(row.url),
    description: row.description,
    eventTypes: row.eventTypes,
    balancerIds: row.balancerIds,
    enabled: row.enabled,
    disabledReason: row.disabledReason,
    disabledAt: row.disabledAt,
    failingSince: row.failingSince,
    secretRotating: row.previousSecret !== null && (row.previousSecretUntil ?? 0) > now,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function toDelivery(row: WebhookDeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    endpointId: row.endpointId,
    eventId: row.eventId,
    type: row.type,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.nextAttemptAt,
    lastAttemptAt: row.lastAttemptAt,
    lastHttpStatus: row.lastHttpStatus,
    lastError: row.lastError,
    createdAt: row.createdAt,
    completedAt: row.completedAt,
  };
}

async function assertNameFree(store: Store, tx: Db, name: string, exceptId: string | null): Promise<void> {
  const { webhookEndpoints } = store.t;
  const [clash] = await tx
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.name, name));
  if (clash && clash.id !== exceptId) throw new ConflictError(`an endpoint named '${name}' already exists`);
}

/** `kind` names which endpoints count: an alert sink shares the table but is not a webhook. */
export async function getWebhookRow(
  store: Store,
  id: string,
  kind: EndpointKind | 'any' = 'webhook',
): Promise<WebhookEndpointRow> {
  const { webhookEndpoints } = store.t;
  const [row] = await store.read((db) =>
    db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)),
  );
  if (!row || (kind !== 'any' && row.kind !== kind))
    throw new NotFoundError(kind === 'alertmanager' ? 'alert sink' : 'webhook', id);
  return row;
}

export async function getWebhookByName(store: Store, name: string): Promise<WebhookEndpointRow | null> {
  const { webhookEndpoints } = store.t;
  return (
    (
      await store.read((db) =>
        db
          .select()
          .from(webhookEndpoints)
          .where(and(eq(webhookEndpoints.name, name), eq(webhookEndpoints.kind, 'webhook'))),
      )
    )[0] ?? null
  );
}

/** Stores an endpoint as lib/webhooks/endpoints validated it, with its signing secret; returns it with the
 *  secret, the only time it is shown. */
export async function insertWebhook(
  store: Store,
  settings: WebhookSettings & { secret: string },
  now: number = Date.now(),
): Promise<WebhookEndpoint & { secret: string }> {
  const { webhookEndpoints } = store.t;
  return store.write(async (tx) => {
    await assertNameFree(store, tx, settings.name, null);
    const row = firstRow(
      await tx
        .insert(webhookEndpoints)
        .values({ id: newId('whk'), ...settings, createdAt: now, updatedAt: now })
        .returning(),
    );
    return { ...toWebhookEndpoint(row, now), secret: settings.secret };
  });
}

export async function listWebhooks(store: Store, now: number = Date.now()): Promise<WebhookEndpoint[]> {
  const { webhookEndpoints } = store.t;
  return (
    await store.read((db) =>
      db
        .select()
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.kind, 'webhook'))
        .orderBy(asc(webhookEndpoints.name)),
    )
  ).map((r) => toWebhookEndpoint(r, now));
}

/** Applies `changes` (validated fields, only those to change). Re-enabling clears the disabled reason and the
 *  failure run. */
export async function updateWebhook(
  store: Store,
  id: string,
  changes: Partial<Omit<WebhookSettings, 'secret'>>,
  now: number = Date.now(),
): Promise<WebhookEndpoint> {
  const { webhookEndpoints } = store.t;
  return store.write(async (tx) => {
    const current = await getWebhookRow(store, id);
    if (changes.name !== undefined) await assertNameFree(store, tx, changes.name, id);
    const reenable = changes.enabled === true && !current.enabled;
    const disable = changes.enabled === false && current.enabled;
    const row = firstRow(
      await tx
        .update(webhookEndpoints)
        .set({
          ...changes,
          ...(reenable ? { disabledReason: null, disabledAt: null, failingSince: null } : {}),
          ...(disable ? { disabledReason: 'disabled by an operator', disabledAt: now } : {}),
          updatedAt: now,
        })
        .where(eq(webhookEndpoints.id, id))
        .returning(),
    );
    return toWebhookEndpoint(row, now);
  });
}

export async function deleteWebhook(store: Store, id: string): Promise<void> {
  const { webhookEndpoints } = store.t;
  await store.write(async (tx) => {
    const gone = await tx
      .delete(webhookEndpoints)
      .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.kind, 'webhook')))
      .returning({ id: webhookEndpoints.id });
    if (gone.length === 0) throw new NotFoundError('webhook', id);
  });
}

/** Replaces the signing secret outright, with no overlap (the config file names the one secret to use). */
export async function replaceWebhookSecret(store: Store, id: string, secret: string): Promise<void> {
  const { webhookEndpoints } = store.t;
  await store.write((tx) =>
    tx
      .update(webhookEndpoints)
      .set({ secret, previousSecret: null, previousSecretUntil: null })
      .where(eq(webhookEndpoints.id, id)),
  );
}

/** Stores an endpoint's signing secrets as lib/webhooks/endpoints rotated them; returns it with its secret. */
export async function storeWebhookSecrets(
  store: Store,
  id: string,
  secrets: { secret: string; previousSecret: string | null; previousSecretUntil: number | null },
  now: number = Date.now(),
): Promise<WebhookEndpoint & { secret: string }> {
  const { webhookEndpoints } = store.t;
  return store.write(async (tx) => {
    const row = firstRow(
      await tx
        .update(webhookEndpoints)
        .set({ ...secrets, updatedAt: now })
        .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.kind, 'webhook')))
        .returning(),
    );
    return { ...toWebhookEndpoint(row, now), secret: secrets.secret };
  });
}

/**
 * The outbox write: the deliveries lib/deliver/plan.ts plans for these events (from the enabled endpoints and
 * the open rollout windows read here), inserted in the caller's transaction, so a committed event always has
 * its deliveries.
 */
export async function enqueueDeliveries(
  store: Store,
  events: readonly EnvelopeEvent[],
  now?: number,
): Promise<number> {
  if (events.length === 0) return 0;
  const { webhookDeliveries, webhookEndpoints, rolloutWindows } = store.t;
  return store.write(async (tx) => {
    const endpoints = await tx.select().from(webhookEndpoints).where(eq(webhookEndpoints.enabled, true));
    if (endpoints.length === 0) return 0;
    const interest = holdingInterest(events);
    const windows =
      interest.length === 0
        ? []
        : await tx
            .select({
              id: rolloutWindows.id,
              deadline: rolloutWindows.deadline,
              balancerId: rolloutWindows.balancerId,
            })
            .from(rolloutWindows)
            .where(
              and(inArray(rolloutWindows.balancerId, interest), sql`${rolloutWindows.closedAt} IS NULL`),
            );
    const open = new Map(windows.map((w) => [w.balancerId, { id: w.id, deadline: w.deadline }]));
    const rows = planDeliveries(events, endpoints, open, now);
    for (const row of rows) {
      await tx.insert(webhookDeliveries).values({
        id: newId('msg'),
        endpointId: row.endpointId,
        eventId: row.eventId,
        balancerId: row.balancerId,
        type: row.type,
        payload: row.payload,
        status: row.heldBy ? 'held' : 'pending',
        rolloutWindowId: row.heldBy,
        attempts: 0,
        // Due at once, by the database's clock on PostgreSQL: a writer whose clock runs ahead cannot delay it.
        nextAttemptAt: row.heldBy ? null : dueAtOnce(store, row.createdAt),
        createdAt: row.createdAt,
      });
    }
    return rows.length;
  });
}

/** A held delivery with the rollout window it waits on (null fields: the window is gone). */
export interface HeldDelivery {
  id: string;
  closedAt: number | null;
  deadline: number | null;
}

/** Every held delivery with its window's close and deadline. */
export async function listHeldDeliveries(store: Store): Promise<HeldDelivery[]> {
  const { webhookDeliveries: d, rolloutWindows: w } = store.t;
  return store.read((db) =>
    db
      .select({ id: d.id, closedAt: w.closedAt, deadline: w.deadline })
      .from(d)
      .leftJoin(w, eq(w.id, d.rolloutWindowId))
      .where(eq(d.status, 'held')),
  );
}

/** Makes these held deliveries pending, due at `now`. */
export async function releaseHeldDeliveries(
  store: Store,
  ids: readonly string[],
  now: number,
): Promise<void> {
  const { webhookDeliveries: d } = store.t;
  if (ids.length === 0) return;
  await store.write((tx) =>
    tx
      .update(d)
      .set({ status: 'pending', nextAttemptAt: now })
      .where(and(inArray(d.id, [...ids]), eq(d.status, 'held'))),
  );
}

/** Ends these held deliveries unsent (`suppressed`), saying why. */
export async function suppressHeldDeliveries(
  store: Store,
  ids: readonly string[],
  now: number,
  why: string,
): Promise<void> {
  const { webhookDeliveries: d } = store.t;
  if (ids.length === 0) return;
  await store.write((tx) =>
    tx
      .update(d)
      .set({ status: 'suppressed', completedAt: now, lastError: why })
      .where(and(inArray(d.id, [...ids]), eq(d.status, 'held'))),
  );
}

export interface ClaimedDelivery {
  delivery: WebhookDeliveryRow;
  endpoint: WebhookEndpointRow;
}

export interface ClaimOptions {
  /** Deliveries claimed in all. */
  limit: number;
  /** Pushes each claimed delivery's next attempt this far out: an attempt lease a crash lets expire. */
  leaseMs: number;
  /** Deliveries claimed per endpoint (default: no cap). */
  perEndpoint?: number;
  /** Endpoints this worker already has attempts in flight for: skipped, so they do not pile up. */
  excludeEndpointIds?: readonly string[];
}

/**
 * Takes due deliveries of enabled endpoints, oldest first, and leases them (next attempt pushed past the
 * attempt deadline), so a second worker skips them and a crash mid-attempt retries them after the lease.
 * `now` is the claimer's time: the store's clock in a worker (database time on PostgreSQL).
 */
export async function claimDueDeliveries(
  store: Store,
  now: number,
  opts: ClaimOptions,
): Promise<ClaimedDelivery[]> {
  const { webhookDeliveries, webhookEndpoints } = store.t;
  const exclude = opts.excludeEndpointIds ?? [];
  return store.write(async (tx) => {
    const skip =
      exclude.length === 0
        ? sql``
        : sql`AND d.endpoint_id NOT IN (${sql.join(
            exclude.map((id) => sql`${id}`),
            sql`, `,
          )})`;
    const ids = (
      await selectRows<{ id: string }>(
        store,
        sql`SELECT id FROM (
           SELECT d.id AS id, d.next_attempt_at AS due,
                  row_number() OVER (PARTITION BY d.endpoint_id ORDER BY d.next_attempt_at, d.id) AS nth
             FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
            WHERE d.status = 'pending' AND d.next_attempt_at IS NOT NULL AND d.next_attempt_at <= ${now}
              AND e.enabled ${skip}) ranked
          WHERE nth <= ${opts.perEndpoint ?? opts.limit} ORDER BY due, id LIMIT ${opts.limit}`,
      )
    ).map((r) => r.id);
    if (ids.length === 0) return [];
    // Only rows still due are taken: on PostgreSQL a concurrent claim of the same rows commits first and
    // this update then finds them leased, so each attempt is claimed once.
    const taken = await tx
      .update(webhookDeliveries)
      .set({ nextAttemptAt: now + opts.leaseMs })
      .where(
        and(
          inArray(webhookDeliveries.id, ids),
          eq(webhookDeliveries.status, 'pending'),
          lte(webhookDeliveries.nextAttemptAt, now),
        ),
      )
      .returning({ id: webhookDeliveries.id });
    if (taken.length === 0) return [];
    const takenIds = new Set(taken.map((r) => r.id));
    ids.splice(0, ids.length, ...ids.filter((id) => takenIds.has(id)));
    const rows = await tx
      .select({ d: webhookDeliveries, e: webhookEndpoints })
      .from(webhookDeliveries)
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
      .where(inArray(webhookDeliveries.id, ids));
    const order = new Map(ids.map((id, i) => [id, i]));
    rows.sort((a, b) => (order.get(a.d.id) ?? 0) - (order.get(b.d.id) ?? 0));
    return rows.map((r) => ({ delivery: r.d, endpoint: r.e }));
  });
}

/** The earliest time something is due (pending attempt or held window deadline), for the worker's sleep. */
export async function nextDueAt(store: Store): Promise<number | null> {
  const { webhookDeliveries, webhookEndpoints, rolloutWindows } = store.t;
  const pending = (
    await store.read((db) =>
      db
        .select({ at: min(webhookDeliveries.nextAttemptAt) })
        .from(webhookDeliveries)
        .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
        .where(and(eq(webhookDeliveries.status, 'pending'), eq(webhookEndpoints.enabled, true))),
    )
  )[0];
  const [held] = await store.read((db) =>
    db
      .select({ at: min(rolloutWindows.deadline) })
      .from(webhookDeliveries)
      .innerJoin(rolloutWindows, eq(rolloutWindows.id, webhookDeliveries.rolloutWindowId))
      .where(eq(webhookDeliveries.status, 'held')),
  );
  const candidates = [pending?.at, held?.at].filter((v): v is number => typeof v === 'number');
  return candidates.length > 0 ? Math.min(...candidates) : null;
}

export interface AttemptRecord {
  at: number;
  httpStatus: number | null;
  outcome: string;
  error: string | null;
  durationMs: number;
}

export interface AttemptDecision {
  status: DeliveryStatus;
  nextAttemptAt: number | null;
  /** Set when this attempt disables the endpoint. */
  disableReason: string | null;
  /** The endpoint's failure run after this attempt. */
  failingSince: number | null;
}

/** Writes one attempt, the delivery's new state and the endpoint's health, in one transaction. */
export async function recordAttempt(
  store: Store,
  deliveryId: string,
  endpointId: string,
  attempt: AttemptRecord,
  decision: AttemptDecision,
): Promise<void> {
  const { webhookDeliveries, webhookEndpoints, webhookAttempts } = store.t;
  await store.write(async (tx) => {
    await tx.insert(webhookAttempts).values({ deliveryId, endpointId, ...attempt });
    const done = decision.status === 'succeeded' || decision.status === 'failed';
    await tx
      .update(webhookDeliveries)
      .set({
        status: decision.status,
        attempts: sql`${webhookDeliveries.attempts} + 1`,
        nextAttemptAt: decision.nextAttemptAt,
        lastAttemptAt: attempt.at,
        lastHttpStatus: attempt.httpStatus,
        lastError: attempt.error,
        completedAt: done ? attempt.at : null,
      })
      .where(eq(webhookDeliveries.id, deliveryId));
    await tx
      .update(webhookEndpoints)
      .set({
        failingSince:
          decision.failingSince === null
            ? null
            : sql`coalesce(${webhookEndpoints.failingSince}, ${decision.failingSince})`,
        ...(decision.disableReason
          ? { enabled: false, disabledReason: decision.disableReason, disabledAt: attempt.at }
          : {}),
      })
      .where(eq(webhookEndpoints.id, endpointId));
  });
}

export interface ListDeliveriesOptions {
  limit: number;
  cursor?: string;
  status?: DeliveryStatus;
  /** Alert sinks share the log; the default reads webhooks only. */
  kind?: EndpointKind;
}

/** An endpoint's delivery log, newest first, each with its attempts. */
export async function listDeliveries(
  store: Store,
  endpointId: string,
  opts: ListDeliveriesOptions,
): Promise<{ items: WebhookDelivery[]; nextCursor: string | null }> {
  const { webhookDeliveries, webhookAttempts } = store.t;
  await getWebhookRow(store, endpointId, opts.kind);
  let before: { createdAt: number; id: string } | null = null;
  if (opts.cursor) {
    const decoded = Buffer.from(opts.cursor, 'base64url').toString('utf8');
    const m = /^(\d{1,15}):(msg_[a-z2-7]+)$/.exec(decoded);
    if (!m?.[1] || !m[2] || encodeCursor(decoded) !== opts.cursor) {
      throw new ValidationError([{ path: 'cursor', message: 'is not a cursor this API issued' }]);
    }
    before = { createdAt: Number(m[1]), id: m[2] };
  }
  const rows = await store.read((db) =>
    db
      .select()
      .from(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.endpointId, endpointId),
          opts.status ? eq(webhookDeliveries.status, opts.status) : undefined,
          before
            ? or(
                lt(webhookDeliveries.createdAt, before.createdAt),
                and(eq(webhookDeliveries.createdAt, before.createdAt), lt(webhookDeliveries.id, before.id)),
              )
            : undefined,
        ),
      )
      .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
      .limit(opts.limit + 1),
  );
  const page = rows.slice(0, opts.limit);
  const attempts =
    page.length === 0
      ? []
      : await store.read((db) =>
          db
            .select()
            .from(webhookAttempts)
            .where(
              inArray(
                webhookAttempts.deliveryId,
                page.map((r) => r.id),
              ),
            )
            .orderBy(asc(webhookAttempts.at), asc(webhookAttempts.id)),
        );
  const items = page.map((r) => ({
    ...toDelivery(r),
    log: attempts
      .filter((a) => a.deliveryId === r.id)
      .map((a) => ({
        at: a.at,
        httpStatus: a.httpStatus,
        outcome: a.outcome,
        error: a.error,
        durationMs: a.durationMs,
      })),
  }));
  const last = page[page.length - 1];
  return {
    items,
    nextCursor: rows.length > opts.limit && last ? encodeCursor(`${last.createdAt}:${last.id}`) : null,
  };
}

export async function getDelivery(
  store: Store,
  endpointId: string,
  deliveryId: string,
): Promise<WebhookDeliveryRow> {
  const { webhookDeliveries } = store.t;
  const row = (
    await store.read((db) =>
      db
        .select()
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.endpointId, endpointId))),
    )
  )[0];
  if (!row) throw new NotFoundError('delivery', deliveryId);
  return row;
}

/** Queues a delivery again (same id and body), with a fresh retry schedule. */
export async function redeliver(
  store: Store,
  endpointId: string,
  deliveryId: string,
  now: number = Date.now(),
  kind: EndpointKind = 'webhook',
): Promise<WebhookDelivery> {
  const { webhookDeliveries } = store.t;
  return store.write(async (tx) => {
    const endpoint = await getWebhookRow(store, endpointId, kind);
    if (!endpoint.enabled)
      throw new ConflictError(`webhook '${endpointId}' is disabled; enable it before redelivering`);
    await getDelivery(store, endpointId, deliveryId);
    const row = firstRow(
      await tx
        .update(webhookDeliveries)
        .set({ status: 'pending', attempts: 0, nextAttemptAt: dueAtOnce(store, now), completedAt: null })
        .where(eq(webhookDeliveries.id, deliveryId))
        .returning(),
    );
    return toDelivery(row);
  });
}

/**
 * A `webhook.test` delivery of `payload` (the envelope lib/webhooks/test-send built) to one endpoint, written
 * already claimed by the caller (its next attempt is `leaseMs` away), so the caller's inline attempt is the
 * only one: the outbox worker retries it only after a failed attempt schedules a retry, or after the lease
 * when the caller crashed.
 */
export async function insertTestDelivery(
  store: Store,
  endpointId: string,
  payload: string,
  now: number,
  leaseMs: number,
): Promise<WebhookDeliveryRow> {
  const { webhookDeliveries } = store.t;
  return store.write(async (tx) =>
    firstRow(
      await tx
        .insert(webhookDeliveries)
        .values({
          id: newId('msg'),
          endpointId,
          eventId: null,
          balancerId: null,
          type: TEST_EVENT_TYPE,
          payload,
          status: 'pending',
          attempts: 0,
          nextAttemptAt: now + leaseMs,
          createdAt: now,
        })
        .returning(),
    ),
  );
}

/** Delivery outcomes counted by status, for metrics. */
export async function countDeliveriesByStatus(
  store: Store,
): Promise<Array<{ status: string; count: number }>> {
  const { webhookDeliveries } = store.t;
  return await store.read((db) =>
    db
      .select({ status: webhookDeliveries.status, count: count() })
      .from(webhookDeliveries)
      .groupBy(webhookDeliveries.status),
  );
}

/** Deletes finished deliveries (and their attempts) completed before `before`; pending and held ones stay. */
export async function pruneDeliveries(store: Store, before: number): Promise<number> {
  const { webhookDeliveries } = store.t;
  const gone = await store.write((tx) =>
    tx
      .delete(webhookDeliveries)
      .where(
        and(
          inArray(webhookDeliveries.status, ['succeeded', 'failed', 'suppressed']),
          isNotNull(webhookDeliveries.completedAt),
          lt(webhookDeliveries.completedAt, before),
        ),
      )
      .returning({ id: webhookDeliveries.id }),
  );
  return gone.length;
}
