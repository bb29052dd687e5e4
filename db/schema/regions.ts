import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The regions that ever probed into this store, each with a small integer id (0 is `default`). The id is
 * the region part of the rollup key (db/rollup-key.ts), so a rollup row stays one integer key.
 */
export const regions = sqliteTable('regions', {
  id: integer('id').primaryKey(),
  name: text('name').notNull().unique(),
});

export type RegionRow = typeof regions.$inferSelect;
