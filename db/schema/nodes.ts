import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { balancers } from './balancers';

/** How a node came to be known: a listed URL, a DNS address of the balancer's host, or a sample attribution. */
export const NODE_ORIGINS = ['listed', 'dns', 'sample'] as const;
export type NodeOrigin = (typeof NODE_ORIGINS)[number];

export const nodes = sqliteTable(
  'nodes',
  {
    id: text('id').primaryKey(),
    balancerId: text('balancer_id')
      .notNull()
      .references(() => balancers.id, { onDelete: 'cascade' }),
    /** Stable identity within the balancer: `listed:<url>`, `dns:<address>`, `sample:<servedBy>`. */
    key: text('key').notNull(),
    /** A small integer per node (1, 2, …), the node half of the rollup key. */
    seq: integer('seq'),
    origin: text('origin', { enum: NODE_ORIGINS }).notNull(),
    url: text('url').notNull(),
    address: text('address'),
    servedBy: text('served_by'),
    createdAt: integer('created_at').notNull(),
    lastSeenAt: integer('last_seen_at').notNull(),
  },
  (t) => [
    uniqueIndex('nodes_balancer_key').on(t.balancerId, t.key),
    index('nodes_balancer').on(t.balancerId),
    uniqueIndex('nodes_seq').on(t.seq),
  ],
);

export type NodeRow = typeof nodes.$inferSelect;
