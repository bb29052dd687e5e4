// Subject claims: whoever probes a balancer's or stdio target's nodes (a scheduled cycle or a probe-now, in any
// process) holds its claim for the duration, so one node is never probed twice at once.
import { and, eq, gt, lte, or } from 'drizzle-orm';
import { sql } from 'drizzle-orm';
import type { Store } from '@/db/index';
import { storeClockSql } from '@/db/clock';

/**
 * Takes the claim when it is free, expired, already this holder's or held by `takeFrom` (a holder known to be
 * gone); false while someone else holds it. One
 * conditional upsert, so two processes racing for it (on PostgreSQL, in concurrent transactions) never both win.
 * Expiry is judged by the store's clock: on PostgreSQL the database's, whatever `now` says.
 */
export async function claimSubject(
  store: Store,
  subjectId: string,
  holder: string,
  ttlMs: number,
  now: number,
  takeFrom?: string,
): Promise<boolean> {
  return upsertClaim(store, (fn) => store.write(fn), subjectId, holder, ttlMs, now, takeFrom);
}

/** Extends this holder's claim (or takes it back when it lapsed and is free), on the store's lease connection. */
export async function renewSubjectClaim(
  store: Store,
  subjectId: string,
  holder: string,
  ttlMs: number,
  now: number,
): Promise<boolean> {
  return upsertClaim(store, (fn) => store.lease(fn), subjectId, holder, ttlMs, now);
}

/**
 * Extends every unexpired claim `holder` holds (a poll worker's running cycles), in one statement on the
 * store's lease connection; answers how many it extended.
 */
export async function renewHolderClaims(
  store: Store,
  holder: string,
  ttlMs: number,
  now: number,
): Promise<number> {
  const { subjectClaims: c } = store.t;
  const t = storeClockSql(store, now);
  const rows = await store.lease((tx) =>
    tx
      .update(c)
      .set({ expiresAt: sql`${t} + ${ttlMs}` })
      .where(and(eq(c.holder, holder), gt(c.expiresAt, t)))
      .returning({ subjectId: c.subjectId }),
  );
  return rows.length;
}

async function upsertClaim(
  store: Store,
  inTx: Store['write'],
  subjectId: string,
  holder: string,
  ttlMs: number,
  now: number,
  takeFrom?: string,
): Promise<boolean> {
  const { subjectClaims: c } = store.t;
  const t = storeClockSql(store, now);
  const rows = await inTx((tx) =>
    tx
      .insert(c)
      .values({ subjectId, holder, expiresAt: sql`${t} + ${ttlMs}` })
      .onConflictDoUpdate({
        target: c.subjectId,
        set: { holder, expiresAt: sql`${t} + ${ttlMs}` },
        setWhere: or(
          eq(c.holder, holder),
          lte(c.expiresAt, t),
          takeFrom === undefined ? undefined : eq(c.holder, takeFrom),
        ),
      })
      .returning({ subjectId: c.subjectId }),
  );
  return rows.length === 1;
}

export async function releaseSubject(store: Store, subjectId: string, holder: string): Promise<void> {
  const { subjectClaims: c } = store.t;
  await store.write((tx) => tx.delete(c).where(and(eq(c.subjectId, subjectId), eq(c.holder, holder))));
}

/** Who holds the claim now (expired or not), or null when nobody does. */
export async function subjectHolder(store: Store, subjectId: string): Promise<string | null> {
  const { subjectClaims: c } = store.t;
  const rows = await store.read((db) =>
    db.select({ holder: c.holder }).from(c).where(eq(c.subjectId, subjectId)),
  );
  return rows[0]?.holder ?? null;
}
