import { blob, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Readiness heartbeats: each check writes a fresh row (with a page-sized pad, so a store that cannot grow
 * fails it) and deletes the older ones, so the table stays one row per process.
 */
export const storeHeartbeats = sqliteTable('store_heartbeats', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  holder: text('holder').notNull(),
  at: integer('at').notNull(),
  pad: blob('pad', { mode: 'buffer' }).notNull(),
});
