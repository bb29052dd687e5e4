import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import type { Verdict } from '@/lib/probe/types';
import type { SubjectKind } from '../schema/subjects';
import { nodes } from './nodes';
import { stdioTargets } from './stdio-targets';

/** PostgreSQL twin of db/schema/subjects.ts. */
export const subjectStates = pgTable(
  'subject_states',
  {
    subjectId: text('subject_id').notNull(),
    region: text('region').notNull().default('default'),
    kind: text('kind').$type<SubjectKind>().notNull(),
    nodeId: text('node_id').references(() => nodes.id, { onDelete: 'cascade' }),
    targetId: text('target_id').references(() => stdioTargets.id, { onDelete: 'cascade' }),
    verdict: jsonb('verdict').$type<Verdict>().notNull(),
    verdictDigest: text('verdict_digest'),
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
  },
  (t) => [
    primaryKey({ columns: [t.subjectId, t.region] }),
    index('subject_states_node').on(t.nodeId),
    index('subject_states_target').on(t.targetId),
  ],
);

export const subjectHistory = pgTable(
  'subject_history',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
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
    isChange: boolean('is_change').notNull().default(false),
    startedAt: bigint('started_at', { mode: 'number' }).notNull(),
    endedAt: bigint('ended_at', { mode: 'number' }),
    probes: integer('probes'),
    failures: integer('failures'),
  },
  (t) => [
    index('subject_history_subject_started').on(t.subjectId, t.region, t.startedAt),
    // Only fingerprint changes, which the flap window reads every cycle for each node: a small index to seek.
    index('subject_history_changes')
      .on(t.subjectId, t.region, t.startedAt)
      .where(sql`${t.isChange}`),
    index('subject_history_node').on(t.nodeId),
    index('subject_history_target').on(t.targetId),
  ],
);
