// Dashboard sessions ended by a logout. The cookie itself is stateless (signed, with an expiry); what a
// logout ends is recorded here until that expiry, so every web process refuses the cookie from then on.
import { eq, lte } from 'drizzle-orm';
import type { Store } from '@/db/index';

/** Records a logout of session `sid`, kept until the cookie would have expired (`expiresAt`). */
export async function revokeSession(store: Store, sid: string, expiresAt: number): Promise<void> {
  const { revokedSessions: r } = store.t;
  await store.write((tx) => tx.insert(r).values({ sid, expiresAt }).onConflictDoNothing());
}

/** Whether session `sid` was ended by a logout. */
export async function isSessionRevoked(store: Store, sid: string): Promise<boolean> {
  const { revokedSessions: r } = store.t;
  const rows = await store.read((db) => db.select({ sid: r.sid }).from(r).where(eq(r.sid, sid)).limit(1));
  return rows.length > 0;
}

/** Drops the records of sessions whose cookies have expired by `now`; returns how many. */
export async function pruneRevokedSessions(store: Store, now: number): Promise<number> {
  const { revokedSessions: r } = store.t;
  const gone = await store.write((tx) => tx.delete(r).where(lte(r.expiresAt, now)).returning({ sid: r.sid }));
  return gone.length;
}
