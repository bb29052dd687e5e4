import { bigint, integer, pgTable, text } from 'drizzle-orm/pg-core';

/** PostgreSQL twin of db/schema/poller-lease.ts. */
export const pollerLease = pgTable('poller_lease', {
  name: text('name').primaryKey(),
  holder: text('holder').notNull(),
  pid: integer('pid').notNull(),
  hostname: text('hostname').notNull(),
  acquiredAt: bigint('acquired_at', { mode: 'number' }).notNull(),
  renewedAt: bigint('renewed_at', { mode: 'number' }).notNull(),
  expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
  lastCycleAt: bigint('last_cycle_at', { mode: 'number' }),
});
