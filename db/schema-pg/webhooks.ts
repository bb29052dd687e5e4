import { bigint, boolean, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { DELIVERY_STATUSES } from '../../lib/schemas/webhook';
import { ENDPOINT_KINDS, type AlertmanagerSettings } from '../schema/webhooks';

export { ENDPOINT_KINDS, type AlertmanagerSettings, type EndpointKind } from '../schema/webhooks';

/** PostgreSQL twins of db/schema/webhooks.ts. */
export const webhookEndpoints = pgTable('webhook_endpoints', {
  id: text('id').primaryKey(),
  kind: text('kind', { enum: ENDPOINT_KINDS }).notNull().default('webhook'),
  name: text('name').notNull().unique(),
  url: text('url').notNull(),
  alertmanager: jsonb('alertmanager').$type<AlertmanagerSettings>(),
  description: text('description').notNull(),
  eventTypes: jsonb('event_types').$type<string[]>().notNull(),
  balancerIds: jsonb('balancer_ids').$type<string[]>().notNull(),
  secret: text('secret').notNull(),
  previousSecret: text('previous_secret'),
  previousSecretUntil: bigint('previous_secret_until', { mode: 'number' }),
  enabled: boolean('enabled').notNull(),
  disabledReason: text('disabled_reason'),
  disabledAt: bigint('disabled_at', { mode: 'number' }),
  failingSince: bigint('failing_since', { mode: 'number' }),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
});

export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    eventId: text('event_id'),
    balancerId: text('balancer_id'),
    type: text('type').notNull(),
    payload: text('payload').notNull(),
    status: text('status', { enum: DELIVERY_STATUSES }).notNull(),
    rolloutWindowId: text('rollout_window_id'),
    attempts: integer('attempts').notNull(),
    nextAttemptAt: bigint('next_attempt_at', { mode: 'number' }),
    lastAttemptAt: bigint('last_attempt_at', { mode: 'number' }),
    lastHttpStatus: integer('last_http_status'),
    lastError: text('last_error'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    completedAt: bigint('completed_at', { mode: 'number' }),
  },
  (t) => [
    index('webhook_deliveries_due').on(t.status, t.nextAttemptAt),
    index('webhook_deliveries_endpoint').on(t.endpointId, t.createdAt),
  ],
);

export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    endpointId: text('endpoint_id').notNull(),
    at: bigint('at', { mode: 'number' }).notNull(),
    httpStatus: integer('http_status'),
    outcome: text('outcome').notNull(),
    error: text('error'),
    durationMs: integer('duration_ms').notNull(),
  },
  (t) => [index('webhook_attempts_delivery').on(t.deliveryId, t.at)],
);
