// The one database handle (server-only): opens SQLite, sets the pragmas, applies committed migrations.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import * as schema from './schema';

export type Db = BetterSQLite3Database<typeof schema>;
/** A drizzle handle inside a transaction (the same connection); queries taking `tx` accept either. */
export type Tx = Db | Parameters<Parameters<Db['transaction']>[0]>[0];

export interface Store {
  db: Db;
  sqlite: Database.Database;
  file: string;
  close(): void;
}

export const DEFAULT_DB_FILE = './data/erawatch.db';

export function dbFileFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return env.ERAWATCH_DB && env.ERAWATCH_DB.trim() !== '' ? env.ERAWATCH_DB : DEFAULT_DB_FILE;
}

/** The committed migrations: next to this file in the source tree, else under the working directory (bundled). */
export function migrationsFolder(): string {
  const candidates = [
    process.env.ERAWATCH_MIGRATIONS,
    safeDirOf(import.meta.url, 'migrations'),
    path.join(process.cwd(), 'db', 'migrations'),
  ];
  for (const dir of candidates) {
    if (dir && fs.existsSync(path.join(dir, 'meta', '_journal.json'))) return dir;
  }
  throw new Error(`database migrations not found (looked in ${candidates.filter(Boolean).join(', ')})`);
}

function safeDirOf(url: string, sub: string): string | undefined {
  try {
    return path.join(path.dirname(fileURLToPath(url)), sub);
  } catch {
    return undefined;
  }
}

/** The store cannot be opened for writing: names the file and the cause in one line, for start-up refusals. */
export class StoreOpenError extends Error {
  override name = 'StoreOpenError';
  constructor(
    readonly file: string,
    readonly causeText: string,
  ) {
    super(`cannot use the database at ${file}: ${causeText}`);
  }
}

function canWrite(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function describeOpenFailure(file: string, err: unknown): string {
  const e = err as { code?: string; message?: string };
  const message = e.message ?? String(err);
  const dir = path.dirname(file);
  if (e.code === 'EACCES' || e.code === 'EPERM') return `permission denied creating ${dir} (${e.code})`;
  if (e.code === 'EROFS') return `${dir} is on a read-only file system (EROFS)`;
  if (e.code === 'ENOTDIR' || e.code === 'EEXIST') return `a parent of ${dir} is not a directory (${e.code})`;
  const sqliteCode = typeof e.code === 'string' && e.code.startsWith('SQLITE_') ? e.code : null;
  if (sqliteCode === 'SQLITE_CANTOPEN' || sqliteCode === 'SQLITE_READONLY' || /readonly/.test(message)) {
    const why = !canWrite(dir)
      ? `the directory ${dir} is not writable`
      : fs.existsSync(file) && !canWrite(file)
        ? 'the file is read-only'
        : message;
    return `${why} (${sqliteCode ?? 'SQLITE_READONLY'})`;
  }
  return sqliteCode ? `${message} (${sqliteCode})` : message;
}

/** Opens (creating the directory), sets WAL/busy_timeout/foreign_keys, migrates and proves a write works. */
export function openDb(file: string = dbFileFromEnv()): Store {
  const shown = file === ':memory:' ? file : path.resolve(file);
  let sqlite: Database.Database;
  try {
    if (file !== ':memory:') fs.mkdirSync(path.dirname(shown), { recursive: true });
    sqlite = new Database(file);
  } catch (err) {
    throw new StoreOpenError(shown, describeOpenFailure(shown, err));
  }
  try {
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('journal_mode = WAL');
    // NORMAL in WAL mode keeps every committed transaction across a process crash (not across power loss).
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('journal_size_limit = 67108864');
    const db = drizzle(sqlite, { schema });
    applyMigrations(db);
    // A read-only file opens without complaint and only fails on the first write: fail here instead.
    sqlite
      .transaction(() => {
        sqlite.prepare("INSERT INTO store_heartbeats (holder, at, pad) VALUES ('open', 0, x'')").run();
        sqlite.prepare("DELETE FROM store_heartbeats WHERE holder = 'open'").run();
      })
      .immediate();
    return {
      db,
      sqlite,
      file,
      close() {
        if (sqlite.open) sqlite.close();
      },
    };
  } catch (err) {
    sqlite.close();
    if (err instanceof Error && 'code' in err)
      throw new StoreOpenError(shown, describeOpenFailure(shown, err));
    throw err;
  }
}

// Two processes opening a fresh file at once may race on the same migration; the loser sees the winner's
// tables, so one retry (which then finds the migration recorded) settles it.
function applyMigrations(db: Db): void {
  const folder = migrationsFolder();
  try {
    migrate(db, { migrationsFolder: folder });
  } catch (err) {
    if (!(err instanceof Error && /already exists/.test(err.message))) throw err;
    migrate(db, { migrationsFolder: folder });
  }
}

let writeErrors = 0;

/** Store writes that failed in the engine (disk full, read-only, I/O, busy) in this process, for metrics. */
export function storeWriteErrorCount(): number {
  return writeErrors;
}

/** Counts an engine failure of a write (not the typed errors our own code throws inside a transaction). */
export function noteWriteError(err: unknown): void {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('SQLITE_')) writeErrors += 1;
}

/** Runs `fn` in a `BEGIN IMMEDIATE` transaction: the write lock is taken up front, so no upgrade deadlock. */
export function writeTransaction<T>(store: Store, fn: (tx: Db) => T): T {
  try {
    return store.sqlite.transaction(() => fn(store.db)).immediate();
  } catch (err) {
    noteWriteError(err);
    throw err;
  }
}

const GLOBAL_KEY = Symbol.for('erawatch.store');
type GlobalWithStore = typeof globalThis & { [GLOBAL_KEY]?: Store };

/** The process-wide store (one per process, survives dev-server module reloads), at ERAWATCH_DB. */
export function getStore(): Store {
  const g = globalThis as GlobalWithStore;
  const existing = g[GLOBAL_KEY];
  if (existing && existing.sqlite.open) return existing;
  const store = openDb(dbFileFromEnv());
  g[GLOBAL_KEY] = store;
  return store;
}

export { schema };
