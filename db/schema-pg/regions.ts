import { integer, pgTable, text } from 'drizzle-orm/pg-core';

/** PostgreSQL twin of db/schema/regions.ts (ids are handed out by the store, not a sequence). */
export const regions = pgTable('regions', {
  id: integer('id').primaryKey(),
  name: text('name').notNull().unique(),
});
