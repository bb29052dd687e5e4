// How a server page reads: in process, from the store, through the same read as the route its client
// component polls (lib/api/reads.ts), as the visitor (the session cookie from next/headers, checked with the
// API's own rule). A page render sends no HTTP request to its own server, so it spends no rate-limit token
// and no concurrency slot beside the page request itself.
import type { QueryClient, QueryKey } from '@tanstack/react-query';
import { cookies } from 'next/headers';
import { getStore } from '@/db/index';
import { currentAuthMode } from '@/lib/auth/mode';
import { SESSION_COOKIE } from '@/lib/auth/session';
import { processSettings } from '@/lib/settings';
import type { PathParams } from './route';
import { READS, type ReadContext, type ReadFn, type ReadId, type ReadResult } from './reads';
import { ROUTES } from './routes';
import { allows, cookiePrincipal } from './with-api';

/** The API would refuse this read (no session, a role too low, a bad query): the client's own fetch says why. */
export class PageReadRefused extends Error {
  constructor(op: ReadId) {
    super(`${op}: refused for this visitor`);
    this.name = 'PageReadRefused';
  }
}

export interface PageReadInput<K extends ReadId> {
  params?: PathParams<(typeof ROUTES)[K]['path']>;
  /** The query string's parameters as the client sends them, or made from the read's time (a window that
   *  slides); parsed with the route's schema. */
  query?: Record<string, string> | ((now: number) => Record<string, string>);
}

/**
 * Reads `op` for the visitor of this page, as JSON would carry it (so the data the page hands to the client
 * is what the client's own polling answers). Throws PageReadRefused where the API would answer 400, 401 or
 * 403, and the read's own errors (NotFoundError, …) as they are.
 */
export async function pageRead<K extends ReadId>(
  op: K,
  input: PageReadInput<K> = {},
): Promise<ReadResult<K>> {
  const settings = processSettings();
  const now = Date.now();
  const mode = currentAuthMode(settings);
  const store = await getStore({ settings });
  const cookie = (await cookies()).get(SESSION_COOKIE)?.value ?? null;
  const principal = await cookiePrincipal(cookie, store, mode, now);
  const def = ROUTES[op];
  if (!allows(principal, def.access)) throw new PageReadRefused(op);
  let query: unknown = undefined;
  if ('query' in def) {
    const raw = typeof input.query === 'function' ? input.query(now) : (input.query ?? {});
    const parsed = def.query.safeParse(raw);
    if (!parsed.success) throw new PageReadRefused(op);
    query = parsed.data;
  }
  const ctx = { store, now, settings, principal, params: input.params ?? {}, query } as ReadContext<K>;
  const result = await (READS[op] as ReadFn<K>)(ctx);
  return JSON.parse(JSON.stringify(result)) as ReadResult<K>;
}

/**
 * Prefetches a page's query from the store: `pick` turns the read into the query's data (as the client's
 * queryFn does with the response). A refused or failed read is left out, and the client fetches it itself.
 */
export function prefetchRead<K extends ReadId, T>(
  client: QueryClient,
  queryKey: QueryKey,
  op: K,
  input: PageReadInput<K>,
  pick: (result: ReadResult<K>) => T,
): Promise<void> {
  return client.prefetchQuery({ queryKey, queryFn: async () => pick(await pageRead(op, input)) });
}
