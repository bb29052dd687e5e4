import { bigint, index, pgTable, text } from 'drizzle-orm/pg-core';
import { TOKEN_SCOPES } from '../../lib/schemas/token';

/** PostgreSQL twin of db/schema/tokens.ts. */
export const apiTokens = pgTable(
  'api_tokens',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    scope: text('scope', { enum: TOKEN_SCOPES }).notNull(),
    prefix: text('prefix').notNull(),
    hash: text('hash').notNull().unique(),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    lastUsedAt: bigint('last_used_at', { mode: 'number' }),
    /** Who minted it: `user:<sub>`, `admin` (the admin secret or its session), `local`; null before tokens had owners. */
    createdBy: text('created_by'),
    /** Their name as shown when it was minted (the user's email or name). */
    createdByName: text('created_by_name'),
    revokedAt: bigint('revoked_at', { mode: 'number' }),
  },
  (t) => [index('api_tokens_created').on(t.createdAt), index('api_tokens_created_by').on(t.createdBy)],
);
