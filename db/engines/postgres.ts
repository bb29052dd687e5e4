// The PostgreSQL store: a postgres-js pool behind drizzle's PostgreSQL dialect, the committed migrations in
// db/migrations-pg applied at open under an advisory lock, and write transactions re-entrant per store.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { sql as sqlTag } from 'drizzle-orm';
import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres, { type Options, type PostgresType, type Sql, type TransactionSql } from 'postgres';
import * as pgSchema from '../schema-pg';
import type { Db, PostgresDb, PostgresStore, StoreObserver, Tables } from '../index';
import { answerDeadline } from '../answer-deadline';
import { noteWriteError, StoreOpenError, StoreUnavailableError, storeUnreachable } from '../store-errors';
import { folderAbove } from './folder-above';
import { guardedTransaction, type SessionWatch } from './postgres-session-loss';
import { createWriteScope } from './write-scope';
import { defaultSettings, type Settings } from '@/lib/settings';

type StoreSettings = Pick<Settings, 'pgPool' | 'pgStatementTimeoutMs' | 'migrationsFolderPg'>;

export interface PostgresOpenOptions {
  /** The pool size, statement timeout and migrations folder (default: the settings' defaults). */
  settings?: StoreSettings;
  /** What the process is (`web`, `worker:poll,deliver`), named in `application_name` as `erawatch-<role>`
   *  unless the URL names one (default `web`). */
  role?: string;
  /** Apply the committed migrations at open (default true). */
  migrate?: boolean;
  /** What crosses the door, for tests. */
  observer?: StoreObserver;
}

export interface PostgresSettings {
  poolSize: number;
  statementTimeoutMs: number;
  applicationName: string;
  connectTimeoutS: number;
  ssl: Options<Record<string, PostgresType>>['ssl'];
}

/** How long the server lets a session sit idle inside a transaction before it ends it. */
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 10_000;
const DEFAULT_CONNECT_TIMEOUT_S = 10;
const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
/** Parameters this adapter reads itself instead of passing them to the server as settings. */
const CLIENT_PARAMS = ['sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'connect_timeout', 'application_name'];
/** One key for every Erawatch process migrating one database ("erawatch" in ASCII). */
const MIGRATION_LOCK = 0x65_72_61_77_61_74_63_68n;

/** The URL as printed in messages and logs: user, host, port and database, never the password. */
export function redactPostgresUrl(location: string): string {
  try {
    const url = new URL(location);
    const user = url.username ? `${decodeURIComponent(url.username)}@` : '';
    return `${url.protocol}//${user}${url.host}${url.pathname}`;
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

function readPemFile(param: string, file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as { code?: string }).code ?? 'unreadable';
    throw new Error(`${param} file ${file} cannot be read (${code})`);
  }
}

/** libpq's sslmode (default `prefer`) and certificate files, as postgres-js TLS options. */
function sslFromUrl(url: URL): PostgresSettings['ssl'] {
  const mode = url.searchParams.get('sslmode') ?? 'prefer';
  if (!(SSL_MODES as readonly string[]).includes(mode))
    throw new Error(`sslmode must be one of ${SSL_MODES.join(', ')} (got "${mode}")`);
  if (mode === 'disable') return false;
  const files: { ca?: string; cert?: string; key?: string } = {};
  const rootCert = url.searchParams.get('sslrootcert');
  if (rootCert && rootCert !== 'system') files.ca = readPemFile('sslrootcert', rootCert);
  const cert = url.searchParams.get('sslcert');
  if (cert) files.cert = readPemFile('sslcert', cert);
  const key = url.searchParams.get('sslkey');
  if (key) files.key = readPemFile('sslkey', key);
  // postgres-js's 'allow' insists on TLS; libpq's falls back to plain, which is what 'prefer' does here.
  if (mode === 'allow' || mode === 'prefer') return 'prefer';
  if (mode === 'require' && !files.ca && !files.cert) return 'require';
  if (mode === 'require') return { ...files, rejectUnauthorized: false };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return {
    ...files,
    rejectUnauthorized: true,
    ...(net.isIP(host) ? {} : { servername: host }),
    // verify-ca checks the chain only; verify-full also checks the host name (node's default).
    ...(mode === 'verify-ca' ? { checkServerIdentity: () => undefined } : {}),
  };
}

/** The pool size, statement timeout, TLS and application name for `location`, from the URL and the settings. */
export function postgresSettings(location: string, options: PostgresOpenOptions = {}): PostgresSettings {
  const settings = options.settings ?? defaultSettings();
  const url = new URL(location);
  const connectTimeout = url.searchParams.get('connect_timeout');
  const connectTimeoutS = connectTimeout === null ? DEFAULT_CONNECT_TIMEOUT_S : Number(connectTimeout);
  if (!Number.isInteger(connectTimeoutS) || connectTimeoutS < 1)
    throw new Error(`connect_timeout must be a whole number of seconds (got "${connectTimeout}")`);
  return {
    poolSize: settings.pgPool,
    statementTimeoutMs: settings.pgStatementTimeoutMs,
    applicationName: url.searchParams.get('application_name') ?? `erawatch-${options.role ?? 'web'}`,
    connectTimeoutS,
    ssl: sslFromUrl(url),
  };
}

/** int8 (counts, sums of integers, bigint columns) and numeric (sums of bigints) as JS numbers, as in SQLite. */
const NUMERIC_TYPES: Record<string, PostgresType> = {
  int8: { to: 20, from: [20], serialize: (x: unknown) => String(x), parse: (x: string) => Number(x) },
  numeric: { to: 1700, from: [1700], serialize: (x: unknown) => String(x), parse: (x: string) => Number(x) },
};

function clientFor(location: string, settings: PostgresSettings, max: number, observer?: StoreObserver): Sql {
  const url = new URL(location);
  for (const param of CLIENT_PARAMS) url.searchParams.delete(param);
  return postgres(url.toString(), {
    max,
    ssl: settings.ssl,
    connect_timeout: settings.connectTimeoutS,
    idle_timeout: 60,
    connection: {
      application_name: settings.applicationName,
      statement_timeout: settings.statementTimeoutMs,
      // A process stopped inside a transaction (SIGSTOP, a paused VM) keeps its row locks, and the SKIP LOCKED
      // claims of other workers would pass its units by for as long: the server ends such a session.
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
    },
    types: NUMERIC_TYPES,
    // "already exists, skipping" and the like are not worth a line in the operator's log.
    onnotice: () => {},
    ...(observer?.statement ? { debug: (_c: number, q: string) => observer.statement?.(q) } : {}),
  });
}

/**
 * Statements with up to this many parameters are prepared: named, parsed and planned once per connection, then
 * only bound and run. Longer ones are lists (an IN list, rows of a multi-row insert) whose text changes with their
 * length: preparing each length would fill the connection's statement cache, on both sides, until it is recycled.
 */
const MAX_PREPARED_PARAMETERS = 64;

/**
 * The client drizzle is given: drizzle runs every query it did not name unprepared (parsed, analysed and
 * planned by the server each time, which cost PostgreSQL more CPU than running the poller's statements); this
 * prepares the statements that repeat, in transactions too. Transactions and savepoints go through
 * guardedTransaction (./postgres-session-loss.ts): a transaction whose session is lost fails with the reason and
 * sends nothing more, so the driver never writes on the socket it dropped. drizzle sends every statement through
 * `unsafe`, where a transaction's statements are checked against its session.
 */
function preparing<T extends Sql | TransactionSql>(
  client: T,
  watch: SessionWatch | null = null,
  answered: (() => void) | null = null,
): T {
  return new Proxy(client, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (prop === 'unsafe')
        return (query: string, params?: unknown[], options?: { prepare?: boolean }) => {
          watch?.check();
          const statement = target.unsafe(query, params as never, {
            ...options,
            prepare: (params?.length ?? 0) <= MAX_PREPARED_PARAMETERS,
          });
          // Registered before the caller's own handlers: a loss is noted before the caller can send more.
          if (watch) statement.catch((err: unknown) => watch.observe(err));
          // The server answered (rows or its own error): what the answer deadline measures silence against.
          if (answered)
            statement.then(answered, (err: unknown) => {
              if (!storeUnreachable(err)) answered();
            });
          return statement;
        };
      if (prop === 'begin' || prop === 'savepoint')
        return (...args: unknown[]) => {
          watch?.check();
          const fn = args.pop() as (tx: TransactionSql) => unknown;
          const begin = value as (...a: unknown[]) => Promise<unknown>;
          return guardedTransaction<TransactionSql, unknown>(
            (callback) => begin.apply(target, [...args, callback]),
            (tx: TransactionSql, own) => fn(preparing(tx, own, answered)),
            watch,
          );
        };
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * Runs `run` under the caller's answer deadline (db/answer-deadline.ts), if any: once the deadline has passed
 * and the server has answered nothing for as long, the call fails with StoreUnavailableError. A write gives up
 * only before its transaction has begun on the server (`admit` is called first thing in its callback, and
 * refuses once the call was given up, so a transaction that begins later rolls back): nothing is written. A read
 * (`anyTime`) gives up at any point.
 */
function withinDeadline<T>(
  shown: string,
  lastAnswerAt: () => number,
  run: (admit: () => void) => Promise<T>,
  anyTime: boolean,
): Promise<T> {
  const ms = answerDeadline();
  if (ms === null) return run(() => {});
  let started = false;
  let abandoned = false;
  const refusal = () =>
    new StoreUnavailableError(shown, `the PostgreSQL server answered nothing for ${ms} ms`, ms);
  const work = run(() => {
    if (abandoned) throw refusal();
    started = true;
  });
  return new Promise<T>((resolve, reject) => {
    const since = Date.now();
    const timer = setInterval(
      () => {
        if (started && !anyTime) return;
        const now = Date.now();
        if (now - since < ms || now - lastAnswerAt() < ms) return;
        abandoned = true;
        clearInterval(timer);
        reject(refusal());
      },
      Math.max(10, Math.min(250, ms / 4)),
    );
    work.then(
      (value) => {
        clearInterval(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearInterval(timer);
        reject(err as Error);
      },
    );
  });
}

/** The committed PostgreSQL migrations: db/migrations-pg above this module, else under the working directory. */
export function postgresMigrationsFolder(given: string | null = null): string {
  const candidates = [
    given,
    folderAbove(import.meta.url, 'db/migrations-pg'),
    path.join(process.cwd(), 'db', 'migrations-pg'),
  ];
  for (const dir of candidates) {
    if (dir && fs.existsSync(path.join(dir, 'meta', '_journal.json'))) return dir;
  }
  throw new Error(`PostgreSQL migrations not found (looked in ${candidates.filter(Boolean).join(', ')})`);
}

/** One line naming what went wrong, for a server that cannot be reached or refuses us (no password). */
export function describePostgresFailure(location: string, err: unknown): string {
  const e = (err ?? {}) as { code?: unknown; message?: unknown; name?: unknown };
  const code = typeof e.code === 'string' ? e.code : undefined;
  const message = (typeof e.message === 'string' ? e.message : String(err)).split('\n')[0] ?? '';
  let where = 'the server';
  let sslmode = 'prefer';
  try {
    const url = new URL(location);
    where = url.host || 'the server';
    sslmode = url.searchParams.get('sslmode') ?? 'prefer';
  } catch {
    // keep the generic name
  }
  const tlsRequired = sslmode === 'require' || sslmode.startsWith('verify-');
  if (tlsRequired && (code === 'ECONNRESET' || /TLS|SSL|socket disconnected/i.test(message)))
    return `${where} closed the connection during the TLS handshake (${code ?? 'TLS'}): does it accept TLS? (sslmode=${sslmode})`;
  switch (code) {
    case 'ECONNREFUSED':
      return `connection refused by ${where} (ECONNREFUSED): is PostgreSQL running and listening there?`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host of ${where} cannot be resolved (${code})`;
    case 'ENETUNREACH':
    case 'EHOSTUNREACH':
      return `no route to ${where} (${code})`;
    case 'CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return `no answer from ${where} before the connect timeout (${code})`;
    case 'ECONNRESET':
    case 'CONNECTION_CLOSED':
    case 'CONNECTION_ENDED':
      return `${where} closed the connection (${code})`;
    case undefined:
      return message;
    default:
      return `${message} (${code})`;
  }
}

function fail(location: string, err: unknown): never {
  throw new StoreOpenError(redactPostgresUrl(location), describePostgresFailure(location, err));
}

/** Rows in drizzle's migration table, 0 before it exists. */
async function recordedMigrations(client: Sql): Promise<number> {
  const [found] = await client<
    Array<{ t: string | null }>
  >`SELECT to_regclass('drizzle.__drizzle_migrations') AS t`;
  if (!found?.t) return 0;
  const [row] = await client<Array<{ n: string }>>`SELECT count(*) AS n FROM drizzle.__drizzle_migrations`;
  return Number(row?.n ?? 0);
}

/** Applies the migrations under an advisory lock; returns how many this call applied. */
async function applyMigrations(
  location: string,
  settings: PostgresSettings,
  folder: string,
): Promise<number> {
  // One connection, so the session-level advisory lock and the migration share it; ending it unlocks.
  const client = clientFor(location, settings, 1);
  try {
    await client`SELECT pg_advisory_lock(${MIGRATION_LOCK.toString()}::bigint)`;
    const before = await recordedMigrations(client);
    await migrate(drizzle(client), { migrationsFolder: folder });
    return Math.max(0, (await recordedMigrations(client)) - before);
  } finally {
    await client.end({ timeout: 5 });
  }
}

/**
 * A PostgreSQL handle and tables as the engine-neutral query layer sees them: typed as SQLite's (`Db`, `Tables`).
 * drizzle 0.x builds each dialect with its own classes, and a method call on a union of them does not
 * type-check, so the query layer written once is typed against one dialect; no type both dialects' builders
 * satisfy can be named without re-typing drizzle. This is the one assertion of the store: it holds because both
 * engines' tables are rendered from one declaration with the same JS shape (db/engines/schema-shape.ts proves
 * the row and insert types equal at compile time, tests/unit/db/tables.test.ts the columns at run time) and the
 * query layer uses only builders both dialects have (the lint rule on db/queries in eslint.config.mjs).
 */
function pgNeutral(handle: PostgresDb): { db: Db; t: Tables } {
  // eslint-disable-next-line no-restricted-syntax -- the one view of PostgreSQL as the neutral type, see above
  return { db: handle, t: pgSchema } as unknown as { db: Db; t: Tables };
}

/**
 * Opens the PostgreSQL store at `location` (`postgres://user:password@host:port/db?sslmode=…`): checks the
 * settings, connects, applies db/migrations-pg and proves a write works. Refusals are one-line StoreOpenErrors.
 */
export async function openPostgres(
  location: string,
  options: PostgresOpenOptions = {},
): Promise<PostgresStore> {
  const shown = redactPostgresUrl(location);
  let settings: PostgresSettings;
  try {
    settings = postgresSettings(location, options);
  } catch (err) {
    throw new StoreOpenError(shown, err instanceof Error ? err.message : String(err));
  }
  let migrationsApplied = 0;
  try {
    if (options.migrate !== false) {
      migrationsApplied = await applyMigrations(
        location,
        settings,
        postgresMigrationsFolder(options.settings?.migrationsFolderPg ?? null),
      );
    }
  } catch (err) {
    if (err instanceof StoreOpenError) throw err;
    fail(location, err);
  }

  const observer = options.observer;
  const client = clientFor(location, settings, settings.poolSize, observer);
  // When the server last answered a statement of the pool: a silent server is told from a busy pool by it.
  let lastAnswer = Date.now();
  const answered = () => {
    lastAnswer = Date.now();
  };
  const lastAnswerAt = () => lastAnswer;
  const db: PostgresJsDatabase<typeof pgSchema> = drizzle(preparing(client, null, answered), {
    schema: pgSchema,
  });
  // Lease upkeep gets one connection of its own, opened on first use (only poll workers renew leases), so a
  // pool held by long cycle writes cannot make a live worker's leases lapse.
  let leaseClient: Sql | null = null;
  let leaseDb: PostgresJsDatabase<typeof pgSchema> | null = null;
  const leaseHandle = () => {
    if (!leaseDb) {
      leaseClient = clientFor(location, settings, 1);
      leaseDb = drizzle(preparing(leaseClient), { schema: pgSchema });
    }
    return leaseDb;
  };
  const scope = createWriteScope<PostgresDb>();
  const neutral = pgNeutral(db);
  const counted = <T>(write: Promise<T>) =>
    write.catch((err: unknown) => {
      noteWriteError(err);
      throw err;
    });
  const inTransaction = <T>(handle: PostgresJsDatabase<typeof pgSchema>, fn: (tx: Db) => Promise<T>) =>
    counted(handle.transaction((tx) => scope.run(tx, () => fn(pgNeutral(tx).db))));

  const store: PostgresStore = {
    engine: 'postgres',
    location: shown,
    t: neutral.t,
    tables: pgSchema,
    sql: client,
    db: () => scope.current() ?? db,
    migrationsApplied,
    // A server is reached over the network: its outages surface as connection errors, not here.
    unavailable: () => null,
    read(fn) {
      const open = scope.current();
      if (open) return fn(pgNeutral(open).db);
      observer?.read?.();
      return withinDeadline(shown, lastAnswerAt, () => fn(neutral.db), true);
    },
    write(fn) {
      const open = scope.current();
      if (open) return fn(pgNeutral(open).db);
      observer?.write?.();
      return withinDeadline(
        shown,
        lastAnswerAt,
        (admit) =>
          inTransaction(db, (tx) => {
            admit();
            return fn(tx);
          }),
        false,
      );
    },
    writeOne(fn) {
      const open = scope.current();
      if (open) return fn(pgNeutral(open).db);
      // Under an answer deadline, a transaction: a statement sent by itself could not be taken back.
      if (answerDeadline() !== null) return store.write(fn);
      observer?.write?.();
      return counted(fn(neutral.db));
    },
    lease(fn) {
      const open = scope.current();
      if (open) return fn(pgNeutral(open).db);
      return inTransaction(leaseHandle(), fn);
    },
    async close() {
      await Promise.all([client.end({ timeout: 5 }), leaseClient?.end({ timeout: 5 })]);
    },
  };

  try {
    // A read-only server (a standby, a read-only user) connects fine and only fails on the first write.
    await db.transaction(async (tx) => {
      await tx.execute(
        sqlTag`INSERT INTO store_heartbeats (holder, at, pad) VALUES ('open', 0, '\\x'::bytea)`,
      );
      await tx.execute(sqlTag`DELETE FROM store_heartbeats WHERE holder = 'open'`);
    });
  } catch (err) {
    await client.end({ timeout: 1 }).catch(() => {});
    fail(location, err);
  }
  return store;
}
