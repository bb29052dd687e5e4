import { bigint, integer, pgTable, text } from 'drizzle-orm/pg-core';

/** PostgreSQL twin of db/schema/minute-rollups.ts; the ring key needs more than 32 bits. */
export const nodeMinuteRollups = pgTable('node_minute_rollups', {
  key: bigint('key', { mode: 'number' }).primaryKey(),
  minute: integer('minute').notNull(),
  probes: integer('probes').notNull(),
  failures: integer('failures').notNull(),
  latency: text('latency').notNull(),
});
