// Dashboard sessions. The cookie itself is stateless (signed, with an expiry); each session issued is recorded
// in dashboard_sessions so an admin can list and end it, and what a logout or an admin ends is recorded in
// revoked_sessions until that expiry, so every web process refuses the cookie from then on.
import { and, desc, eq, gt, isNull, lte } from 'drizzle-orm';
import type { Store } from '@/db/index';
import type { DashboardSession } from '@/lib/schemas/session';
import type { DashboardSessionRow } from '../schema';

/** A session as recorded when it was issued (what the API shows, less whether it is the caller's). */
export type IssuedSession = Omit<DashboardSession, 'current'>;

function toIssued(row: DashboardSessionRow): IssuedSession {
  const user = row.userSub === null ? null : { sub: row.userSub, email: row.userEmail, name: row.userName };
  const { sid, issuedVia, role, address, issuedAt, expiresAt } = row;
  return { id: sid, issuedVia, role, user, address, issuedAt, expiresAt };
}

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
export function pruneRevokedSessions(store: Store, now: number): Promise<number> {
  return pruneExpired(store, store.t.revokedSessions, now);
}

/** Deletes the rows of a table of sessions (keyed by `sid`, with `expiresAt`) expired by `now`. */
async function pruneExpired(
  store: Store,
  table: Store['t']['revokedSessions'] | Store['t']['dashboardSessions'],
  now: number,
): Promise<number> {
  const gone = await store.write((tx) =>
    tx.delete(table).where(lte(table.expiresAt, now)).returning({ sid: table.sid }),
  );
  return gone.length;
}

/** Records a session as it is issued; inside a `store.write` it commits with the login's audit entry. */
export async function recordDashboardSession(store: Store, session: IssuedSession): Promise<void> {
  const { dashboardSessions: d } = store.t;
  const { id, user, ...rest } = session;
  await store.write((tx) =>
    tx
      .insert(d)
      .values({
        sid: id,
        ...rest,
        userSub: user?.sub ?? null,
        userEmail: user?.email ?? null,
        userName: user?.name ?? null,
      })
      .onConflictDoNothing(),
  );
}

/** The sessions not expired by `now` and not ended (or only `sid`'s, or only user `sub`'s), newest first. */
function liveSessions(
  store: Store,
  now: number,
  only: { sid?: string; sub?: string } = {},
): Promise<IssuedSession[]> {
  const { dashboardSessions: d, revokedSessions: r } = store.t;
  return store.read(async (db) =>
    (
      await db
        .select({ session: d })
        .from(d)
        .leftJoin(r, eq(r.sid, d.sid))
        .where(
          and(
            gt(d.expiresAt, now),
            isNull(r.sid),
            only.sid === undefined ? undefined : eq(d.sid, only.sid),
            only.sub === undefined ? undefined : eq(d.userSub, only.sub),
          ),
        )
        .orderBy(desc(d.issuedAt), d.sid)
    ).map((x) => toIssued(x.session)),
  );
}

/** The live sessions of the single sign-on user `sub`, newest first. */
export async function listLiveSessionsOf(store: Store, sub: string, now: number): Promise<IssuedSession[]> {
  return liveSessions(store, now, { sub });
}

/** Every live session: issued, not expired by `now`, not ended by a logout or an admin; newest first. */
export function listLiveSessions(store: Store, now: number): Promise<IssuedSession[]> {
  return liveSessions(store, now);
}

/** Session `sid` while it is live; null when unknown, expired or ended. */
export async function getLiveSession(store: Store, sid: string, now: number): Promise<IssuedSession | null> {
  return (await liveSessions(store, now, { sid }))[0] ?? null;
}

/** Drops the sessions whose cookies have expired by `now`; returns how many. */
export function pruneDashboardSessions(store: Store, now: number): Promise<number> {
  return pruneExpired(store, store.t.dashboardSessions, now);
}
