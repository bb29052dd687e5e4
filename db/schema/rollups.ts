import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Per node and hour: probe count, failures and a sparse latency histogram. The key packs hour and node
 * into the rowid (hour × 2^24 + node seq), so the table is one B-tree with no second index: a quiet
 * fleet's new hour costs a few dozen bytes a node, the current hour's rows sit together (cheap updates),
 * and pruning is one range delete. See db/rollup-key.ts.
 */
export const nodeRollups = sqliteTable('node_rollups', {
  key: integer('key').primaryKey(),
  probes: integer('probes').notNull(),
  failures: integer('failures').notNull(),
  latency: text('latency').notNull(),
});

export type NodeRollupRow = typeof nodeRollups.$inferSelect;
