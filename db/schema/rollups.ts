import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { nodes } from './nodes';

/**
 * Per node and hour: probe count, failures and a latency histogram over fixed log buckets, stored sparse
 * as "bucket:count,..." so a quiet node costs a few dozen bytes an hour.
 */
export const hourlyRollups = sqliteTable(
  'hourly_rollups',
  {
    nodeId: text('node_id')
      .notNull()
      .references(() => nodes.id, { onDelete: 'cascade' }),
    balancerId: text('balancer_id').notNull(),
    hourStart: integer('hour_start').notNull(),
    probes: integer('probes').notNull(),
    failures: integer('failures').notNull(),
    latency: text('latency').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.nodeId, t.hourStart] }),
    index('hourly_rollups_balancer_hour').on(t.balancerId, t.hourStart),
  ],
);

export type HourlyRollupRow = typeof hourlyRollups.$inferSelect;
