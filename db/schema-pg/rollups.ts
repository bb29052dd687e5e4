import { bigint, integer, pgTable, text } from 'drizzle-orm/pg-core';

/** PostgreSQL twin of db/schema/rollups.ts; the key (hour × 2^24 + node seq) needs 64 bits. */
export const nodeRollups = pgTable('node_rollups', {
  key: bigint('key', { mode: 'number' }).primaryKey(),
  probes: integer('probes').notNull(),
  failures: integer('failures').notNull(),
  latency: text('latency').notNull(),
});
