import { and, asc, desc, eq, inArray, isNotNull, lt, or, sql } from 'drizzle-orm';
import { ConflictError, NotFoundError, ValidationError, toFieldIssues } from '@/lib/errors';
import {
  CreateWebhookInput,
  UpdateWebhookInput,
  type CreateWebhookInput as CreateWebhookInputType,
  type DeliveryStatus,
  type UpdateWebhookInput as UpdateWebhookInputType,
  type WebhookDelivery,
  type WebhookEndpoint,
} from '@/lib/schemas/webhook';
import { buildEnvelope, type EnvelopeEvent } from '@/lib/webhooks/envelope';
import { generateWebhookSecret } from '@/lib/webhooks/signing';
import { writeTransaction, type Store, type Tx } from '../index';
import { newId } from '../ids';
import { rolloutWindows } from '../schema/rollout-windows';
import {
  webhookAttempts,
  webhookDeliveries,
  webhookEndpoints,
  type EndpointKind,
  type WebhookDeliveryRow,
  type WebhookEndpointRow,
} from '../schema/webhooks';
import { encodeCursor } from './balancers';

/** Alerts expected while a declared rollout runs: held until the window closes (dropped) or overruns (sent). */
export const HELD_DURING_ROLLOUT: readonly string[] = [
  'balancer.diverged',
  'node.era_changed',
  'node.catalog_changed',
];

export function toWebhookEndpoint(row: WebhookEndpointRow, now: number = Date.now()): WebhookEndpoint {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
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

function assertNameFree(tx: Tx, name: string, exceptId: string | null): void {
  const clash = tx
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.name, name))
    .get();
  if (clash && clash.id !== exceptId) throw new ConflictError(`an endpoint named '${name}' already exists`);
}

/** `kind` names which endpoints count: an alert sink shares the table but is not a webhook. */
export function getWebhookRow(
  store: Store | { db: Tx },
  id: string,
  kind: EndpointKind | 'any' = 'webhook',
): WebhookEndpointRow {
  const row = store.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).get();
  if (!row || (kind !== 'any' && row.kind !== kind))
    throw new NotFoundError(kind === 'alertmanager' ? 'alert sink' : 'webhook', id);
  return row;
}

export function getWebhookByName(store: Store, name: string): WebhookEndpointRow | null {
  return (
    store.db
      .select()
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.name, name), eq(webhookEndpoints.kind, 'webhook')))
      .get() ?? null
  );
}

/** Creates an endpoint; returns it with its secret (generated when not given), the only time it is shown. */
export function createWebhook(
  store: Store,
  input: CreateWebhookInputType,
  now: number = Date.now(),
): WebhookEndpoint & { secret: string } {
  const parsed = CreateWebhookInput.safeParse(input);
  if (!parsed.success) throw new ValidationError(toFieldIssues(parsed.error.issues));
  const { secret: given, ...fields } = parsed.data;
  const secret = given ?? generateWebhookSecret();
  return writeTransaction(store, (tx) => {
    assertNameFree(tx, fields.name, null);
    const row = tx
      .insert(webhookEndpoints)
      .values({
        id: newId('whk'),
        ...fields,
        secret,
        enabled: fields.enabled,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    return { ...toWebhookEndpoint(row, now), secret };
  });
}

export function listWebhooks(store: Store, now: number = Date.now()): WebhookEndpoint[] {
  return store.db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.kind, 'webhook'))
    .orderBy(asc(webhookEndpoints.name))
    .all()
    .map((r) => toWebhookEndpoint(r, now));
}

/** Applies the fields sent. Re-enabling clears the disabled reason and the failure run. */
export function updateWebhook(
  store: Store,
  id: string,
  patch: UpdateWebhookInputType,
  now: number = Date.now(),
): WebhookEndpoint {
  const parsed = UpdateWebhookInput.safeParse(patch);
  if (!parsed.success) throw new ValidationError(toFieldIssues(parsed.error.issues));
  const sent = new Set(Object.keys(patch));
  const changes = Object.fromEntries(Object.entries(parsed.data).filter(([k]) => sent.has(k)));
  return writeTransaction(store, (tx) => {
    const current = getWebhookRow({ db: tx }, id);
    if (typeof changes.name === 'string') assertNameFree(tx, changes.name, id);
    const reenable = changes.enabled === true && !current.enabled;
    const disable = changes.enabled === false && current.enabled;
    const row = tx
      .update(webhookEndpoints)
      .set({
        ...changes,
        ...(reenable ? { disabledReason: null, disabledAt: null, failingSince: null } : {}),
        ...(disable ? { disabledReason: 'disabled by an operator', disabledAt: now } : {}),
        updatedAt: now,
      })
      .where(eq(webhookEndpoints.id, id))
      .returning()
      .get();
    return toWebhookEndpoint(row, now);
  });
}

export function deleteWebhook(store: Store, id: string): void {
  writeTransaction(store, (tx) => {
    const res = tx
      .delete(webhookEndpoints)
      .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.kind, 'webhook')))
      .run();
    if (res.changes === 0) throw new NotFoundError('webhook', id);
  });
}

/** A new signing secret; the old one keeps signing beside it for `overlapMs`. */
export function rotateWebhookSecret(
  store: Store,
  id: string,
  opts: { overlapMs: number; secret?: string },
  now: number = Date.now(),
): WebhookEndpoint & { secret: string } {
  const secret = opts.secret ?? generateWebhookSecret();
  return writeTransaction(store, (tx) => {
    const current = getWebhookRow({ db: tx }, id);
    if (secret === current.secret) {
      throw new ValidationError([{ path: 'secret', message: 'must differ from the current secret' }]);
    }
    const row = tx
      .update(webhookEndpoints)
      .set({
        secret,
        previousSecret: opts.overlapMs > 0 ? current.secret : null,
        previousSecretUntil: opts.overlapMs > 0 ? now + opts.overlapMs : null,
        updatedAt: now,
      })
      .where(eq(webhookEndpoints.id, id))
      .returning()
      .get();
    return { ...toWebhookEndpoint(row, now), secret };
  });
}

/** The secrets to sign with at `now`: the current one, and the previous one while the overlap lasts. */
export function signingSecrets(row: WebhookEndpointRow, now: number): string[] {
  const out = [row.secret];
  if (row.previousSecret && (row.previousSecretUntil ?? 0) > now) out.push(row.previousSecret);
  return out;
}

function wants(endpoint: WebhookEndpointRow, event: EnvelopeEvent): boolean {
  if (endpoint.eventTypes.length > 0 && !endpoint.eventTypes.includes(event.type)) return false;
  if (
    endpoint.balancerIds.length > 0 &&
    (event.balancerId === null || !endpoint.balancerIds.includes(event.balancerId))
  ) {
    return false;
  }
  return true;
}

/**
 * The outbox write: one delivery per (event, interested enabled endpoint), in the caller's transaction, so a
 * committed event always has its deliveries. Alerts inside an open rollout window are written as held.
 */
export function enqueueDeliveries(tx: Tx, events: readonly EnvelopeEvent[], now?: number): number {
  if (events.length === 0) return 0;
  const endpoints = tx
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.enabled, true), eq(webhookEndpoints.kind, 'webhook')))
    .all();
  if (endpoints.length === 0) return 0;
  let written = 0;
  const windowCache = new Map<string, { id: string; deadline: number } | null>();
  for (const event of events) {
    const targets = endpoints.filter((e) => wants(e, event));
    if (targets.length === 0) continue;
    let holdWindow: { id: string; deadline: number } | null = null;
    if (event.balancerId !== null && HELD_DURING_ROLLOUT.includes(event.type)) {
      if (!windowCache.has(event.balancerId)) {
        const w = tx
          .select({ id: rolloutWindows.id, deadline: rolloutWindows.deadline })
          .from(rolloutWindows)
          .where(
            and(eq(rolloutWindows.balancerId, event.balancerId), sql`${rolloutWindows.closedAt} IS NULL`),
          )
          .get();
        windowCache.set(event.balancerId, w ?? null);
      }
      const w = windowCache.get(event.balancerId) ?? null;
      if (w && w.deadline > event.at) holdWindow = w;
    }
    const payload = JSON.stringify(buildEnvelope(event));
    const at = now ?? event.at;
    for (const endpoint of targets) {
      tx.insert(webhookDeliveries)
        .values({
          id: newId('msg'),
          endpointId: endpoint.id,
          eventId: event.id,
          balancerId: event.balancerId,
          type: event.type,
          payload,
          status: holdWindow ? 'held' : 'pending',
          rolloutWindowId: holdWindow?.id ?? null,
          attempts: 0,
          nextAttemptAt: holdWindow ? null : at,
          createdAt: at,
        })
        .run();
      written++;
    }
  }
  return written;
}

/**
 * Settles held alerts: a window closed before its deadline means the rollout finished as declared, so its held
 * alerts are dropped (suppressed); a window past its deadline releases them for delivery beside rollout.stuck.
 */
export function settleHeldDeliveries(store: Store, now: number): { released: number; suppressed: number } {
  return writeTransaction(store, (tx) => {
    const held = tx
      .select({
        id: webhookDeliveries.id,
        windowId: webhookDeliveries.rolloutWindowId,
        closedAt: rolloutWindows.closedAt,
        deadline: rolloutWindows.deadline,
      })
      .from(webhookDeliveries)
      .leftJoin(rolloutWindows, eq(rolloutWindows.id, webhookDeliveries.rolloutWindowId))
      .where(eq(webhookDeliveries.status, 'held'))
      .all();
    const release: string[] = [];
    const suppress: string[] = [];
    for (const h of held) {
      if (h.deadline === null)
        release.push(h.id); // the window is gone (balancer deleted): nothing to wait for
      else if (h.closedAt !== null && h.closedAt <= h.deadline) suppress.push(h.id);
      else if (now >= h.deadline) release.push(h.id);
    }
    if (release.length > 0) {
      tx.update(webhookDeliveries)
        .set({ status: 'pending', nextAttemptAt: now })
        .where(inArray(webhookDeliveries.id, release))
        .run();
    }
    if (suppress.length > 0) {
      tx.update(webhookDeliveries)
        .set({
          status: 'suppressed',
          completedAt: now,
          lastError: 'held during a rollout window that closed in time',
        })
        .where(inArray(webhookDeliveries.id, suppress))
        .run();
    }
    return { released: release.length, suppressed: suppress.length };
  });
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
 */
export function claimDueDeliveries(store: Store, now: number, opts: ClaimOptions): ClaimedDelivery[] {
  const exclude = opts.excludeEndpointIds ?? [];
  return writeTransaction(store, (tx) => {
    const ids = store.sqlite
      .prepare(
        `SELECT id FROM (
           SELECT d.id AS id, d.next_attempt_at AS due,
                  row_number() OVER (PARTITION BY d.endpoint_id ORDER BY d.next_attempt_at, d.id) AS nth
             FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
            WHERE d.status = 'pending' AND d.next_attempt_at IS NOT NULL AND d.next_attempt_at <= ?
              AND e.enabled = 1 AND d.endpoint_id NOT IN (SELECT value FROM json_each(?)))
          WHERE nth <= ? ORDER BY due, id LIMIT ?`,
      )
      .pluck()
      .all(now, JSON.stringify(exclude), opts.perEndpoint ?? opts.limit, opts.limit) as string[];
    if (ids.length === 0) return [];
    tx.update(webhookDeliveries)
      .set({ nextAttemptAt: now + opts.leaseMs })
      .where(inArray(webhookDeliveries.id, ids))
      .run();
    const rows = tx
      .select({ d: webhookDeliveries, e: webhookEndpoints })
      .from(webhookDeliveries)
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
      .where(inArray(webhookDeliveries.id, ids))
      .all();
    const order = new Map(ids.map((id, i) => [id, i]));
    rows.sort((a, b) => (order.get(a.d.id) ?? 0) - (order.get(b.d.id) ?? 0));
    return rows.map((r) => ({ delivery: r.d, endpoint: r.e }));
  });
}

/** The earliest time something is due (pending attempt or held window deadline), for the worker's sleep. */
export function nextDueAt(store: Store): number | null {
  const pending = store.db
    .select({ at: sql<number | null>`min(${webhookDeliveries.nextAttemptAt})` })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(and(eq(webhookDeliveries.status, 'pending'), eq(webhookEndpoints.enabled, true)))
    .get();
  const held = store.db
    .select({ at: sql<number | null>`min(${rolloutWindows.deadline})` })
    .from(webhookDeliveries)
    .innerJoin(rolloutWindows, eq(rolloutWindows.id, webhookDeliveries.rolloutWindowId))
    .where(eq(webhookDeliveries.status, 'held'))
    .get();
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
export function recordAttempt(
  store: Store,
  deliveryId: string,
  endpointId: string,
  attempt: AttemptRecord,
  decision: AttemptDecision,
): void {
  writeTransaction(store, (tx) => {
    tx.insert(webhookAttempts)
      .values({ deliveryId, endpointId, ...attempt })
      .run();
    const done = decision.status === 'succeeded' || decision.status === 'failed';
    tx.update(webhookDeliveries)
      .set({
        status: decision.status,
        attempts: sql`${webhookDeliveries.attempts} + 1`,
        nextAttemptAt: decision.nextAttemptAt,
        lastAttemptAt: attempt.at,
        lastHttpStatus: attempt.httpStatus,
        lastError: attempt.error,
        completedAt: done ? attempt.at : null,
      })
      .where(eq(webhookDeliveries.id, deliveryId))
      .run();
    tx.update(webhookEndpoints)
      .set({
        failingSince:
          decision.failingSince === null
            ? null
            : sql`coalesce(${webhookEndpoints.failingSince}, ${decision.failingSince})`,
        ...(decision.disableReason
          ? { enabled: false, disabledReason: decision.disableReason, disabledAt: attempt.at }
          : {}),
      })
      .where(eq(webhookEndpoints.id, endpointId))
      .run();
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
export function listDeliveries(
  store: Store,
  endpointId: string,
  opts: ListDeliveriesOptions,
): { items: WebhookDelivery[]; nextCursor: string | null } {
  getWebhookRow(store, endpointId, opts.kind);
  let before: { createdAt: number; id: string } | null = null;
  if (opts.cursor) {
    const decoded = Buffer.from(opts.cursor, 'base64url').toString('utf8');
    const m = /^(\d+):(msg_[a-z2-7]+)$/.exec(decoded);
    if (!m?.[1] || !m[2] || encodeCursor(decoded) !== opts.cursor) {
      throw new ValidationError([{ path: 'cursor', message: 'is not a cursor this API issued' }]);
    }
    before = { createdAt: Number(m[1]), id: m[2] };
  }
  const rows = store.db
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
    .limit(opts.limit + 1)
    .all();
  const page = rows.slice(0, opts.limit);
  const attempts =
    page.length === 0
      ? []
      : store.db
          .select()
          .from(webhookAttempts)
          .where(
            inArray(
              webhookAttempts.deliveryId,
              page.map((r) => r.id),
            ),
          )
          .orderBy(asc(webhookAttempts.at), asc(webhookAttempts.id))
          .all();
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

export function getDelivery(store: Store, endpointId: string, deliveryId: string): WebhookDeliveryRow {
  const row = store.db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.endpointId, endpointId)))
    .get();
  if (!row) throw new NotFoundError('delivery', deliveryId);
  return row;
}

/** Queues a delivery again (same id and body), with a fresh retry schedule. */
export function redeliver(
  store: Store,
  endpointId: string,
  deliveryId: string,
  now: number = Date.now(),
  kind: EndpointKind = 'webhook',
): WebhookDelivery {
  return writeTransaction(store, (tx) => {
    const endpoint = getWebhookRow({ db: tx }, endpointId, kind);
    if (!endpoint.enabled)
      throw new ConflictError(`webhook '${endpointId}' is disabled; enable it before redelivering`);
    getDelivery(store, endpointId, deliveryId);
    const row = tx
      .update(webhookDeliveries)
      .set({ status: 'pending', attempts: 0, nextAttemptAt: now, completedAt: null })
      .where(eq(webhookDeliveries.id, deliveryId))
      .returning()
      .get();
    return toDelivery(row);
  });
}

/**
 * A `webhook.test` delivery to one endpoint, written already claimed by the caller (its next attempt is
 * `leaseMs` away), so the caller's inline attempt is the only one: the outbox worker retries it only after a
 * failed attempt schedules a retry, or after the lease when the caller crashed.
 */
export function enqueueTestDelivery(
  store: Store,
  endpointId: string,
  now: number = Date.now(),
  leaseMs = 30_000,
): WebhookDeliveryRow {
  return writeTransaction(store, (tx) => {
    const endpoint = getWebhookRow({ db: tx }, endpointId);
    const id = newId('msg');
    const payload = JSON.stringify(
      buildEnvelope({
        id: newId('evt'),
        type: 'webhook.test',
        balancerId: null,
        nodeId: null,
        at: now,
        data: { message: `test delivery to '${endpoint.name}'` },
      }),
    );
    return tx
      .insert(webhookDeliveries)
      .values({
        id,
        endpointId,
        eventId: null,
        balancerId: null,
        type: 'webhook.test',
        payload,
        status: 'pending',
        attempts: 0,
        nextAttemptAt: now + leaseMs,
        createdAt: now,
      })
      .returning()
      .get();
  });
}

/** Delivery outcomes counted by status, for metrics. */
export function countDeliveriesByStatus(store: Store): Array<{ status: string; count: number }> {
  return store.db
    .select({ status: webhookDeliveries.status, count: sql<number>`count(*)` })
    .from(webhookDeliveries)
    .groupBy(webhookDeliveries.status)
    .all();
}

/** Deletes finished deliveries (and their attempts) completed before `before`; pending and held ones stay. */
export function pruneDeliveries(store: Store, before: number): number {
  return writeTransaction(store, (tx) =>
    tx
      .delete(webhookDeliveries)
      .where(
        and(
          inArray(webhookDeliveries.status, ['succeeded', 'failed', 'suppressed']),
          isNotNull(webhookDeliveries.completedAt),
          lt(webhookDeliveries.completedAt, before),
        ),
      )
      .run(),
  ).changes;
}
