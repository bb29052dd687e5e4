// The store's only door (server-only): `openStore`/`getStore` hand out a `Store` whose operations are async,
// whatever the engine. The query layer (db/queries) is written once against `Db` and `store.t`.
import type Database from 'better-sqlite3';
import { sql, type SQL } from 'drizzle-orm';
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import type { Sql } from 'postgres';
import * as schema from './schema';
import type * as pgSchema from './schema-pg';
import { openPostgres } from './engines/postgres';
import { openSqliteStore } from './engines/sqlite';
import { processSettings, type Settings } from '@/lib/settings';

export { StoreOpenError, StoreUnavailableError, noteWriteError, storeWriteErrorCount } from './store-errors';

export type Engine = 'sqlite' | 'postgres';

/** The drizzle handle the query layer writes against. Typed as drizzle's async SQLite database, so every query
 *  must be awaited; at runtime it is better-sqlite3 (SQLite) or postgres-js (PostgreSQL). */
export type Db = BaseSQLiteDatabase<'async', unknown, typeof schema>;

/** The SQLite engine's own handle, for the few statements that need it (checkpoints, the cycle writer). */
export interface SqliteRaw {
  readonly engine: 'sqlite';
  readonly sqlite: Database.Database;
}

/** The PostgreSQL engine's own handles, for the few statements that need its dialect (claims, the cycle writer). */
export interface PostgresRaw {
  readonly engine: 'postgres';
  /** The connection pool (statements outside any transaction). */
  readonly sql: Sql;
  /** The drizzle PostgreSQL handle: the open transaction's inside `write`, else the pool's. */
  db(): PostgresJsDatabase<typeof pgSchema>;
}

export interface Store {
  readonly engine: Engine;
  /** What to print in messages: the resolved file path, or the URL without its password. */
  readonly location: string;
  /** The tables the query layer must use (SQLite tables or their PostgreSQL twins, same JS shape). */
  readonly t: typeof schema;
  /** One or more statements outside a transaction. */
  read<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  /** A write transaction. Re-entrant: a nested call inside `fn` joins the open transaction. */
  write<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /** A short write transaction that keeps leases alive (renewals, heartbeats). PostgreSQL: on a connection of
   *  its own, so it never queues behind the pool's cycle work; SQLite: the same as `write`. Re-entrant too. */
  lease<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /** Engine-specific handle for the few places that need it; db/ only. */
  readonly raw: SqliteRaw | PostgresRaw;
  /** How many migrations opening this store applied (0 when the schema was already up to date). */
  readonly migrationsApplied: number;
  /** Null while the store is where it was opened; else why not (a SQLite file removed or replaced). Cheap. */
  unavailable(): string | null;
  close(): Promise<void>;
}

export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** A URL without its password, for messages. */
export function redactUrl(location: string): string {
  try {
    const u = new URL(location);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return location.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
  }
}

/** Watches what crosses the store's door: each read outside a transaction, each write transaction opened
 *  (not the nested ones that join it), each statement sent. Tests count a cycle's statements with it. */
export interface StoreObserver {
  read?(): void;
  write?(): void;
  statement?(sql: string): void;
}

export interface OpenStoreOptions {
  /** What crosses the door, for tests (none by default: no cost). */
  observer?: StoreObserver;
  /** What this process is, named in PostgreSQL's `application_name` as `erawatch-<name>` unless the URL names
   *  one: `web`, `worker:poll,deliver`, `db-migrate` (see `processName`). Default `web`. */
  name?: string;
  /** The pool size, statement timeout and migrations folders (default: this process's settings). */
  settings?: Settings;
}

/** A process's name for `application_name`: the command, then the roles it runs (`worker:poll,deliver`). */
export function processName(command: string, roles: readonly string[] = []): string {
  return roles.length === 0 ? command : `${command}:${roles.join(',')}`;
}

/** Opens the store at a file path or postgres:// URL: creates, migrates and proves a write works. */
export async function openStore(location: string, options: OpenStoreOptions = {}): Promise<Store> {
  const settings = options.settings ?? processSettings();
  const observer = options.observer ? { observer: options.observer } : {};
  if (isPostgresUrl(location))
    return openPostgres(location, { settings, ...(options.name ? { role: options.name } : {}), ...observer });
  return openSqliteStore(location, settings.migrationsFolder, options.observer);
}

/** Rows of a raw statement (a portable `sql` template) on either engine; db/ only. */
export async function selectRows<T>(store: Store, db: Db, query: SQL): Promise<T[]> {
  if (store.engine === 'sqlite') return (db as unknown as BaseSQLiteDatabase<'sync', unknown>).all<T>(query);
  return (await (db as unknown as { execute(q: SQL): Promise<T[]> }).execute(query)) as T[];
}

/** Runs a raw statement (a portable `sql` template) on either engine; db/ only. */
export async function executeStatement(store: Store, db: Db, query: SQL): Promise<void> {
  if (store.engine === 'sqlite') (db as unknown as BaseSQLiteDatabase<'sync', unknown>).run(query);
  else await (db as unknown as { execute(q: SQL): Promise<unknown> }).execute(query);
}

/** How many migrations the store has recorded as applied. */
export async function countAppliedMigrations(store: Store): Promise<number> {
  // drizzle-kit's bookkeeping table: `__drizzle_migrations` (SQLite), `drizzle.__drizzle_migrations` (PostgreSQL).
  const table = store.engine === 'sqlite' ? sql`__drizzle_migrations` : sql`drizzle.__drizzle_migrations`;
  const rows = await store.read((db) =>
    selectRows<{ n: number | string }>(store, db, sql`SELECT count(*) AS n FROM ${table}`),
  );
  return Number(rows[0]?.n ?? 0);
}

/** The PostgreSQL handles of a PostgreSQL store; throws on any other engine. db/ only. */
export function postgresOf(store: Store): PostgresRaw {
  if (store.raw.engine !== 'postgres') throw new Error(`${store.engine} store has no PostgreSQL handle`);
  return store.raw;
}

/** The SQLite handle of a SQLite store; throws on any other engine. db/ only. */
export function sqliteOf(store: Store): Database.Database {
  if (store.raw.engine !== 'sqlite') throw new Error(`${store.engine} store has no SQLite handle`);
  return store.raw.sqlite;
}

const GLOBAL_KEY = Symbol.for('erawatch.store');
type GlobalWithStore = typeof globalThis & { [GLOBAL_KEY]?: { location: string; store: Promise<Store> } };

/** The process-wide store (one per process, survives dev-server module reloads), at the settings' database.
 *  The first caller's options name the process; later callers share what it opened. */
export function getStore(options: OpenStoreOptions = {}): Promise<Store> {
  const g = globalThis as GlobalWithStore;
  const location = (options.settings ?? processSettings()).db;
  const existing = g[GLOBAL_KEY];
  if (existing && existing.location === location) return existing.store;
  const store = openStore(location, options).then((s) => {
    const close = s.close.bind(s);
    // Closing the singleton forgets it, so the next caller opens a fresh one.
    return Object.assign(s, {
      async close() {
        if (g[GLOBAL_KEY]?.store === store) delete g[GLOBAL_KEY];
        await close();
      },
    });
  });
  g[GLOBAL_KEY] = { location, store };
  // A failed open is not cached: the next caller tries again (and gets the same clear refusal).
  store.catch(() => {
    if (g[GLOBAL_KEY]?.store === store) delete g[GLOBAL_KEY];
  });
  return store;
}

export { schema };
export type { NodeOrigin } from './schema';

/** The one row a statement must return (an insert's or update's `.returning()`); db/ only. */
export function firstRow<T>(rows: readonly T[]): T {
  const row = rows[0];
  if (row === undefined) throw new Error('the statement returned no row');
  return row;
}
