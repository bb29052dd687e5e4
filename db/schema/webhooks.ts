import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { DELIVERY_STATUSES } from '../../lib/schemas/webhook';
import type { AlertSinkAuthInput } from '../../lib/schemas/alert-sink';

/** `webhook`: signed event envelopes; `alertmanager`: an alert sink (same outbox and delivery log). */
export const ENDPOINT_KINDS = ['webhook', 'alertmanager'] as const;
export type EndpointKind = (typeof ENDPOINT_KINDS)[number];

/** An Alertmanager sink's settings; `url` then holds the first of `urls`, `secret` is empty. */
export interface AlertmanagerSettings {
  urls: string[];
  auth: AlertSinkAuthInput;
  resendIntervalMs: number;
}

/** A webhook endpoint. Signing secrets are needed in clear to sign, so they are stored but never returned. */
export const webhookEndpoints = sqliteTable('webhook_endpoints', {
  id: text('id').primaryKey(),
  kind: text('kind', { enum: ENDPOINT_KINDS }).notNull().default('webhook'),
  name: text('name').notNull().unique(),
  url: text('url').notNull(),
  alertmanager: text('alertmanager', { mode: 'json' }).$type<AlertmanagerSettings>(),
  description: text('description').notNull(),
  /** Event types delivered; empty means every type. */
  eventTypes: text('event_types', { mode: 'json' }).$type<string[]>().notNull(),
  /** Only events of these balancers; empty means every balancer. */
  balancerIds: text('balancer_ids', { mode: 'json' }).$type<string[]>().notNull(),
  secret: text('secret').notNull(),
  /** The secret before the last rotation, still signed with until `previousSecretUntil`. */
  previousSecret: text('previous_secret'),
  previousSecretUntil: integer('previous_secret_until'),
  enabled: integer('enabled', { mode: 'boolean' }).notNull(),
  disabledReason: text('disabled_reason'),
  disabledAt: integer('disabled_at'),
  /** When the current run of failed attempts began; null while the endpoint is healthy. */
  failingSince: integer('failing_since'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
});

/** The outbox: one row per (event, endpoint), written in the event's transaction, then delivered and retried. */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    eventId: text('event_id'),
    balancerId: text('balancer_id'),
    type: text('type').notNull(),
    /** The exact body sent, so every attempt and a redelivery carry the same bytes and webhook-id. */
    payload: text('payload').notNull(),
    status: text('status', { enum: DELIVERY_STATUSES }).notNull(),
    /** Set on alerts held by an open rollout window. */
    rolloutWindowId: text('rollout_window_id'),
    attempts: integer('attempts').notNull(),
    nextAttemptAt: integer('next_attempt_at'),
    lastAttemptAt: integer('last_attempt_at'),
    lastHttpStatus: integer('last_http_status'),
    lastError: text('last_error'),
    createdAt: integer('created_at').notNull(),
    completedAt: integer('completed_at'),
  },
  (t) => [
    index('webhook_deliveries_due').on(t.status, t.nextAttemptAt),
    index('webhook_deliveries_endpoint').on(t.endpointId, t.createdAt),
  ],
);

/** Every attempt of every delivery: the per-endpoint delivery log. */
export const webhookAttempts = sqliteTable(
  'webhook_attempts',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    endpointId: text('endpoint_id').notNull(),
    at: integer('at').notNull(),
    httpStatus: integer('http_status'),
    /** ok | http_3xx | http_4xx | http_5xx | gone | timeout | reset | refused | egress_refused | network_error */
    outcome: text('outcome').notNull(),
    error: text('error'),
    durationMs: integer('duration_ms').notNull(),
  },
  (t) => [index('webhook_attempts_delivery').on(t.deliveryId, t.at)],
);

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect;
