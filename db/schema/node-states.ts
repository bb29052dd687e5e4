import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import type { Verdict } from '@/lib/probe/types';
import { nodes } from './nodes';

/**
 * The latest verdict of each node, updated in place every probe. The JSON is rewritten when the verdict
 * changes beyond its timings; `probed_at` and `duration_ms` are always the latest.
 */
export const nodeStates = sqliteTable('node_states', {
  nodeId: text('node_id')
    .primaryKey()
    .references(() => nodes.id, { onDelete: 'cascade' }),
  verdict: text('verdict', { mode: 'json' }).$type<Verdict>().notNull(),
  /** The fingerprint key, or `unavailable` while the node does not answer usefully. */
  fingerprintKey: text('fingerprint_key').notNull(),
  /** The last available fingerprint key, kept across outages to tell a real change from a recovery. */
  lastAvailableKey: text('last_available_key'),
  /** Digest of the verdict without its timings: an unchanged verdict updates only the small columns. */
  verdictDigest: text('verdict_digest'),
  clientEra: text('client_era').notNull(),
  reason: text('reason').notNull(),
  probedAt: integer('probed_at').notNull(),
  durationMs: integer('duration_ms').notNull(),
  /** Since the fingerprint last changed. */
  fingerprintSince: integer('fingerprint_since').notNull(),
  probes: integer('probes').notNull(),
  failures: integer('failures').notNull(),
  consecutiveFailures: integer('consecutive_failures').notNull(),
});

export type NodeStateRow = typeof nodeStates.$inferSelect;
