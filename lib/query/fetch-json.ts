// The dashboard's one way to call the REST API. The fetcher is a parameter: the browser passes `fetch`
// with relative paths, a server page passes one bound to its own origin (see server-fetcher.ts).
import { problemFromBody } from './problem';

export type Fetcher = (path: string, init?: RequestInit) => Promise<Response>;

export const browserFetcher: Fetcher = (path, init) =>
  fetch(path, {
    credentials: 'same-origin',
    ...init,
    headers: { accept: 'application/json', ...init?.headers },
  });

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  if (text.length === 0) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** GET/POST/… a JSON resource; throws ApiProblem on any non-2xx answer, with the problem body read. */
export async function requestJson<T>(fetcher: Fetcher, path: string, init?: RequestInit): Promise<T> {
  const res = await fetcher(path, init);
  const body = await readBody(res);
  if (!res.ok) throw problemFromBody(res.status, body, `${res.status} ${res.statusText || 'request failed'}`);
  return body as T;
}

/** Sends a JSON body with the given method. */
export function sendJson<T>(fetcher: Fetcher, method: string, path: string, body?: unknown): Promise<T> {
  return requestJson<T>(fetcher, path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}
