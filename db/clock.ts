// The store's clock in epoch ms: on PostgreSQL the database's, so workers on hosts with skewed clocks agree on
// what is due and when a lease ends; on SQLite the process's (one host, so its clock is the database's).
import { sql, type SQL } from 'drizzle-orm';
import { selectRows, type Store } from './index';

/** The store's time as a SQL expression: `now()` in epoch ms on PostgreSQL, else `local`. */
export function storeClockSql(store: Store, local: number): SQL {
  return store.engine === 'postgres'
    ? sql`CAST(floor(extract(epoch from now()) * 1000) AS bigint)`
    : sql`${local}`;
}

/** The store's time now: the database's on PostgreSQL (one round trip), else `local`. */
export async function storeNow(store: Store, local: number): Promise<number> {
  if (store.engine !== 'postgres') return local;
  const rows = await store.read(() =>
    selectRows<{ t: unknown }>(store, sql`SELECT ${storeClockSql(store, local)} AS t`),
  );
  return Number(rows[0]?.t ?? local);
}

/**
 * A due time for "at once" written with a process's clock: on PostgreSQL never later than the database's now,
 * so a writer whose clock runs ahead does not leave the row waiting for the others to catch up.
 */
export function dueAtOnce(store: Store, at: number): SQL | number {
  return store.engine === 'postgres' ? sql`LEAST(${at}::bigint, ${storeClockSql(store, at)})` : at;
}
