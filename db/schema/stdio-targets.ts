import { sql } from 'drizzle-orm';
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * A stdio MCP server the poller launches and probes. Written only by the config file (never the API):
 * env values are stored resolved, with the `${VAR}` templates they came from so export never writes them.
 */
export const stdioTargets = sqliteTable('stdio_targets', {
  id: text('id').primaryKey(),
  name: text('name').notNull().unique(),
  command: text('command').notNull(),
  args: text('args', { mode: 'json' }).$type<string[]>().notNull(),
  env: text('env', { mode: 'json' }).$type<Record<string, string>>().notNull(),
  envTemplates: text('env_templates', { mode: 'json' }).$type<Record<string, string>>().notNull(),
  cwd: text('cwd').notNull(),
  allowLegacy: integer('allow_legacy', { mode: 'boolean' }).notNull(),
  auditLegacy: integer('audit_legacy', { mode: 'boolean' }).notNull(),
  legacyVersions: text('legacy_versions', { mode: 'json' }).$type<string[]>().notNull(),
  intervalMs: integer('interval_ms').notNull(),
  timeoutMs: integer('timeout_ms').notNull(),
  legacyProbeTimeoutMs: integer('legacy_probe_timeout_ms').notNull(),
  /** The regions whose workers launch and probe it; empty: every region that has a worker. */
  regions: text('regions', { mode: 'json' })
    .$type<string[]>()
    .notNull()
    .default(sql`'[]'`),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
});

export type StdioTargetRow = typeof stdioTargets.$inferSelect;
