import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { balancers } from './balancers';

export const EVENT_TYPES = [
  'balancer.diverged',
  'balancer.converged',
  'node.unavailable',
  'node.recovered',
  'node.era_changed',
  'node.flapping',
  'rollout.stuck',
  'gate.opened',
  'gate.closed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

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
