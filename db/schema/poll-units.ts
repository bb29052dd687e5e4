import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * One row per unit of poll work: a balancer or stdio target in one region. A worker claims a due unit by
 * taking an expired lease on its row, bumping `token`; every write of the unit's cycle checks that token.
 * A released row keeps its last holder (for readiness) with `expires_at` 0.
 */
export const pollUnits = sqliteTable(
  'poll_units',
  {
    kind: text('kind', { enum: ['balancer', 'stdio'] }).notNull(),
    unitId: text('unit_id').notNull(),
    region: text('region').notNull(),
    holder: text('holder'),
    pid: integer('pid'),
    hostname: text('hostname'),
    /** Fencing token: incremented on every claim, so a paused holder's writes are refused. */
    token: integer('token').notNull().default(0),
    expiresAt: integer('expires_at').notNull().default(0),
    dueAt: integer('due_at').notNull(),
    lastCycleAt: integer('last_cycle_at'),
    /** Cycles asked for (probe-now, the fresh gate): each ask bumps it and makes the unit due now. */
    requestedSeq: integer('requested_seq').notNull().default(0),
    /** The asks a finished cycle attempted: those seen when its holder claimed the unit. */
    answeredSeq: integer('answered_seq').notNull().default(0),
    /** The asks whose cycle stored its results, set in that cycle's fenced write. */
    storedSeq: integer('stored_seq').notNull().default(0),
    /** Probes the last cycle that stored made (what a probe-now answers with). */
    lastCycleProbes: integer('last_cycle_probes').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.kind, t.unitId, t.region] }),
    index('poll_units_due_idx').on(t.region, t.dueAt),
  ],
);

/** One row per running poll role: which workers poll, in which region, and when they last renewed. */
export const pollWorkers = sqliteTable('poll_workers', {
  holder: text('holder').primaryKey(),
  region: text('region').notNull(),
  pid: integer('pid').notNull(),
  hostname: text('hostname').notNull(),
  startedAt: integer('started_at').notNull(),
  expiresAt: integer('expires_at').notNull(),
  unitsHeld: integer('units_held').notNull().default(0),
  lastCycleAt: integer('last_cycle_at'),
});

export type PollUnitRow = typeof pollUnits.$inferSelect;
export type PollWorkerRow = typeof pollWorkers.$inferSelect;
