// Errors the store reports, shared by every engine adapter. Their stable `code`s are lib/errors.ts's.
import { ERROR_CODES } from '@/lib/errors';

/** The store cannot be opened for writing: names the location and the cause in one line, for start-up refusals. */
export class StoreOpenError extends Error {
  override name = 'StoreOpenError';
  readonly code = ERROR_CODES.storeOpen;
  constructor(
    readonly location: string,
    readonly causeText: string,
  ) {
    super(`cannot use the database at ${location}: ${causeText}`);
  }
}

/**
 * The store is not where it was opened: its SQLite file was removed or replaced under the running process.
 * Writes are refused (the API answers 503 `store_unavailable`) until the path names the open file again, so no
 * write is acknowledged that a restart would lose.
 */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
  readonly code = ERROR_CODES.storeUnavailable;
  constructor(
    readonly location: string,
    readonly causeText: string,
    /** Set when the store answered nothing within a caller's deadline (db/answer-deadline.ts), in ms. */
    readonly silentMs: number | null = null,
  ) {
    super(`the database at ${location} is unavailable: ${causeText}`);
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
  // SQLite codes (SQLITE_FULL, …) and PostgreSQL SQLSTATE classes 53 (resources), 58 (system), 08 (connection).
  if (typeof code === 'string' && (code.startsWith('SQLITE_') || /^(53|58|08)[0-9A-Z]{3}$/.test(code)))
    writeErrors += 1;
}

/** Driver and socket codes that say the PostgreSQL server could not be reached or dropped the session. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
]);

/**
 * True when `err` (or an error it wraps, as drizzle wraps the driver's) says the store could not be reached:
 * a connection refused, cut or timed out, a session the server ended (SQLSTATE class 08, 57P01 to 57P03, a
 * FATAL), or a transaction that lost its session. A statement the server answered with an error is not one.
 */
export function storeUnreachable(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e !== null && typeof e === 'object'; depth++) {
    const { code, severity, cause, name } = e as {
      code?: unknown;
      severity?: unknown;
      cause?: unknown;
      name?: unknown;
    };
    if (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || /^(08[0-9A-Z]{3}|57P0[123])$/.test(code)))
      return true;
    if (severity === 'FATAL' || severity === 'PANIC') return true;
    if (name === 'TransactionEndedError') return true;
    e = cause;
  }
  return false;
}
