// Where a test's store lives: a SQLite file in the test's temp directory by default, or a fresh database in
// the run's PostgreSQL cluster in the `postgres` vitest project (ERAWATCH_TEST_STORE=postgres, vitest.config.ts).
import path from 'node:path';
import { createDatabase } from './postgres';

export type TestEngine = 'sqlite' | 'postgres';

export const TEST_ENGINE: TestEngine = process.env.ERAWATCH_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

/** True in the PostgreSQL run: `it.skipIf(onPostgres)` for a test of SQLite's own files (WAL, page limits). */
export const onPostgres = TEST_ENGINE === 'postgres';

/** A store location named `name`: `dir/name` (SQLite) or a new database's postgres:// URL. */
export async function storeLocation(dir: string, name: string): Promise<string> {
  if (TEST_ENGINE === 'postgres') return createDatabase(name);
  return path.join(dir, name);
}

/** Plain SQL against a store from outside the app (as a second process would): `?` placeholders on both. */
export interface StoreReader {
  all<T = Record<string, unknown>>(query: string, ...params: unknown[]): Promise<T[]>;
  /** SQLite's integrity check, or PostgreSQL's answer to a query (its pages have their own checksums). */
  integrityOk(): Promise<boolean>;
  close(): Promise<void>;
}

export async function openReader(location: string): Promise<StoreReader> {
  if (/^postgres(ql)?:\/\//.test(location)) {
    const { default: postgres } = await import('postgres');
    const client = postgres(location, {
      max: 1,
      onnotice: () => {},
      types: { int8: { to: 20, from: [20], serialize: String, parse: Number } },
    });
    return {
      async all<T>(query: string, ...params: unknown[]) {
        let n = 0;
        const text = query.replace(/\?/g, () => `$${++n}`);
        return (await client.unsafe(text, params as never[])) as unknown as T[];
      },
      async integrityOk() {
        const rows = await client`SELECT 1 AS ok`;
        return rows[0]?.ok === 1;
      },
      close: () => client.end({ timeout: 5 }),
    };
  }
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(location, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  return {
    async all<T>(query: string, ...params: unknown[]) {
      return db.prepare(query).all(...params) as T[];
    },
    async integrityOk() {
      return db.pragma('integrity_check', { simple: true }) === 'ok';
    },
    async close() {
      db.close();
    },
  };
}
