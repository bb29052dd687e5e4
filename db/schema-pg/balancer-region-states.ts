import { bigint, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { balancers } from './balancers';

/** PostgreSQL twin of db/schema/balancer-region-states.ts. */
export const balancerRegionStates = pgTable(
  'balancer_region_states',
  {
    balancerId: text('balancer_id')
      .notNull()
      .references(() => balancers.id, { onDelete: 'cascade' }),
    region: text('region').notNull(),
    analysis: jsonb('analysis').$type<unknown>().notNull(),
    snapshot: jsonb('snapshot').$type<unknown>().notNull(),
    analyzedAt: bigint('analyzed_at', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.balancerId, t.region] })],
);
