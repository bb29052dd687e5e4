// The store contract both engines implement (see the store contract notes): one query layer, typed against
// drizzle's async SQLite database, runs on either engine's handle.
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import type { Sql } from 'postgres';
import type * as schema from '../schema';
import type * as pgSchema from '../schema-pg';

export type Engine = 'sqlite' | 'postgres';

/** The handle the query layer writes against; at runtime better-sqlite3 (SQLite) or postgres-js (PostgreSQL). */
export type Db = BaseSQLiteDatabase<'async', unknown, typeof schema>;

/** PostgreSQL's own handles, for the few operations inside db/ that need engine-specific SQL. */
export interface PostgresRaw {
  readonly engine: 'postgres';
  /** The connection pool (statements outside any transaction). */
  readonly sql: Sql;
  /** The drizzle PostgreSQL handle: the open transaction's inside `write`, else the pool's. */
  db(): PostgresJsDatabase<typeof pgSchema>;
}

export interface Store<Raw = PostgresRaw> {
  readonly engine: Engine;
  /** What to print in messages: the resolved file path, or the URL without its password. */
  readonly location: string;
  /** The tables the query layer must use (SQLite tables or their PostgreSQL twins, same JS shape). */
  readonly t: typeof schema;
  /** One or more statements outside a transaction (inside `write`, they join its transaction). */
  read<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  /** A write transaction; a nested call inside `fn` joins the open transaction. */
  write<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  readonly raw: Raw;
  close(): Promise<void>;
}
