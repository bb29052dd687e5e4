import { bigint, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { NODE_ORIGINS } from '../schema/nodes';
import { balancers } from './balancers';

export { NODE_ORIGINS, type NodeOrigin } from '../schema/nodes';

/** PostgreSQL twin of db/schema/nodes.ts. */
export const nodes = pgTable(
  'nodes',
  {
    id: text('id').primaryKey(),
    balancerId: text('balancer_id')
      .notNull()
      .references(() => balancers.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    seq: integer('seq'),
    origin: text('origin', { enum: NODE_ORIGINS }).notNull(),
    url: text('url').notNull(),
    address: text('address'),
    servedBy: text('served_by'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    lastSeenAt: bigint('last_seen_at', { mode: 'number' }).notNull(),
  },
  (t) => [
    uniqueIndex('nodes_balancer_key').on(t.balancerId, t.key),
    index('nodes_balancer').on(t.balancerId),
    uniqueIndex('nodes_seq').on(t.seq),
  ],
);
