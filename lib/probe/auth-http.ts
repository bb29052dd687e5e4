// The probe's side requests (protected-resource metadata, authorization-server metadata, token requests):
// one bounded exchange each over the probe's egress-guarded dispatcher. No redirects, a byte cap, one
// overall deadline. Answers a web `Response` so oauth4webapi can use it as its fetch.
import { request, type Dispatcher } from 'undici';
import { checkUrl } from '@/lib/net/egress';
import { outcomeOfError } from './http-transport';
import type { Outcome } from './types';

export const SIDE_BODY_LIMIT = 64 * 1024;

export class SideRequestError extends Error {
  constructor(
    readonly outcome: Outcome | 'body_too_large',
    message: string,
  ) {
    super(message);
    this.name = 'SideRequestError';
  }
}

export interface SideFetchOptions {
  dispatcher: Dispatcher;
  /** Picks the dispatcher per URL (a server-named URL off the target's host gets one without loopback). */
  dispatcherFor?: (url: URL) => Dispatcher;
  /** Epoch ms by which the exchange must be complete. */
  deadline: number;
  now: () => number;
  maxBodyBytes?: number;
}

/**
 * A fetch for side requests. Throws SideRequestError for refusals, timeouts and oversized bodies, so a
 * caller (or oauth4webapi) sees a failure rather than a partial document.
 */
export function createSideFetch(opts: SideFetchOptions) {
  const limit = opts.maxBodyBytes ?? SIDE_BODY_LIMIT;
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input);
    const problem = checkUrl(url);
    if (problem) throw new SideRequestError('egress_refused', problem);
    const remaining = opts.deadline - opts.now();
    if (remaining <= 0) throw new SideRequestError('timeout', 'no time left in the probe deadline');
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const method = (init?.method ?? 'GET').toUpperCase() as Dispatcher.HttpMethod;
    const body = init?.body;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error('deadline')), remaining);
    try {
      const res = await request(url, {
        method,
        headers,
        body: typeof body === 'string' || body instanceof URLSearchParams ? String(body) : undefined,
        dispatcher: opts.dispatcherFor ? opts.dispatcherFor(new URL(url)) : opts.dispatcher,
        signal: controller.signal,
        headersTimeout: remaining + 1_000,
        bodyTimeout: remaining + 1_000,
      });
      const chunks: Buffer[] = [];
      let total = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        total += chunk.length;
        if (total > limit) {
          res.body.destroy();
          throw new SideRequestError('body_too_large', `body exceeded ${limit} bytes`);
        }
        chunks.push(chunk);
      }
      const out = new Headers();
      for (const [name, value] of Object.entries(res.headers)) {
        if (value === undefined) continue;
        for (const v of Array.isArray(value) ? value : [value]) out.append(name, v);
      }
      // A web Response cannot carry a body on these statuses.
      const bodyless = res.statusCode === 204 || res.statusCode === 304;
      return new Response(bodyless ? null : Buffer.concat(chunks, total), {
        status: res.statusCode,
        headers: out,
      });
    } catch (err) {
      if (err instanceof SideRequestError) throw err;
      if (controller.signal.aborted) {
        throw new SideRequestError('timeout', `no complete answer within ${remaining} ms`);
      }
      const mapped = outcomeOfError(err);
      throw new SideRequestError(mapped.outcome, mapped.detail);
    } finally {
      clearTimeout(timer);
    }
  };
}

export type SideFetch = ReturnType<typeof createSideFetch>;
