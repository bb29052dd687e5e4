import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import type { Verdict } from '@/lib/probe/types';

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
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
});

/** The latest verdict of each stdio target, updated in place every probe (like node_states). */
export const stdioTargetStates = sqliteTable('stdio_target_states', {
  targetId: text('target_id')
    .primaryKey()
    .references(() => stdioTargets.id, { onDelete: 'cascade' }),
  verdict: text('verdict', { mode: 'json' }).$type<Verdict>().notNull(),
  verdictDigest: text('verdict_digest').notNull(),
  /** The fingerprint key, or `unavailable`. */
  fingerprintKey: text('fingerprint_key').notNull(),
  lastAvailableKey: text('last_available_key'),
  clientEra: text('client_era').notNull(),
  reason: text('reason').notNull(),
  probedAt: integer('probed_at').notNull(),
  durationMs: integer('duration_ms').notNull(),
  fingerprintSince: integer('fingerprint_since').notNull(),
  probes: integer('probes').notNull(),
  failures: integer('failures').notNull(),
  consecutiveFailures: integer('consecutive_failures').notNull(),
});

/** One row per fingerprint span of a stdio target: a quiet target writes nothing here. */
export const stdioTargetHistory = sqliteTable(
  'stdio_target_history',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    targetId: text('target_id')
      .notNull()
      .references(() => stdioTargets.id, { onDelete: 'cascade' }),
    fingerprintKey: text('fingerprint_key').notNull(),
    clientEra: text('client_era').notNull(),
    reason: text('reason').notNull(),
    negotiatedVersion: text('negotiated_version'),
    servedEras: text('served_eras').notNull(),
    isChange: integer('is_change', { mode: 'boolean' }).notNull().default(false),
    startedAt: integer('started_at').notNull(),
    endedAt: integer('ended_at'),
    probes: integer('probes'),
    failures: integer('failures'),
  },
  (t) => [index('stdio_target_history_target_started').on(t.targetId, t.startedAt)],
);

export type StdioTargetRow = typeof stdioTargets.$inferSelect;
export type StdioTargetStateRow = typeof stdioTargetStates.$inferSelect;
export type StdioTargetHistoryRow = typeof stdioTargetHistory.$inferSelect;
