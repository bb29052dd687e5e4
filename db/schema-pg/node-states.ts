import { bigint, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import type { Verdict } from '@/lib/probe/types';
import { nodes } from './nodes';

/** PostgreSQL twin of db/schema/node-states.ts. */
export const nodeStates = pgTable('node_states', {
  nodeId: text('node_id')
    .primaryKey()
    .references(() => nodes.id, { onDelete: 'cascade' }),
  verdict: jsonb('verdict').$type<Verdict>().notNull(),
  fingerprintKey: text('fingerprint_key').notNull(),
  lastAvailableKey: text('last_available_key'),
  verdictDigest: text('verdict_digest'),
  clientEra: text('client_era').notNull(),
  reason: text('reason').notNull(),
  probedAt: bigint('probed_at', { mode: 'number' }).notNull(),
  durationMs: integer('duration_ms').notNull(),
  fingerprintSince: bigint('fingerprint_since', { mode: 'number' }).notNull(),
  probes: integer('probes').notNull(),
  failures: integer('failures').notNull(),
  consecutiveFailures: integer('consecutive_failures').notNull(),
});
