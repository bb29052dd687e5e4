// Subject claims: whoever probes a balancer's or stdio target's nodes (a scheduled cycle or a probe-now, in any
// process) holds its claim for the duration, so one node is never probed twice at once.
import { and, eq } from 'drizzle-orm';
import type { Store } from '@/db/index';

/** Takes the claim when it is free, expired or already this holder's; false while someone else holds it. */
export function claimSubject(
  store: Store,
  subjectId: string,
  holder: string,
  ttlMs: number,
  now: number,
): Promise<boolean> {
  const { subjectClaims: c } = store.t;
  return store.write(async (tx) => {
    const [current] = await tx
      .select({ holder: c.holder, expiresAt: c.expiresAt })
      .from(c)
      .where(eq(c.subjectId, subjectId));
    if (current && current.holder !== holder && current.expiresAt > now) return false;
    await tx
      .insert(c)
      .values({ subjectId, holder, expiresAt: now + ttlMs })
      .onConflictDoUpdate({ target: c.subjectId, set: { holder, expiresAt: now + ttlMs } });
    return true;
  });
}

export async function releaseSubject(store: Store, subjectId: string, holder: string): Promise<void> {
  const { subjectClaims: c } = store.t;
  await store.write((tx) => tx.delete(c).where(and(eq(c.subjectId, subjectId), eq(c.holder, holder))));
}
