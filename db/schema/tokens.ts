import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { TOKEN_SCOPES } from '../../lib/schemas/token';

/** API tokens: only a SHA-256 of the secret is kept; the plain value is shown once, at creation. */
export const apiTokens = sqliteTable(
  'api_tokens',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    scope: text('scope', { enum: TOKEN_SCOPES }).notNull(),
    /** The first characters of the token, so an operator can tell tokens apart without the secret. */
    prefix: text('prefix').notNull(),
    hash: text('hash').notNull().unique(),
    createdAt: integer('created_at').notNull(),
    lastUsedAt: integer('last_used_at'),
    /** Who minted it: `user:<sub>`, `admin` (the admin secret or its session), `local`; null before tokens had owners. */
    createdBy: text('created_by'),
    /** Their name as shown when it was minted (the user's email or name). */
    createdByName: text('created_by_name'),
    revokedAt: integer('revoked_at'),
  },
  (t) => [index('api_tokens_created').on(t.createdAt), index('api_tokens_created_by').on(t.createdBy)],
);

export type ApiTokenRow = typeof apiTokens.$inferSelect;
