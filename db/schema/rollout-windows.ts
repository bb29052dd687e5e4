import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { balancers } from './balancers';

/** A declared rollout: non-uniform is expected until the deadline, then `rollout.stuck`. */
export const rolloutWindows = sqliteTable(
  'rollout_windows',
  {
    id: text('id').primaryKey(),
    balancerId: text('balancer_id')
      .notNull()
      .references(() => balancers.id, { onDelete: 'cascade' }),
    /** The target fingerprint key (or a revision) the nodes are moving to. */
    target: text('target').notNull(),
    deadline: integer('deadline').notNull(),
    openedAt: integer('opened_at').notNull(),
    closedAt: integer('closed_at'),
  },
  (t) => [index('rollout_windows_balancer').on(t.balancerId, t.closedAt)],
);

export type RolloutWindowRow = typeof rolloutWindows.$inferSelect;
