// Errors the store reports, shared by every engine adapter.

/** The store cannot be opened for writing: names the location and the cause in one line, for start-up refusals. */
export class StoreOpenError extends Error {
  override name = 'StoreOpenError';
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
  constructor(
    readonly location: string,
    readonly causeText: string,
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
