// Named claims of periodic jobs: a job that must run once per period whichever process runs it (the maintain
// role's retention run) takes its claim for the period first. The table keeps its old name, subject_claims (a
// rename is a migration for no change in behaviour); its key is the job's name. Poll units have leases of their
// own (db/queries/units.ts).
import { eq, lte, or } from 'drizzle-orm';
import { sql } from 'drizzle-orm';
import type { Store } from '@/db/index';
import { storeClockSql } from '@/db/clock';

/**
 * Takes the job's claim for `periodMs` when it is free, expired, already this holder's or held by `takeFrom`
 * (a holder known to be gone); false while someone else holds it. One
 * conditional upsert, so two processes racing for it (on PostgreSQL, in concurrent transactions) never both win.
 * Expiry is judged by the store's clock: on PostgreSQL the database's, whatever `now` says.
 */
export async function claimPeriodicJob(
  store: Store,
  job: string,
  holder: string,
  periodMs: number,
  now: number,
  takeFrom?: string,
): Promise<boolean> {
  return upsertClaim(store, (fn) => store.write(fn), job, holder, periodMs, now, takeFrom);
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
