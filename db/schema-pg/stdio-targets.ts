import { sql } from 'drizzle-orm';
import { bigint, boolean, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';

/** PostgreSQL twin of db/schema/stdio-targets.ts. */
export const stdioTargets = pgTable('stdio_targets', {
  id: text('id').primaryKey(),
  name: text('name').notNull().unique(),
  command: text('command').notNull(),
  args: jsonb('args').$type<string[]>().notNull(),
  env: jsonb('env').$type<Record<string, string>>().notNull(),
  envTemplates: jsonb('env_templates').$type<Record<string, string>>().notNull(),
  cwd: text('cwd').notNull(),
  allowLegacy: boolean('allow_legacy').notNull(),
  auditLegacy: boolean('audit_legacy').notNull(),
  legacyVersions: jsonb('legacy_versions').$type<string[]>().notNull(),
  intervalMs: integer('interval_ms').notNull(),
  timeoutMs: integer('timeout_ms').notNull(),
  legacyProbeTimeoutMs: integer('legacy_probe_timeout_ms').notNull(),
  regions: jsonb('regions')
    .$type<string[]>()
    .notNull()
    .default(sql`'[]'::jsonb`),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
});
