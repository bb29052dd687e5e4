import { bigint, index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { balancers } from './balancers';

export { EVENT_TYPES, type EventType } from '../../lib/rollout/types';

/** PostgreSQL twin of db/schema/events.ts; `seq` is an identity column (SQLite's autoincrement rowid). */
export const events = pgTable(
  'events',
  {
    seq: bigint('seq', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    id: text('id').notNull().unique(),
    balancerId: text('balancer_id')
      .notNull()
      .references(() => balancers.id, { onDelete: 'cascade' }),
    nodeId: text('node_id'),
    type: text('type').notNull(),
    at: bigint('at', { mode: 'number' }).notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
  },
  (t) => [
    index('events_balancer_at').on(t.balancerId, t.at),
    index('events_type_at').on(t.type, t.at),
    index('events_at').on(t.at),
  ],
);
