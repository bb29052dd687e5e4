// How big the store is and what it holds, for benchmarks and maintenance reports.
import { count, eq, sql } from 'drizzle-orm';
import { selectRows, type Store } from './index';
import { MINUTE_SLOTS, rollupKey } from './rollup-key';

/** Bytes in use (pages minus free pages), after folding the WAL in; SQLite only (null elsewhere). */
export async function storeBytes(store: Store): Promise<number | null> {
  if (store.engine !== 'sqlite') return null;
  const sqlite = store.sqlite;
  // A checkpoint cannot run inside a transaction (SQLITE_LOCKED), and a write transaction on this connection
  // stays open across awaits: wait (bounded) for none to be open, then run the pragmas without yielding.
  const giveUpAt = Date.now() + 10_000;
  while (sqlite.inTransaction && Date.now() < giveUpAt) await new Promise((r) => setImmediate(r));
  sqlite.pragma('wal_checkpoint(TRUNCATE)');
  const pages = Number(sqlite.pragma('page_count', { simple: true }));
  const free = Number(sqlite.pragma('freelist_count', { simple: true }));
  const size = Number(sqlite.pragma('page_size', { simple: true }));
  return (pages - free) * size;
}

/** Bytes per table and index (SQLite's dbstat); empty on other engines. */
export async function tableBytes(store: Store): Promise<Record<string, number>> {
  if (store.engine !== 'sqlite') return {};
  const rows = store.sqlite
    .prepare('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC')
    .all() as Array<{ name: string; bytes: number }>;
  return Object.fromEntries(rows.map((r) => [r.name, r.bytes]));
}

/**
 * Rows per table, keyed like tableBytes: a table's and each of its indexes' names map to the table's row
 * count. SQLite only (empty elsewhere).
 */
export async function tableRows(store: Store): Promise<Record<string, number>> {
  if (store.engine !== 'sqlite') return {};
  const sqlite = store.sqlite;
  const objects = sqlite
    .prepare("SELECT name, tbl_name AS tableName FROM sqlite_schema WHERE type IN ('table', 'index')")
    .all() as Array<{ name: string; tableName: string }>;
  const counts = new Map<string, number>();
  const quote = (id: string) => `"${id.replace(/"/g, '""')}"`;
  // dbstat also weighs the schema table itself.
  const schemaRows = sqlite.prepare('SELECT count(*) AS n FROM sqlite_schema').get() as { n: number };
  const rows: Record<string, number> = { sqlite_schema: schemaRows.n };
  for (const o of objects) {
    let n = counts.get(o.tableName);
    if (n === undefined) {
      const row = sqlite.prepare(`SELECT count(*) AS n FROM ${quote(o.tableName)}`).get() as { n: number };
      n = row.n;
      counts.set(o.tableName, n);
    }
    rows[o.name] = n;
  }
  return rows;
}

/** How many nodes have a current state (have been probed at least once). */
export async function countNodeStates(store: Store): Promise<number> {
  const { subjectStates: s } = store.t;
  const [row] = await store.read((db) => db.select({ n: count() }).from(s).where(eq(s.kind, 'node')));
  return Number(row?.n ?? 0);
}

/** How many node history spans are stored. */
export async function countNodeHistory(store: Store): Promise<number> {
  const { subjectHistory: h } = store.t;
  const [row] = await store.read((db) => db.select({ n: count() }).from(h).where(eq(h.kind, 'node')));
  return Number(row?.n ?? 0);
}

export interface RollupRowData {
  key: number;
  probes: number;
  failures: number;
  latency: string;
}

/**
 * The hour's figures of every node and region, summed from the minute ring (an hour's row is written only when
 * the hour is left): what its row will hold, as far as the hour has gone.
 */
export async function readHourFromRing(store: Store, hour: number): Promise<RollupRowData[]> {
  const latency =
    store.engine === 'postgres' ? sql`string_agg(latency, ',')` : sql`group_concat(latency, ',')`;
  const rows = await store.read(() =>
    selectRows<{
      ring: number | string;
      probes: number | string;
      failures: number | string;
      latency: string;
    }>(
      store,
      sql`SELECT key / ${sql.raw(String(MINUTE_SLOTS))} AS ring, sum(probes) AS probes,
          sum(failures) AS failures, ${latency} AS latency
        FROM node_minute_rollups WHERE minute >= ${hour * 60} AND minute < ${(hour + 1) * 60} GROUP BY 1`,
    ),
  );
  return rows.map((r) => {
    const ring = Number(r.ring);
    const regionId = Math.floor(ring / 2 ** 24);
    return {
      key: rollupKey(hour, ring - regionId * 2 ** 24, regionId),
      probes: Number(r.probes),
      failures: Number(r.failures),
      latency: r.latency,
    };
  });
}

/** Inserts rollup rows in one transaction (benchmarks weigh an hour of them). */
export async function insertRollups(store: Store, rows: readonly RollupRowData[]): Promise<void> {
  const { nodeRollups: r } = store.t;
  await store.write(async (tx) => {
    for (let i = 0; i < rows.length; i += 200) await tx.insert(r).values(rows.slice(i, i + 200));
  });
}
