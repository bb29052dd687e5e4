// The store's only door (server-only): `openStore`/`getStore` hand out a `Store` whose operations are async,
// whatever the engine. A `Store` is a `SqliteStore` or a `PostgresStore`, each with its own drizzle database and
// tables; the query layer (db/queries) is written once against the engine-neutral `Db` and `store.t`, and
// branches on `store.engine` for the statements one engine writes in its own dialect.
import type Database from 'better-sqlite3';
import { sql, type SQL } from 'drizzle-orm';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import type { PgDatabase } from 'drizzle-orm/pg-core';
import type { PostgresJsQueryResultHKT } from 'drizzle-orm/postgres-js';
import type { Sql } from 'postgres';
import * as schema from './schema';
import type * as pgSchema from './schema-pg';
import { openPostgres } from './engines/postgres';
import { openSqliteStore } from './engines/sqlite';
import type { Settings } from '@/lib/settings';

export {
  StoreOpenError,
  StoreUnavailableError,
  noteWriteError,
  storeUnreachable,
  storeWriteErrorCount,
} from './store-errors';

export type Engine = 'sqlite' | 'postgres';

/** The SQLite engine's drizzle database: better-sqlite3 runs each statement synchronously, and awaiting one of
 *  its builders yields the builder's result. */
export type SqliteDb = BetterSQLite3Database<typeof schema>;

/** The PostgreSQL engine's drizzle database: the pool's, or an open transaction's. */
export type PostgresDb = PgDatabase<PostgresJsQueryResultHKT, typeof pgSchema>;

/** The engine-neutral handle the query layer writes against, typed with SQLite's builders. drizzle 0.x builds
 *  each dialect with classes of its own, and a method call on a union of them does not type-check, so a query
 *  written once is typed against one dialect: SQLite's. A PostgreSQL store hands out its own handle under this
 *  type (db/engines/postgres.ts says why that holds). Every query must be awaited, on both engines. */
export type Db = SqliteDb;

/** The engine-neutral tables: SQLite's, or their PostgreSQL twins (same JS shape, db/engines/schema-shape.ts). */
export type Tables = typeof schema;

/** What every store has, whatever its engine. */
interface StoreCommon {
  /** What to print in messages: the resolved file path, or the URL without its password. */
  readonly location: string;
  /** The tables the query layer must use (SQLite tables or their PostgreSQL twins, same JS shape). */
  readonly t: Tables;
  /** One or more statements outside a transaction. */
  read<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  /** A write transaction. Re-entrant: a nested call inside `fn` joins the open transaction. */
  write<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /** A write of one statement that commits by itself (a poll unit's claim or hand-back). PostgreSQL: sent outside
   *  a transaction, one round trip where BEGIN, the statement and COMMIT are three; SQLite: the same as `write`.
   *  Inside an open write it joins it. */
  writeOne<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  /** A short write transaction that keeps leases alive (renewals, heartbeats). PostgreSQL: on a connection of
   *  its own, so it never queues behind the pool's cycle work; SQLite: the same as `write`. Re-entrant too. */
  lease<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /** How many migrations opening this store applied (0 when the schema was already up to date). */
  readonly migrationsApplied: number;
  /** Null while the store is where it was opened; else why not (a SQLite file removed or replaced). Cheap. */
  unavailable(): string | null;
  close(): Promise<void>;
}

/** A SQLite store: one better-sqlite3 connection, so the same handle serves reads and the open write. */
export interface SqliteStore extends StoreCommon {
  readonly engine: 'sqlite';
  /** The connection, for the statements that need it (checkpoints, pragmas, the cycle writer); db/ only. */
  readonly sqlite: Database.Database;
  /** The drizzle database on that connection; db/ only. */
  readonly db: SqliteDb;
}

/** A PostgreSQL store: a postgres-js pool, with the drizzle PostgreSQL database and tables over it. */
export interface PostgresStore extends StoreCommon {
  readonly engine: 'postgres';
  /** The connection pool (statements outside any transaction); db/ only. */
  readonly sql: Sql;
  /** The PostgreSQL tables; db/ only. */
  readonly tables: typeof pgSchema;
  /** The drizzle PostgreSQL database: the open transaction's inside `write` or `lease`, else the pool's. */
  db(): PostgresDb;
}

export type Store = SqliteStore | PostgresStore;

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
  /** The pool size, statement timeout and migrations folders: the settings the entry point handed down. */
  settings: Settings;
}

/** A process's name for `application_name`: the command, then the roles it runs (`worker:poll,deliver`). */
export function processName(command: string, roles: readonly string[] = []): string {
  return roles.length === 0 ? command : `${command}:${roles.join(',')}`;
}

/** Opens the store at a file path or postgres:// URL: creates, migrates and proves a write works. */
export async function openStore(location: string, options: OpenStoreOptions): Promise<Store> {
  const { settings } = options;
  const observer = options.observer ? { observer: options.observer } : {};
  if (isPostgresUrl(location))
    return openPostgres(location, { settings, ...(options.name ? { role: options.name } : {}), ...observer });
  return openSqliteStore(location, settings.migrationsFolder, options.observer);
}

/** Rows of a raw statement (a portable `sql` template) on either engine, inside the open transaction if any. */
export async function selectRows<T extends Record<string, unknown>>(store: Store, query: SQL): Promise<T[]> {
  if (store.engine === 'sqlite') return store.db.all<T>(query);
  // A raw statement's columns are the caller's word on both engines (drizzle's `all<T>` and `execute<T>` take
  // it as given); drizzle's PostgreSQL typing wraps T in a conditional type that a generic T cannot resolve.
  return (await store.db().execute(query)) as T[];
}

/** Runs a raw statement (a portable `sql` template) on either engine, inside the open transaction if any. */
export async function executeStatement(store: Store, query: SQL): Promise<void> {
  if (store.engine === 'sqlite') store.db.run(query);
  else await store.db().execute(query);
}

/** How many migrations the store has recorded as applied. */
export async function countAppliedMigrations(store: Store): Promise<number> {
  // drizzle-kit's bookkeeping table: `__drizzle_migrations` (SQLite), `drizzle.__drizzle_migrations` (PostgreSQL).
  const table = store.engine === 'sqlite' ? sql`__drizzle_migrations` : sql`drizzle.__drizzle_migrations`;
  const rows = await store.read(() =>
    selectRows<{ n: number | string }>(store, sql`SELECT count(*) AS n FROM ${table}`),
  );
  return Number(rows[0]?.n ?? 0);
}

/** A store known to be PostgreSQL, for tests and tools of that engine; throws on any other. */
export function postgresOf(store: Store): PostgresStore {
  if (store.engine !== 'postgres') throw new Error(`${store.engine} store has no PostgreSQL handle`);
  return store;
}

/** The connection of a store known to be SQLite, for tests and tools of that engine; throws on any other. */
export function sqliteOf(store: Store): Database.Database {
  if (store.engine !== 'sqlite') throw new Error(`${store.engine} store has no SQLite handle`);
  return store.sqlite;
}

const GLOBAL_KEY = Symbol.for('erawatch.store');
type GlobalWithStore = typeof globalThis & { [GLOBAL_KEY]?: { location: string; store: Promise<Store> } };

/** The process-wide store (one per process, survives dev-server module reloads), at the settings' database.
 *  The first caller's options name the process; later callers share what it opened. */
export function getStore(options: OpenStoreOptions): Promise<Store> {
  const g = globalThis as GlobalWithStore;
  const location = options.settings.db;
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
