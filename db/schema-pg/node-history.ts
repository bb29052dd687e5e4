import { bigint, boolean, index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { nodes } from './nodes';

/** PostgreSQL twin of db/schema/node-history.ts. */
export const nodeHistory = pgTable(
  'node_history',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    nodeId: text('node_id')
      .notNull()
      .references(() => nodes.id, { onDelete: 'cascade' }),
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
  (t) => [index('node_history_node_started').on(t.nodeId, t.startedAt)],
);
