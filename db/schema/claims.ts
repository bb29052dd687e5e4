import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Short claims on one subject's probes (a balancer's or stdio target's cycle): a scheduled cycle and a
 * probe-now in any process take the claim first, so one node is never probed twice at once.
 */
export const subjectClaims = sqliteTable('subject_claims', {
  subjectId: text('subject_id').primaryKey(),
  holder: text('holder').notNull(),
  expiresAt: integer('expires_at').notNull(),
});
