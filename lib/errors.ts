// Typed errors thrown by lib and db code; only the API layer turns them into responses (problem+json).

export interface FieldIssue {
  /** Dotted path into the input, '' for the input as a whole. */
  path: string;
  message: string;
}

export class NotFoundError extends Error {
  override readonly name = 'NotFoundError';
  constructor(
    readonly resource: string,
    readonly id: string,
  ) {
    super(`${resource} '${id}' not found`);
  }
}

export class ConflictError extends Error {
  override readonly name = 'ConflictError';
  constructor(message: string) {
    super(message);
  }
}

export class ValidationError extends Error {
  override readonly name = 'ValidationError';
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
