// Typed errors thrown by lib and db code; only the API layer turns them into responses (problem+json).
//
// Each carries a stable `code` (`ERAWATCH_…`), and the API maps errors by that code, never by class identity:
// the web server runs more than one bundle, each with its own copy of a module, so an error made by the store
// opened at start-up is not an instance of the class the route's bundle imported.

/** The stable codes of the typed errors, as `errorCode` reads them. */
export const ERROR_CODES = {
  notFound: 'ERAWATCH_NOT_FOUND',
  conflict: 'ERAWATCH_CONFLICT',
  validation: 'ERAWATCH_VALIDATION',
  storedDataInvalid: 'ERAWATCH_STORED_DATA_INVALID',
  storeUnavailable: 'ERAWATCH_STORE_UNAVAILABLE',
  storeOpen: 'ERAWATCH_STORE_OPEN',
  egressRefused: 'ERAWATCH_EGRESS_REFUSED',
} as const;

/** The stable code of one of our typed errors (`ERAWATCH_…`), else null (a driver's or Node's own code too). */
export function errorCode(err: unknown): string | null {
  if (err === null || typeof err !== 'object') return null;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('ERAWATCH_') ? code : null;
}

export interface FieldIssue {
  /** Dotted path into the input, '' for the input as a whole. */
  path: string;
  message: string;
}

export class NotFoundError extends Error {
  override readonly name = 'NotFoundError';
  readonly code = ERROR_CODES.notFound;
  constructor(
    readonly resource: string,
    readonly id: string,
  ) {
    super(`${resource} '${id}' not found`);
  }
}

export class ConflictError extends Error {
  override readonly name = 'ConflictError';
  readonly code = ERROR_CODES.conflict;
  constructor(message: string) {
    super(message);
  }
}

export class ValidationError extends Error {
  override readonly name = 'ValidationError';
  readonly code = ERROR_CODES.validation;
  constructor(
    readonly issues: FieldIssue[],
    message = `invalid input: ${issues.map((i) => (i.path ? `${i.path} ${i.message}` : i.message)).join('; ')}`,
  ) {
    super(message);
  }
}

/** Maps zod issues (or anything shaped like them) to our field issues; each unknown key is its own issue. */
export function toFieldIssues(
  issues: ReadonlyArray<{
    path: ReadonlyArray<PropertyKey>;
    message: string;
    code?: string;
    keys?: readonly string[];
  }>,
): FieldIssue[] {
  return issues.flatMap((i) => {
    const at = i.path.map((p) => String(p));
    if (i.code === 'unrecognized_keys' && i.keys) {
      return i.keys.map((key) => ({ path: [...at, key].join('.'), message: `unknown field '${key}'` }));
    }
    return [{ path: at.join('.'), message: i.message }];
  });
}

/** Errors of the database drivers (whose `query` and `parameters` fields hold the bound values). */
const DRIVER_ERRORS = new Set(['PostgresError', 'SqliteError']);

/** drizzle's wrapper of a driver error (its class name is not kept): `Failed query: …\nparams: …`. */
function isDrizzleQueryError(err: Error): boolean {
  const e = err as Error & { query?: unknown; params?: unknown };
  return typeof e.query === 'string' && Array.isArray(e.params);
}

/**
 * What a log line may say of an error. A database error is its name, code and message only: drizzle's own
 * message, the driver's `query` and `parameters` would print every bound value (webhook signing secrets,
 * alert-sink passwords, token hashes). Any other error keeps its stack.
 */
export function loggableError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const wrapped = isDrizzleQueryError(err);
  if (!wrapped && !DRIVER_ERRORS.has(err.name)) return err.stack ?? `${err.name}: ${err.message}`;
  const inner = wrapped ? err.cause : err;
  if (!(inner instanceof Error) || isDrizzleQueryError(inner)) return 'a database query failed';
  const code = (inner as { code?: unknown }).code;
  return `database error: ${inner.name}${typeof code === 'string' ? ` ${code}` : ''}: ${inner.message}`;
}

/** One line for a log: `loggableError` without the stack of an error that is not the database's. */
export function errorMessage(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  if (isDrizzleQueryError(err) || DRIVER_ERRORS.has(err.name)) return loggableError(err);
  return err.message;
}

/** A value read back from the store is not in the shape its schema says: a bug or a hand edit, never silence. */
export class StoredDataInvalidError extends Error {
  override readonly name = 'StoredDataInvalidError';
  readonly code = ERROR_CODES.storedDataInvalid;
  constructor(
    readonly what: string,
    readonly issues: FieldIssue[],
  ) {
    super(
      `stored ${what} is invalid: ${issues
        .slice(0, 5)
        .map((i) => (i.path ? `${i.path} ${i.message}` : i.message))
        .join('; ')}`,
    );
  }
}
