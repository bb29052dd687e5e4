import { and, eq, isNull } from 'drizzle-orm';
import type { RolloutTarget } from '@/lib/rollout/types';
import { ConflictError, NotFoundError } from '@/lib/errors';
import { firstRow, type Store } from '../index';
import { newId } from '../ids';
import type { RolloutWindow } from '@/lib/schemas/rollout';

export type { RolloutWindow } from '@/lib/schemas/rollout';

/**
 * Stores a rollout window, validated by its caller (the route's OpenRolloutInput and lib/rollout's
 * checkWindowDeadline); one open window per balancer (a second is a ConflictError).
 */
export async function openRolloutWindow(
  store: Store,
  balancerId: string,
  input: { target: RolloutTarget; deadline: number },
  now: number = Date.now(),
): Promise<RolloutWindow> {
  const { balancers, rolloutWindows } = store.t;
  return store.write(async (tx) => {
    const [b] = await tx.select({ id: balancers.id }).from(balancers).where(eq(balancers.id, balancerId));
    if (!b) throw new NotFoundError('balancer', balancerId);
    const open = await getOpenWindow(store, balancerId);
    if (open)
      throw new ConflictError(`balancer '${balancerId}' already has an open rollout window (${open.id})`);
    return firstRow(
      await tx
        .insert(rolloutWindows)
        .values({
          id: newId('win'),
          balancerId,
          target: input.target,
          deadline: input.deadline,
          openedAt: now,
          closedAt: null,
        })
        .returning(),
    );
  });
}

export async function closeRolloutWindow(
  store: Store,
  windowId: string,
  now: number = Date.now(),
): Promise<RolloutWindow> {
  const { rolloutWindows } = store.t;
  return store.write(async (tx) => {
    const [w] = await tx.select().from(rolloutWindows).where(eq(rolloutWindows.id, windowId));
    if (!w) throw new NotFoundError('rollout window', windowId);
    if (w.closedAt !== null) throw new ConflictError(`rollout window '${windowId}' is already closed`);
    const updated = firstRow(
      await tx
        .update(rolloutWindows)
        .set({ closedAt: now })
        .where(eq(rolloutWindows.id, windowId))
        .returning(),
    );
    return updated ?? { ...w, closedAt: now };
  });
}

export async function getOpenWindow(store: Store, balancerId: string): Promise<RolloutWindow | null> {
  const { rolloutWindows } = store.t;
  return (
    (
      await store.read((db) =>
        db
          .select()
          .from(rolloutWindows)
          .where(and(eq(rolloutWindows.balancerId, balancerId), isNull(rolloutWindows.closedAt))),
      )
    )[0] ?? null
  );
}
