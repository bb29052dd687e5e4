// A per-process mark for this process's own server-side reads of its API (a server component fetching over
// loopback): the front door (lib/api/front-door.ts) does not count them against the concurrency limit, since
// the page request they serve already holds a slot. Random per process, sent only over loopback to itself.
import { randomBytes } from 'node:crypto';

export const INTERNAL_REQUEST_HEADER = 'x-erawatch-internal';

const KEY = Symbol.for('erawatch.internal-request-nonce');
type GlobalWithNonce = typeof globalThis & { [KEY]?: string };

/** The value of INTERNAL_REQUEST_HEADER in this process (shared by every bundle through globalThis). */
export function internalRequestNonce(): string {
  const g = globalThis as GlobalWithNonce;
  g[KEY] ??= randomBytes(18).toString('base64url');
  return g[KEY];
}

/** The header a server component sends with its reads of this same process's API. */
export function internalRequestHeaders(): Record<string, string> {
  return { [INTERNAL_REQUEST_HEADER]: internalRequestNonce() };
}
