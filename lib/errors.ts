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
