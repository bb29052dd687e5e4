import { bigint, boolean, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import type { Verdict } from '@/lib/probe/types';

/** PostgreSQL twins of db/schema/stdio-targets.ts. */
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
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
});

export const stdioTargetStates = pgTable('stdio_target_states', {
  targetId: text('target_id')
    .primaryKey()
    .references(() => stdioTargets.id, { onDelete: 'cascade' }),
  verdict: jsonb('verdict').$type<Verdict>().notNull(),
  verdictDigest: text('verdict_digest').notNull(),
  fingerprintKey: text('fingerprint_key').notNull(),
  lastAvailableKey: text('last_available_key'),
  clientEra: text('client_era').notNull(),
  reason: text('reason').notNull(),
  probedAt: bigint('probed_at', { mode: 'number' }).notNull(),
  durationMs: integer('duration_ms').notNull(),
  fingerprintSince: bigint('fingerprint_since', { mode: 'number' }).notNull(),
  probes: integer('probes').notNull(),
  failures: integer('failures').notNull(),
  consecutiveFailures: integer('consecutive_failures').notNull(),
});

export const stdioTargetHistory = pgTable(
  'stdio_target_history',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    targetId: text('target_id')
      .notNull()
      .references(() => stdioTargets.id, { onDelete: 'cascade' }),
    fingerprintKey: text('fingerprint_key').notNull(),
    clientEra: text('client_era').notNull(),
    reason: text('reason').notNull(),
    negotiatedVersion: text('negotiated_version'),
    servedEras: text('served_eras').notNull(),
    isChange: boolean('is_change').notNull().default(false),
    startedAt: bigint('started_at', { mode: 'number' }).notNull(),
    endedAt: bigint('ended_at', { mode: 'number' }),
    probes: integer('probes'),
    failures: integer('failures'),
  },
  (t) => [index('stdio_target_history_target_started').on(t.targetId, t.startedAt)],
);
