import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** One row per lease name: whichever poller holds an unexpired row polls; the others wait. */
export const pollerLease = sqliteTable('poller_lease', {
  name: text('name').primaryKey(),
  holder: text('holder').notNull(),
  pid: integer('pid').notNull(),
  hostname: text('hostname').notNull(),
  acquiredAt: integer('acquired_at').notNull(),
  renewedAt: integer('renewed_at').notNull(),
  expiresAt: integer('expires_at').notNull(),
  /** When the holder last finished a cycle (for readiness). */
  lastCycleAt: integer('last_cycle_at'),
});

export type PollerLeaseRow = typeof pollerLease.$inferSelect;
