// The dashboard client's one way to call the REST API, through a fetcher (the browser's `fetch` with relative
// paths). Server pages do not call it: they read the store in process (lib/api/page-read.ts).
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
