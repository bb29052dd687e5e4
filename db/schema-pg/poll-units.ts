import { bigint, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

/** PostgreSQL twin of db/schema/poll-units.ts. */
export const pollUnits = pgTable(
  'poll_units',
  {
    kind: text('kind', { enum: ['balancer', 'stdio'] }).notNull(),
    unitId: text('unit_id').notNull(),
    region: text('region').notNull(),
    holder: text('holder'),
    pid: integer('pid'),
    hostname: text('hostname'),
    token: bigint('token', { mode: 'number' }).notNull().default(0),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull().default(0),
    dueAt: bigint('due_at', { mode: 'number' }).notNull(),
    lastCycleAt: bigint('last_cycle_at', { mode: 'number' }),
    requestedSeq: bigint('requested_seq', { mode: 'number' }).notNull().default(0),
    answeredSeq: bigint('answered_seq', { mode: 'number' }).notNull().default(0),
    storedSeq: bigint('stored_seq', { mode: 'number' }).notNull().default(0),
    lastCycleProbes: integer('last_cycle_probes').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.kind, t.unitId, t.region] }),
    index('poll_units_due_idx').on(t.region, t.dueAt),
  ],
);

/** PostgreSQL twin of the poll_workers table in db/schema/poll-units.ts. */
export const pollWorkers = pgTable('poll_workers', {
  holder: text('holder').primaryKey(),
  region: text('region').notNull(),
  pid: integer('pid').notNull(),
  hostname: text('hostname').notNull(),
  startedAt: bigint('started_at', { mode: 'number' }).notNull(),
  expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
  unitsHeld: integer('units_held').notNull().default(0),
  lastCycleAt: bigint('last_cycle_at', { mode: 'number' }),
});
