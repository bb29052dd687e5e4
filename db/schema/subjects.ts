import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import type { Verdict } from '@/lib/probe/types';
import { nodes } from './nodes';
import { stdioTargets } from './stdio-targets';

/** What a probed subject is: a balancer's node (HTTP) or a stdio target the poller launches. */
export type SubjectKind = 'node' | 'stdio';

/**
 * The latest verdict of each probed subject from each region, updated in place every probe. `subject_id` is
 * the node's or the target's id; exactly one of `node_id`/`target_id` repeats it, so deleting either cascades.
 * The JSON is rewritten when the verdict changes beyond its timings; `probed_at`, `duration_ms` are the latest.
 */
export const subjectStates = sqliteTable(
  'subject_states',
  {
    subjectId: text('subject_id').notNull(),
    region: text('region').notNull().default('default'),
    kind: text('kind').$type<SubjectKind>().notNull(),
    nodeId: text('node_id').references(() => nodes.id, { onDelete: 'cascade' }),
    targetId: text('target_id').references(() => stdioTargets.id, { onDelete: 'cascade' }),
    verdict: text('verdict', { mode: 'json' }).$type<Verdict>().notNull(),
    /** Digest of the verdict without its timings: an unchanged verdict updates only the small columns. */
    verdictDigest: text('verdict_digest'),
    /** The fingerprint key, or `unavailable` while the subject does not answer usefully. */
    fingerprintKey: text('fingerprint_key').notNull(),
    /** The last available fingerprint key, kept across outages to tell a real change from a recovery. */
    lastAvailableKey: text('last_available_key'),
    clientEra: text('client_era').notNull(),
    reason: text('reason').notNull(),
    probedAt: integer('probed_at').notNull(),
    durationMs: integer('duration_ms').notNull(),
    /** Since the fingerprint last changed. */
    fingerprintSince: integer('fingerprint_since').notNull(),
    probes: integer('probes').notNull(),
    failures: integer('failures').notNull(),
    consecutiveFailures: integer('consecutive_failures').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.subjectId, t.region] }),
    // The foreign keys' own indexes: without them every node or target delete scans the table.
    index('subject_states_node').on(t.nodeId),
    index('subject_states_target').on(t.targetId),
  ],
);

/**
 * One row per fingerprint span of a subject in a region: written when the fingerprint changes, closed
 * (endedAt, counters) when it changes again. A quiet subject writes nothing here.
 */
export const subjectHistory = sqliteTable(
  'subject_history',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    subjectId: text('subject_id').notNull(),
    region: text('region').notNull().default('default'),
    kind: text('kind').$type<SubjectKind>().notNull(),
    nodeId: text('node_id').references(() => nodes.id, { onDelete: 'cascade' }),
    targetId: text('target_id').references(() => stdioTargets.id, { onDelete: 'cascade' }),
    fingerprintKey: text('fingerprint_key').notNull(),
    clientEra: text('client_era').notNull(),
    reason: text('reason').notNull(),
    negotiatedVersion: text('negotiated_version'),
    servedEras: text('served_eras').notNull(),
    /** An available fingerprint that differs from the last available one (what flapping counts). */
    isChange: integer('is_change', { mode: 'boolean' }).notNull().default(false),
    startedAt: integer('started_at').notNull(),
    endedAt: integer('ended_at'),
    /** Probes and failures inside the span, set when the span closes. */
    probes: integer('probes'),
    failures: integer('failures'),
  },
  (t) => [
    index('subject_history_subject_started').on(t.subjectId, t.region, t.startedAt),
    // Only fingerprint changes, which the flap window reads every cycle for each node: a small index to seek.
    index('subject_history_changes')
      .on(t.subjectId, t.region, t.startedAt)
      .where(sql`${t.isChange} = 1`),
    index('subject_history_node').on(t.nodeId),
    index('subject_history_target').on(t.targetId),
  ],
);

export type SubjectStateRow = typeof subjectStates.$inferSelect;
export type SubjectHistoryRow = typeof subjectHistory.$inferSelect;
