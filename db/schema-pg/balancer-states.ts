import { bigint, boolean, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { balancers } from './balancers';

/** PostgreSQL twin of db/schema/balancer-states.ts. */
export const balancerStates = pgTable('balancer_states', {
  balancerId: text('balancer_id')
    .primaryKey()
    .references(() => balancers.id, { onDelete: 'cascade' }),
  status: text('status').notNull(),
  severity: text('severity'),
  displayStatus: text('display_status').notNull().default('unknown'),
  degraded: boolean('degraded').notNull(),
  analysis: jsonb('analysis').$type<unknown>().notNull(),
  snapshot: jsonb('snapshot').$type<unknown>().notNull(),
  analyzedAt: bigint('analyzed_at', { mode: 'number' }).notNull(),
  cycles: integer('cycles').notNull(),
});
