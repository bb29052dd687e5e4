import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { balancers } from './balancers';

// One list of event types: the analysis emits them, the table stores them.
export { EVENT_TYPES, type EventType } from '../../lib/rollout/types';

export const events = sqliteTable(
  'events',
  {
    /** Insertion order; the cursor of listEvents. */
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    balancerId: text('balancer_id')
      .notNull()
      .references(() => balancers.id, { onDelete: 'cascade' }),
    nodeId: text('node_id'),
    type: text('type').notNull(),
    at: integer('at').notNull(),
    data: text('data', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  },
  (t) => [
    index('events_balancer_at').on(t.balancerId, t.at),
    index('events_type_at').on(t.type, t.at),
    index('events_at').on(t.at),
  ],
);

export type EventRow = typeof events.$inferSelect;
