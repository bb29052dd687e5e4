// Named claims for jobs that must run once per period whichever process runs them (the maintain role's
// retention run). Poll units have leases of their own (db/queries/units.ts).
import { eq, lte, or } from 'drizzle-orm';
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
