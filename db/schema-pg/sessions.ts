import { bigint, pgTable, text } from 'drizzle-orm/pg-core';

/** PostgreSQL twin of db/schema/sessions.ts. */
export const revokedSessions = pgTable('revoked_sessions', {
  sid: text('sid').primaryKey(),
  expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
});
