// Binds a route file's handler to its entry in the route table (lib/api/routes.ts): the entry's access is
// enforced, its query schema parsed before the handler runs and its body schema is what `body()` parses with,
// so what a route does and what its documentation says come from one declaration.
import type { z } from 'zod';
import { ROUTES, type OperationId, type RouteDefinition } from './routes';
import { parseBody, readJsonBody, readQuery, withApi, type ApiContext } from './with-api';

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
  const wrapped = withApi<PathParams<Def<K>['path']>>(def.access, (ctx) => {
    const query = (def.query ? readQuery(ctx.req, def.query) : undefined) as QueryOf<Def<K>>;
    let raw: Promise<unknown> | null = null;
    const rawBody = () => (raw ??= readJsonBody(ctx.req));
    const body = async () => {
      if (!def.body) throw new Error(`${operationId} declares no body`);
      return parseBody(def.body, await rawBody()) as BodyOf<Def<K>>;
    };
    return handler({ ...ctx, query, body, rawBody });
  });
  return tagged(wrapped, operationId) as never;
}
