import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { balancers } from './balancers';

/** The latest analysis of each balancer and the snapshot the next cycle diffs against. */
export const balancerStates = sqliteTable('balancer_states', {
  balancerId: text('balancer_id')
    .primaryKey()
    .references(() => balancers.id, { onDelete: 'cascade' }),
  /** Headline summary columns, so listing balancers does not parse the analysis JSON. */
  status: text('status').notNull(),
  severity: text('severity'),
  /** The one status the UI shows (stuck, rolling, era-split, drift, down, flapping, degraded, uniform, unknown). */
  displayStatus: text('display_status').notNull().default('unknown'),
  degraded: integer('degraded', { mode: 'boolean' }).notNull(),
  analysis: text('analysis', { mode: 'json' }).$type<unknown>().notNull(),
  snapshot: text('snapshot', { mode: 'json' }).$type<unknown>().notNull(),
  analyzedAt: integer('analyzed_at').notNull(),
  cycles: integer('cycles').notNull(),
});

export type BalancerStateRow = typeof balancerStates.$inferSelect;
