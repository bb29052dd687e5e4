import { bigint, pgTable, text } from 'drizzle-orm/pg-core';

/** PostgreSQL twin of db/schema/claims.ts. */
export const subjectClaims = pgTable('subject_claims', {
  subjectId: text('subject_id').primaryKey(),
  holder: text('holder').notNull(),
  expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
});
