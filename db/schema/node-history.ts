import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { nodes } from './nodes';

/**
 * One row per fingerprint span of a node: written when the fingerprint changes, closed (endedAt, counters)
 * when it changes again. A quiet node writes nothing here.
 */
export const nodeHistory = sqliteTable(
  'node_history',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    nodeId: text('node_id')
      .notNull()
      .references(() => nodes.id, { onDelete: 'cascade' }),
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
  (t) => [index('node_history_node_started').on(t.nodeId, t.startedAt)],
);

export type NodeHistoryRow = typeof nodeHistory.$inferSelect;
