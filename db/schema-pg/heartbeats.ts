import { bigint, pgTable, text } from 'drizzle-orm/pg-core';
import { bytea } from './types';

/** PostgreSQL twin of db/schema/heartbeats.ts. */
export const storeHeartbeats = pgTable('store_heartbeats', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  holder: text('holder').notNull(),
  at: bigint('at', { mode: 'number' }).notNull(),
  pad: bytea('pad').notNull(),
});
