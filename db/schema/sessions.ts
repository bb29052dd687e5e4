import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Dashboard sessions ended by a logout, until their cookie would have expired anyway: every web process
 * checks a session cookie against this table, so a logout ends that session everywhere at once.
 */
export const revokedSessions = sqliteTable('revoked_sessions', {
  sid: text('sid').primaryKey(),
  expiresAt: integer('expires_at').notNull(),
});
