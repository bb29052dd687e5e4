// Region ids: the small integer of each region name that ever probed into the store, the region part of the
// rollup key. Ids are handed out once and never reused, so a process may cache what it has seen committed.
import { asc, eq, sql } from 'drizzle-orm';
import { executeStatement, type Db, type Store } from '../index';
import { MAX_REGION_ID } from '../rollup-key';

const committed = new WeakMap<Store, Map<string, number>>();

/** Too many regions for the rollup key: the store refuses the region rather than corrupt keys. */
export class RegionLimitError extends Error {
  override readonly name = 'RegionLimitError';
  constructor(region: string) {
    super(`region '${region}' cannot be stored: a store holds at most ${MAX_REGION_ID + 1} regions`);
  }
}

/**
 * The id of `region`, handing out the next one on first use; call it inside the write transaction that
 * stores rows under it (SQLite's write lock, or a table lock on PostgreSQL, keeps two writers from racing).
 */
export async function regionIdIn(store: Store, tx: Db, region: string): Promise<number> {
  const cache = committed.get(store) ?? new Map<string, number>();
  committed.set(store, cache);
  const cached = cache.get(region);
  if (cached !== undefined) return cached;
  const { regions: r } = store.t;
  const [found] = await tx.select({ id: r.id }).from(r).where(eq(r.name, region));
  if (found) {
    // Seen without inserting it here: it is committed, so it stays valid even if this transaction rolls back.
    cache.set(region, found.id);
    return found.id;
  }
  if (store.engine === 'postgres')
    await executeStatement(store, sql`LOCK TABLE regions IN SHARE ROW EXCLUSIVE MODE`);
  const [again] = await tx.select({ id: r.id }).from(r).where(eq(r.name, region));
  if (again) return again.id;
  const [top] = await tx
    .select({ id: r.id })
    .from(r)
    .orderBy(sql`${r.id} DESC`)
    .limit(1);
  const id = top ? top.id + 1 : 0;
  if (id > MAX_REGION_ID) throw new RegionLimitError(region);
  await tx.insert(r).values({ id, name: region });
  return id;
}

/** Every stored region with its id, by id. */
export function listRegionIds(store: Store): Promise<Array<{ id: number; name: string }>> {
  const { regions: r } = store.t;
  return store.read((db) => db.select({ id: r.id, name: r.name }).from(r).orderBy(asc(r.id)));
}
