// RFC 9457 problem details: the one error shape of the REST API. Only the API layer turns these into Responses;
// lib code throws its own typed errors, which the wrapper maps here.
import type { z } from 'zod';

export interface InvalidParam {
  /** JSON Pointer (RFC 6901) into the request body, or `#/query/<name>` / `#/path/<name>` for URL parameters. */
  pointer: string;
  detail: string;
  /** Where the parameter was: the JSON body (default), the query string or the path. */
  in?: 'body' | 'query' | 'path';
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  errors?: InvalidParam[];
  [extension: string]: unknown;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** Thrown inside route handlers (and by the wrapper itself) to answer with a problem document. */
export class HttpProblem extends Error {
  readonly status: number;
  readonly code: string;
  readonly errors: InvalidParam[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: string,
    detail: string,
    opts: { errors?: InvalidParam[]; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.name = 'HttpProblem';
    this.status = status;
    this.code = code;
    this.errors = opts.errors;
    this.headers = opts.headers ?? {};
  }
}

/** `/a/0/b` from a zod issue path, escaping `~` and `/` as RFC 6901 requires. */
export function toJsonPointer(path: readonly PropertyKey[], root = ''): string {
  const parts = path.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1'));
  return `${root}/${parts.join('/')}`.replace(/\/$/, '') || '/';
}

/** One entry per issue; an unknown key gets its own pointer (`/bogus`), one entry per key. */
export function zodIssuesToParams(error: z.ZodError, root = ''): InvalidParam[] {
  return error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        pointer: toJsonPointer([...issue.path, key], root),
        detail: `unknown field '${key}'`,
      }));
    }
    return [
      {
        pointer: issue.path.length === 0 ? root || '/' : toJsonPointer(issue.path, root),
        detail: issue.message,
      },
    ];
  });
}

export function buildProblem(status: number, code: string, detail: string, errors?: InvalidParam[]): Problem {
  const problem: Problem = {
    type: `https://erawatch.dev/problems/${code}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail,
  };
  if (errors && errors.length > 0) problem.errors = errors;
  return problem;
}

export function problemResponse(problem: Problem, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(problem), {
    status: problem.status,
    headers: { 'content-type': PROBLEM_CONTENT_TYPE, 'cache-control': 'no-store', ...headers },
  });
}
