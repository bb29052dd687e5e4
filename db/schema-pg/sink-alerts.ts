import { bigint, index, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { webhookEndpoints } from './webhooks';

/** PostgreSQL twin of db/schema/sink-alerts.ts. */
export const sinkAlerts = pgTable(
  'sink_alerts',
  {
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    fingerprint: text('fingerprint').notNull(),
    balancerId: text('balancer_id').notNull(),
    alertname: text('alertname').notNull(),
    labels: jsonb('labels').$type<Record<string, string>>().notNull(),
    annotations: jsonb('annotations').$type<Record<string, string>>().notNull(),
    generatorUrl: text('generator_url').notNull(),
    startsAt: bigint('starts_at', { mode: 'number' }).notNull(),
    endsAt: bigint('ends_at', { mode: 'number' }),
    updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.endpointId, t.fingerprint] }), index('sink_alerts_ends').on(t.endsAt)],
);
