import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { balancers } from './balancers';

/**
 * Each region's own latest analysis of a balancer and the snapshot its next cycle diffs against. The
 * cross-region analysis (balancer_states) is combined from these rows, one per region that probes it.
 */
export const balancerRegionStates = sqliteTable(
  'balancer_region_states',
  {
    balancerId: text('balancer_id')
      .notNull()
      .references(() => balancers.id, { onDelete: 'cascade' }),
    region: text('region').notNull(),
    analysis: text('analysis', { mode: 'json' }).$type<unknown>().notNull(),
    snapshot: text('snapshot', { mode: 'json' }).$type<unknown>().notNull(),
    analyzedAt: integer('analyzed_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.balancerId, t.region] })],
);

export type BalancerRegionStateRow = typeof balancerRegionStates.$inferSelect;
