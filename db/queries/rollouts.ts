import { and, eq, isNull } from 'drizzle-orm';
import type { RolloutTarget } from '@/lib/rollout/types';
import { checkTarget } from '@/lib/rollout/validate';
import { ConflictError, NotFoundError, ValidationError, type FieldIssue } from '@/lib/errors';
import { firstRow, type Store } from '../index';
import { newId } from '../ids';
import type { RolloutWindow } from '@/lib/schemas/rollout';

export type { RolloutWindow } from '@/lib/schemas/rollout';

/** Declares a rollout window; one open window per balancer (a second is a ConflictError). */
export async function openRolloutWindow(
  store: Store,
  balancerId: string,
  input: { target: RolloutTarget; deadline: number },
  now: number = Date.now(),
): Promise<RolloutWindow> {
  const { balancers, rolloutWindows } = store.t;
  const issues: FieldIssue[] = [];
  const targetIssues: string[] = [];
  checkTarget(input?.target, targetIssues);
  for (const message of targetIssues) {
    const [first = '', ...rest] = message.replace(/^window\./, '').split(' ');
    issues.push({ path: first, message: rest.join(' ') });
  }
  if (typeof input?.deadline !== 'number' || !Number.isInteger(input.deadline)) {
    issues.push({ path: 'deadline', message: 'must be epoch milliseconds' });
  } else if (input.deadline <= now) issues.push({ path: 'deadline', message: 'must be in the future' });
  if (issues.length > 0) throw new ValidationError(issues);
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
          target: pickTarget(input.target),
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

const TARGET_FIELDS = [
  'era',
  'negotiatedVersion',
  'servedEras',
  'supportedIncludes',
  'fingerprintKey',
] as const;

function pickTarget(target: RolloutTarget): RolloutTarget {
  const out: Record<string, unknown> = {};
  for (const f of TARGET_FIELDS) if (target[f] !== undefined) out[f] = target[f];
  return out as RolloutTarget;
}
