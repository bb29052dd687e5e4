// Binds a route file's handler to its entry in the route table (lib/api/routes.ts): the entry's access is
// enforced, its query schema parsed before the handler runs and its body schema is what `body()` parses with,
// so what a route does and what its documentation says come from one declaration.
import type { z } from 'zod';
import { ROUTES, type OperationId, type RouteDefinition } from './routes';
import { HttpProblem, type InvalidParam } from './problem';
import { parseBody, readJsonBody, readQuery, withApi, withEtag, type ApiContext } from './with-api';

type ParamNames<P extends string> = P extends `${string}{${infer N}}${infer R}` ? N | ParamNames<R> : never;
/** `/api/v1/webhooks/{id}/deliveries/{deliveryId}` → `{ id: string; deliveryId: string }`. */
export type PathParams<P extends string> = { [K in ParamNames<P>]: string };

type Def<K extends OperationId> = (typeof ROUTES)[K];
type QueryOf<D> = D extends { query: infer Q extends z.ZodType } ? z.output<Q> : undefined;
type BodyOf<D> = D extends { body: infer B extends z.ZodType } ? z.output<B> : never;

export interface RouteContext<K extends OperationId> extends ApiContext<PathParams<Def<K>['path']>> {
  /** The query string, parsed with the entry's `query` schema. */
  query: QueryOf<Def<K>>;
  /** The JSON body parsed with the entry's `body` schema (read once). */
  body: () => Promise<BodyOf<Def<K>>>;
  /** The JSON body as sent, unvalidated: a partial update applies only the keys sent (read once). */
  rawBody: () => Promise<unknown>;
}

export type RouteHandler = ((req: Request, route?: { params: Promise<never> }) => Promise<Response>) & {
  /** The route-table entry this handler serves. */
  readonly operationId: OperationId;
};

function tagged<F extends object>(
  fn: F,
  operationId: OperationId,
): F & { readonly operationId: OperationId } {
  Object.defineProperty(fn, 'operationId', { value: operationId, enumerable: false });
  return fn as F & { readonly operationId: OperationId };
}

/** C0 controls (NUL among them) and DEL: never part of an id, a name or a query value this API issued. */
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f]/;
/** Longer than any id or name the API stores. */
const MAX_PATH_PARAM = 512;

/**
 * What every route checks before its handler runs, whatever its own schemas say: path parameters (ids, names)
 * of printable text within MAX_PATH_PARAM, query parameters without control characters, and a `cursor` that
 * decodes to printable UTF-8. Such values could never match a stored row and would reach the store as values
 * it refuses (PostgreSQL rejects NUL in text): they are 400s here, never 500s there. (Each list decodes its own
 * cursor further: a number in one is at most 15 digits, so a bigint never gets 1e+23.)
 */
function checkRequestShape(path: string, url: URL, params: Record<string, string>): void {
  const pathErrors: InvalidParam[] = [];
  for (const [name, value] of Object.entries(params)) {
    // Only the parameters the route's path names: a caller's extra ones never reach the handler.
    if (!path.includes(`{${name}}`)) continue;
    if (value === '' || value.length > MAX_PATH_PARAM || CONTROL.test(value))
      pathErrors.push({
        pointer: `/${name}`,
        detail: `must be 1 to ${MAX_PATH_PARAM} printable characters`,
        in: 'path',
      });
  }
  if (pathErrors.length > 0)
    throw new HttpProblem(400, 'invalid_path', 'the path has invalid parameters', { errors: pathErrors });
  const queryErrors: InvalidParam[] = [];
  for (const [name, value] of url.searchParams) {
    if (CONTROL.test(name) || CONTROL.test(value)) {
      queryErrors.push({
        pointer: `/${name.replace(CONTROL, '?')}`,
        detail: 'must not contain control characters',
        in: 'query',
      });
    } else if (name === 'cursor' && !cursorShaped(value)) {
      queryErrors.push({ pointer: '/cursor', detail: 'is not a cursor this API issued', in: 'query' });
    }
  }
  if (queryErrors.length > 0) {
    throw new HttpProblem(400, 'invalid_query', 'the query string has invalid parameters', {
      errors: queryErrors,
    });
  }
}

function cursorShaped(cursor: string): boolean {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) return false;
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  return decoded !== '' && !decoded.includes('\ufffd') && !CONTROL.test(decoded);
}

/** The handler of the route-table entry `operationId`, wrapped as its entry says. */
export function route<K extends OperationId>(
  operationId: K,
  handler: (ctx: RouteContext<K>) => Response | Promise<Response>,
): ((req: Request, route?: { params: Promise<PathParams<Def<K>['path']>> }) => Promise<Response>) & {
  readonly operationId: K;
} {
  const def: RouteDefinition = ROUTES[operationId];
  if (def.bare) {
    // Health checks: no wrapper, so they answer whatever Host a load balancer sends.
    const bare = handler as unknown as (ctx: { req: Request }) => Response | Promise<Response>;
    return tagged(async (req: Request) => await bare({ req }), operationId) as never;
  }
  const wrapped = withApi<PathParams<Def<K>['path']>>(
    def.access,
    async (ctx) => {
      checkRequestShape(def.path, new URL(ctx.req.url), ctx.params as Record<string, string>);
      const query = (def.query ? readQuery(ctx.req, def.query) : undefined) as QueryOf<Def<K>>;
      let raw: Promise<unknown> | null = null;
      const rawBody = () => (raw ??= readJsonBody(ctx.req));
      const body = async () => {
        if (!def.body) throw new Error(`${operationId} declares no body`);
        return parseBody(def.body, await rawBody()) as BodyOf<Def<K>>;
      };
      const res = await handler({ ...ctx, query, body, rawBody });
      return def.etag ? await withEtag(ctx.req, res) : res;
    },
    { credentialInBody: def.credentialInBody === true },
  );
  return tagged(wrapped, operationId) as never;
}
