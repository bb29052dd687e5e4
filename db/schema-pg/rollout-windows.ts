import { bigint, index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import type { RolloutTarget } from '@/lib/rollout/types';
import { balancers } from './balancers';

/** PostgreSQL twin of db/schema/rollout-windows.ts. */
export const rolloutWindows = pgTable(
  'rollout_windows',
  {
    id: text('id').primaryKey(),
    balancerId: text('balancer_id')
      .notNull()
      .references(() => balancers.id, { onDelete: 'cascade' }),
    target: jsonb('target').$type<RolloutTarget>().notNull(),
    deadline: bigint('deadline', { mode: 'number' }).notNull(),
    openedAt: bigint('opened_at', { mode: 'number' }).notNull(),
    closedAt: bigint('closed_at', { mode: 'number' }),
  },
  (t) => [index('rollout_windows_balancer').on(t.balancerId, t.closedAt)],
);
