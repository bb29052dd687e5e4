import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { webhookEndpoints } from './webhooks';

/**
 * Each alert an alert sink knows of, firing or recently resolved. Every push sends the sink's whole set, so an
 * Alertmanager that lost its state, or missed a resolve, catches up on the next push.
 */
export const sinkAlerts = sqliteTable(
  'sink_alerts',
  {
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    /** Stable hash of the label set: one alert in Alertmanager's eyes. */
    fingerprint: text('fingerprint').notNull(),
    balancerId: text('balancer_id').notNull(),
    alertname: text('alertname').notNull(),
    labels: text('labels', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    annotations: text('annotations', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    generatorUrl: text('generator_url').notNull(),
    startsAt: integer('starts_at').notNull(),
    /** Set when the condition cleared. */
    endsAt: integer('ends_at'),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.endpointId, t.fingerprint] }), index('sink_alerts_ends').on(t.endsAt)],
);

export type SinkAlertRow = typeof sinkAlerts.$inferSelect;
