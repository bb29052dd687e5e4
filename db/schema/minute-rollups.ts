import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Per node and minute, for the last six hours: probe count, failures and a sparse latency histogram, in a
 * ring of slots per node and region (db/rollup-key.ts). `minute` says which minute a slot holds; a write for
 * a newer minute resets the slot, so the table never grows past 360 rows a node and region.
 */
export const nodeMinuteRollups = sqliteTable('node_minute_rollups', {
  key: integer('key').primaryKey(),
  minute: integer('minute').notNull(),
  probes: integer('probes').notNull(),
  failures: integer('failures').notNull(),
  latency: text('latency').notNull(),
});

export type NodeMinuteRollupRow = typeof nodeMinuteRollups.$inferSelect;
