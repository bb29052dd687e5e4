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

/** Maps zod issues (or anything shaped like them) to our field issues. */
export function toFieldIssues(
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>,
): FieldIssue[] {
  return issues.map((i) => ({ path: i.path.map((p) => String(p)).join('.'), message: i.message }));
}
