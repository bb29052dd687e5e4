// The SQLite adapter: one better-sqlite3 connection per store, WAL, migrations at open, a write probe, and
// write transactions (BEGIN IMMEDIATE) serialised by a per-store async mutex.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import type { SqliteDb, SqliteStore, StoreObserver } from '../index';
import * as schema from '../schema';
import { noteWriteError, StoreOpenError, StoreUnavailableError } from '../store-errors';
import { folderAbove } from './folder-above';
import { createWriteScope } from './write-scope';

/** The committed migrations: db/migrations above this module (source tree, compiled CLI), else under the working directory. */
export function migrationsFolder(given: string | null = null): string {
  const candidates = [
    given,
    folderAbove(import.meta.url, 'db/migrations'),
    path.join(process.cwd(), 'db', 'migrations'),
  ];
  for (const dir of candidates) {
    if (dir && fs.existsSync(path.join(dir, 'meta', '_journal.json'))) return dir;
  }
  throw new Error(`database migrations not found (looked in ${candidates.filter(Boolean).join(', ')})`);
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
  if (e.code === 'EACCES' || e.code === 'EPERM') {
    // The store's file is created here before SQLite opens it: an existing folder that refuses it is named as such.
    return fs.existsSync(dir) && !canWrite(dir)
      ? `the directory ${dir} is not writable (${e.code})`
      : `permission denied creating ${dir} (${e.code})`;
  }
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

/** Rows in drizzle's migration table, 0 before it exists. */
function recordedMigrations(sqlite: Database.Database): number {
  const table = sqlite
    .prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = '__drizzle_migrations'")
    .get();
  if (!table) return 0;
  return (sqlite.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get() as { n: number }).n;
}

// Two processes opening a fresh file at once may race on the same migration; the loser sees the winner's
// tables, so one retry (which then finds the migration recorded) settles it. Returns how many it applied.
function applyMigrations(db: SqliteDb, sqlite: Database.Database, given: string | null): number {
  const folder = migrationsFolder(given);
  const before = recordedMigrations(sqlite);
  try {
    migrate(db, { migrationsFolder: folder });
  } catch (err) {
    if (!(err instanceof Error && /already exists/.test(err.message))) throw err;
    migrate(db, { migrationsFolder: folder });
  }
  return Math.max(0, recordedMigrations(sqlite) - before);
}

/** A FIFO async mutex: each holder runs after the previous one settles. */
function createMutex(): <T>(fn: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(fn: () => Promise<T>) => {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  };
}

type Mutex = ReturnType<typeof createMutex>;
const MUTEXES = Symbol.for('erawatch.sqlite-write-mutexes');
type GlobalWithMutexes = typeof globalThis & { [MUTEXES]?: Map<string, Mutex> };

/**
 * One write mutex per database file in this process. A transaction spans awaits, so a second connection to
 * the same file in this process must wait here: its BEGIN IMMEDIATE would otherwise block the event loop
 * (busy_timeout) while the open transaction it waits for cannot run to its COMMIT.
 */
function mutexFor(file: string): Mutex {
  if (file === ':memory:') return createMutex();
  const g = globalThis as GlobalWithMutexes;
  const all = (g[MUTEXES] ??= new Map());
  let m = all.get(file);
  if (!m) {
    m = createMutex();
    all.set(file, m);
  }
  return m;
}

const STATEMENT_CACHE_SIZE = 256;

/**
 * The connection as drizzle sees it, with its compiled statements kept by SQL text: drizzle prepares every
 * query anew, and compiling costs more than running most of ours. Kept per connection, oldest dropped first.
 */
function withStatementCache(sqlite: Database.Database): Database.Database {
  const cache = new Map<string, Database.Statement>();
  const client = Object.create(sqlite) as Database.Database;
  client.prepare = ((source: string) => {
    let stmt = cache.get(source);
    if (stmt) {
      cache.delete(source);
      // drizzle switches a statement to arrays (raw) for selects with fields and expects objects otherwise.
      if (stmt.reader) stmt.raw(false);
    } else {
      stmt = sqlite.prepare(source);
      if (cache.size >= STATEMENT_CACHE_SIZE) {
        const oldest = cache.keys().next();
        if (!oldest.done) cache.delete(oldest.value);
      }
    }
    cache.set(source, stmt);
    return stmt;
  }) as Database.Database['prepare'];
  return client;
}

interface FileIdentity {
  dev: number;
  ino: number;
}

/** The device and inode at `file`, null when nothing is there. */
function fileIdentity(file: string): FileIdentity | null {
  try {
    const st = fs.statSync(file);
    return { dev: st.dev, ino: st.ino };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * A new store is private to the user that runs it, whatever the umask: the folders it creates are 0700 and
 * the file 0600 (SQLite gives its -wal and -shm files the file's mode). What already exists is left as it is.
 */
function createPrivately(file: string): void {
  const missing: string[] = [];
  for (let dir = path.dirname(file); !fs.existsSync(dir); dir = path.dirname(dir)) missing.unshift(dir);
  for (const dir of missing) {
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      continue;
    }
    fs.chmodSync(dir, 0o700);
  }
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw err;
  }
  try {
    fs.fchmodSync(fd, 0o600);
  } finally {
    fs.closeSync(fd);
  }
}

/** Opens (creating the directory), sets WAL/busy_timeout/foreign_keys, migrates and proves a write works. */
export function openSqliteStore(
  file: string,
  migrations: string | null = null,
  observer?: StoreObserver,
): SqliteStore {
  const shown = file === ':memory:' ? file : path.resolve(file);
  let sqlite: Database.Database;
  try {
    if (file !== ':memory:') createPrivately(shown);
    const onStatement = observer?.statement?.bind(observer);
    sqlite = new Database(file, onStatement ? { verbose: (q) => onStatement(String(q)) } : {});
  } catch (err) {
    throw new StoreOpenError(shown, describeOpenFailure(shown, err));
  }
  let db: SqliteDb;
  let migrationsApplied: number;
  try {
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('journal_mode = WAL');
    // NORMAL in WAL mode keeps every committed transaction across a process crash (not across power loss).
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('journal_size_limit = 67108864');
    db = drizzle(withStatementCache(sqlite), { schema });
    migrationsApplied = applyMigrations(db, sqlite, migrations);
    // A read-only file opens without complaint and only fails on the first write: fail here instead.
    sqlite
      .transaction(() => {
        sqlite.prepare("INSERT INTO store_heartbeats (holder, at, pad) VALUES ('open', 0, x'')").run();
        sqlite.prepare("DELETE FROM store_heartbeats WHERE holder = 'open'").run();
      })
      .immediate();
  } catch (err) {
    sqlite.close();
    if (err instanceof Error && 'code' in err)
      throw new StoreOpenError(shown, describeOpenFailure(shown, err));
    throw err;
  }
  const inWrite = createWriteScope<true>();
  const exclusive = mutexFor(shown);
  // The file the connection holds, by device and inode: a path that stops naming it (rm, a file moved over it)
  // means every later commit would go to an unlinked file that the next start never sees.
  const opened = file === ':memory:' ? null : fileIdentity(shown);
  const unavailable = (): string | null => {
    if (opened === null) return null;
    let now: FileIdentity | null;
    try {
      now = fileIdentity(shown);
    } catch (err) {
      return `cannot check the database file: ${err instanceof Error ? err.message : String(err)}`;
    }
    if (now === null) return 'the database file was removed';
    if (now.dev !== opened.dev || now.ino !== opened.ino)
      return 'the database file was replaced by another file';
    return null;
  };
  const store: SqliteStore = {
    engine: 'sqlite',
    location: shown,
    t: schema,
    sqlite,
    db,
    migrationsApplied,
    unavailable,
    read(fn) {
      if (!(inWrite.current() && sqlite.inTransaction)) observer?.read?.();
      return fn(db);
    },
    async write(fn) {
      // Nested inside an open transaction of this store (same async context): join it.
      if (inWrite.current() && sqlite.inTransaction) return fn(db);
      const problem = unavailable();
      if (problem !== null) throw new StoreUnavailableError(shown, problem);
      observer?.write?.();
      return exclusive(async () => {
        try {
          sqlite.exec('BEGIN IMMEDIATE');
        } catch (err) {
          noteWriteError(err);
          throw err;
        }
        try {
          const result = await inWrite.run(true, () => fn(db));
          sqlite.exec('COMMIT');
          return result;
        } catch (err) {
          if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
          noteWriteError(err);
          throw err;
        }
      });
    },
    // Statements outside a transaction would join one open on the connection: one statement is a transaction too.
    writeOne(fn) {
      return store.write(fn);
    },
    // One connection and one write lock: lease upkeep has nothing to jump ahead of.
    lease(fn) {
      return store.write(fn);
    },
    async close() {
      // Let an open write finish before the handle goes.
      await exclusive(async () => {
        if (sqlite.open) sqlite.close();
      });
    },
  };
  return store;
}
