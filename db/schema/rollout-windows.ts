import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import type { RolloutTarget } from '@/lib/rollout/types';
import { balancers } from './balancers';

/** A declared rollout: non-uniform is expected until the deadline, then `rollout.stuck`. */
export const rolloutWindows = sqliteTable(
  'rollout_windows',
  {
    id: text('id').primaryKey(),
    balancerId: text('balancer_id')
      .notNull()
      .references(() => balancers.id, { onDelete: 'cascade' }),
    /** What the nodes are moving to (era, version, served set or fingerprint key), as JSON. */
    target: text('target', { mode: 'json' }).$type<RolloutTarget>().notNull(),
    deadline: integer('deadline').notNull(),
    openedAt: integer('opened_at').notNull(),
    closedAt: integer('closed_at'),
  },
  (t) => [index('rollout_windows_balancer').on(t.balancerId, t.closedAt)],
);

export type RolloutWindowRow = typeof rolloutWindows.$inferSelect;
