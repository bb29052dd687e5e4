// The one wrapper every /api/v1 route goes through: authenticate, rate-limit, run the handler, and map every
// thrown error to problem+json. Handlers stay thin: parse with zod, call one lib/db function, answer.
import type { z } from 'zod';
import { getStore, type Store } from '@/db/index';
import { findTokenBySecret } from '@/lib/auth/api-tokens';
import { ConflictError, NotFoundError, ValidationError } from '@/lib/errors';
import { currentAuthMode, hostNameOf, isLoopbackHost, type AuthMode } from '@/lib/auth/mode';
import { SESSION_COOKIE, readCookie, sameOrigin, sessionOf } from '@/lib/auth/session';
import { isSessionRevoked } from '@/db/queries/sessions';
import { displayPrefix, hashToken, looksLikeToken, secretsEqual } from '@/lib/auth/tokens';
import type { TokenScope } from '@/lib/schemas/token';
import { EgressRefusedError } from '@/lib/net/egress';
import { HttpProblem, buildProblem, problemResponse, zodIssuesToParams, type InvalidParam } from './problem';
import { getRateLimiters } from './rate-limit';
import { processSettings, type Settings } from '@/lib/settings';

/** `read` and `write` are token scopes; `admin` (tokens, sessions) needs the admin secret, a session or local mode. */
export type Access = 'public' | 'read' | 'write' | 'admin';

export type Principal =
  | { kind: 'token'; id: string; scope: TokenScope }
  | { kind: 'admin'; via: 'secret' | 'session' }
  | { kind: 'local' }
  | { kind: 'anonymous' };

export interface ApiContext<P> {
  req: Request;
  params: P;
  principal: Principal;
  store: Store;
  now: number;
  mode: AuthMode;
  /** This process's settings, read once. */
  settings: Settings;
}

export const MAX_BODY_BYTES = 256 * 1024;
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function json(data: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(data), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
  });
}

export function noContent(): Response {
  return new Response(null, { status: 204, headers: { 'cache-control': 'no-store' } });
}

function unauthorized(code: string, detail: string): HttpProblem {
  return new HttpProblem(401, code, detail, { headers: { 'www-authenticate': 'Bearer realm="erawatch"' } });
}

/** The principal a bearer secret stands for (the admin secret or a token); 401 when it is neither. */
export async function principalForSecret(
  secret: string,
  store: Store,
  mode: AuthMode,
  now: number,
): Promise<Principal> {
  if (mode.adminSecret !== null && secretsEqual(secret, mode.adminSecret))
    return { kind: 'admin', via: 'secret' };
  const token = looksLikeToken(secret) ? await findTokenBySecret(store, secret, now) : null;
  if (!token) throw unauthorized('invalid_token', 'the bearer token is unknown or has been revoked');
  return { kind: 'token', id: token.id, scope: token.scope };
}

/** Who is calling. Throws 401/403 for credentials that are present but wrong. */
export async function authenticate(
  req: Request,
  store: Store,
  mode: AuthMode,
  now: number,
): Promise<Principal> {
  const header = req.headers.get('authorization');
  if (header !== null) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match?.[1])
      throw unauthorized('invalid_authorization', 'the Authorization header must be "Bearer <token>"');
    return await principalForSecret(match[1], store, mode, now);
  }
  const session = sessionOf(req, mode.adminSecret, now);
  // A logged-out session is refused by every web process: the logout is recorded in the store.
  if (session !== null && !(await isSessionRevoked(store, session.sid))) {
    if (UNSAFE.has(req.method) && !sameOrigin(req)) {
      throw new HttpProblem(
        403,
        'origin_mismatch',
        'a write with a session cookie needs an Origin header equal to this server',
      );
    }
    return { kind: 'admin', via: 'session' };
  }
  if (mode.local) {
    // Local mode trusts this machine; the Host check stops DNS rebinding, the Origin check cross-site writes.
    const host = req.headers.get('host') ?? new URL(req.url).host;
    const hostname = host.replace(/:\d+$/, '');
    if (!isLoopbackHost(hostname)) {
      throw new HttpProblem(
        403,
        'host_not_loopback',
        `local mode answers only loopback host names, not '${hostname}'`,
      );
    }
    if (UNSAFE.has(req.method) && !sameOrigin(req)) {
      throw unauthorized(
        'credentials_required',
        'a write needs a bearer token, or an Origin header equal to this server',
      );
    }
    return { kind: 'local' };
  }
  return { kind: 'anonymous' };
}

function allows(principal: Principal, access: Access): boolean {
  if (access === 'public') return true;
  switch (principal.kind) {
    case 'admin':
    case 'local':
      return true;
    case 'token':
      return access === 'read' || (access === 'write' && principal.scope === 'write');
    case 'anonymous':
      return false;
  }
}

function requireAccess(principal: Principal, access: Access): void {
  if (allows(principal, access)) return;
  if (principal.kind === 'anonymous') {
    throw unauthorized(
      'credentials_required',
      'this endpoint needs a bearer token (Authorization: Bearer <token>)',
    );
  }
  const need =
    access === 'admin' ? 'the admin secret or a dashboard session' : `a token with scope '${access}'`;
  throw new HttpProblem(403, 'insufficient_scope', `this endpoint needs ${need}`);
}

function principalKey(p: Principal): string {
  switch (p.kind) {
    case 'token':
      return `token:${p.id}`;
    case 'admin':
      return `admin:${p.via}`;
    default:
      return p.kind;
  }
}

/** The per-credential request limit; 429 with Retry-After when it is spent. */
export function enforceRateLimit(principal: Principal, now: number): void {
  const limit = getRateLimiters(processSettings()).requests.take(principalKey(principal), now);
  if (!limit.allowed) {
    throw new HttpProblem(429, 'rate_limited', `too many requests; retry in ${limit.retryAfterS} s`, {
      headers: { 'retry-after': String(limit.retryAfterS) },
    });
  }
}

function fieldPointer(path: string): string {
  return path === '' ? '/' : `/${path.split('.').join('/')}`;
}

/** Maps anything thrown to a problem Response; unknown errors become an opaque 500 (logged, never echoed). */
export function errorToResponse(err: unknown): Response {
  if (err instanceof HttpProblem) {
    return problemResponse(buildProblem(err.status, err.code, err.message, err.errors), err.headers);
  }
  if (err instanceof ValidationError) {
    const errors = err.issues.map((i) => ({ pointer: fieldPointer(i.path), detail: i.message }));
    return problemResponse(buildProblem(422, 'validation_failed', 'the request has invalid fields', errors));
  }
  if (err instanceof NotFoundError) return problemResponse(buildProblem(404, 'not_found', err.message));
  if (err instanceof ConflictError) return problemResponse(buildProblem(409, 'conflict', err.message));
  if (err instanceof EgressRefusedError) {
    return problemResponse(
      buildProblem(422, 'egress_refused', err.message, [{ pointer: '/url', detail: err.message }]),
    );
  }
  console.error('erawatch api: unhandled error', err instanceof Error ? err.stack : err);
  return problemResponse(
    buildProblem(500, 'internal', 'an internal error occurred; the server log has the details'),
  );
}

/** The bearer value sent, if any (malformed headers are left to authenticate). */
function bearerOf(req: Request): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.get('authorization') ?? '');
  return match?.[1] ?? null;
}

/** The calling client's address as the server saw it (Next sets x-forwarded-for from the socket when absent). */
export function clientAddress(req: Request): string {
  return req.headers.get('x-forwarded-for')?.split(',')[0]?.trim() || 'unknown';
}

/** Which buckets a failed credential from this request spends: its client address, and its token prefix. */
function failureKeys(req: Request): { address: string; prefix: string | null } {
  const bearer = bearerOf(req);
  return {
    address: `addr:${clientAddress(req)}`,
    prefix: bearer !== null && looksLikeToken(bearer) ? `prefix:${displayPrefix(bearer)}` : null,
  };
}

/** 401s for credentials that were presented and wrong; a missing credential spends nothing. */
const FAILED_CREDENTIAL = new Set(['invalid_token', 'invalid_authorization', 'invalid_secret']);

function lockedOut(retryAfterS: number): HttpProblem {
  return new HttpProblem(
    429,
    'too_many_failed_attempts',
    `too many failed authentication attempts from this client; retry in ${retryAfterS} s`,
    { headers: { 'retry-after': String(retryAfterS) } },
  );
}

/** With an admin secret set, only the configured host names are answered: the DNS-rebinding defence. */
function checkHost(req: Request, mode: AuthMode): void {
  if (mode.adminSecret === null || mode.allowedHosts === 'any') return;
  const header = req.headers.get('host') ?? new URL(req.url).host;
  const name = hostNameOf(header);
  if (name === null || !mode.allowedHosts.has(name)) {
    throw new HttpProblem(
      403,
      'host_not_allowed',
      `this server does not answer the host name '${name ?? header.slice(0, 100)}'; add it to ERAWATCH_ALLOWED_HOSTS`,
    );
  }
}

/** The request-limit bucket, decided from what was sent and before any lookup, so refusals stay cheap. */
function requestKey(req: Request, mode: AuthMode): string | null {
  const bearer = bearerOf(req);
  if (bearer !== null) return `bearer:${hashToken(bearer)}`;
  if (readCookie(req.headers.get('cookie'), SESSION_COOKIE) !== null) return 'session';
  return mode.local ? 'local' : null;
}

export function withApi<P extends Record<string, string> = Record<string, never>>(
  access: Access,
  handler: (ctx: ApiContext<P>) => Response | Promise<Response>,
): (req: Request, route?: { params: Promise<P> }) => Promise<Response> {
  return async (req, route) => {
    const settings = processSettings();
    const limiters = getRateLimiters(settings);
    try {
      const now = Date.now();
      const mode = currentAuthMode(settings);
      checkHost(req, mode);
      // A locked-out client is refused before any comparison, so even the right secret does not get in.
      const keys = failureKeys(req);
      for (const [limiter, key] of [
        [limiters.failedAuth, keys.address],
        [limiters.failedAuthPerPrefix, keys.prefix],
      ] as const) {
        const lock = key === null ? null : limiter.peek(key, now);
        if (lock && !lock.allowed) throw lockedOut(lock.retryAfterS);
      }
      const bucket = requestKey(req, mode);
      if (bucket !== null) {
        const limit = limiters.requests.take(bucket, now);
        if (!limit.allowed) {
          throw new HttpProblem(429, 'rate_limited', `too many requests; retry in ${limit.retryAfterS} s`, {
            headers: { 'retry-after': String(limit.retryAfterS) },
          });
        }
      }
      const store = await getStore({ settings });
      const principal = await authenticate(req, store, mode, now);
      requireAccess(principal, access);
      const params = route ? await route.params : ({} as P);
      return await handler({ req, params, principal, store, now, mode, settings });
    } catch (err) {
      if (err instanceof HttpProblem && err.status === 401 && FAILED_CREDENTIAL.has(err.code)) {
        const keys = failureKeys(req);
        const at = Date.now();
        limiters.failedAuth.take(keys.address, at);
        if (keys.prefix !== null) limiters.failedAuthPerPrefix.take(keys.prefix, at);
      }
      return errorToResponse(err);
    }
  };
}

/** Reads a JSON body under the size cap and parses it with `schema`: 415, 413, 400 or 422 otherwise. */
export async function readJson<S extends z.ZodType>(req: Request, schema: S): Promise<z.output<S>> {
  return parseBody(schema, await readJsonBody(req));
}

/** Validates an already-read body: 422 with a pointer per invalid field. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new HttpProblem(422, 'validation_failed', 'the request has invalid fields', {
      errors: zodIssuesToParams(parsed.error),
    });
  }
  return parsed.data;
}

/** Reads a JSON body under the size cap, unvalidated (partial updates need the keys as sent). */
export async function readJsonBody(req: Request): Promise<unknown> {
  const type = req.headers.get('content-type') ?? '';
  if (!/^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i.test(type)) {
    throw new HttpProblem(415, 'unsupported_media_type', 'send the body as application/json');
  }
  const declared = Number(req.headers.get('content-length') ?? '0');
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const text = await readCapped(req, MAX_BODY_BYTES);
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new HttpProblem(
      400,
      'malformed_json',
      `the body is not valid JSON: ${err instanceof Error ? err.message : 'parse error'}`,
    );
  }
}

function tooLarge(): HttpProblem {
  return new HttpProblem(413, 'body_too_large', `the body is larger than ${MAX_BODY_BYTES} bytes`);
}

async function readCapped(req: Request, cap: number): Promise<string> {
  if (!req.body) return '';
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > cap) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Parses URL query parameters with `schema`; failures are 400 with a pointer per parameter. */
export function readQuery<S extends z.ZodType>(req: Request, schema: S): z.output<S> {
  const url = new URL(req.url);
  const raw: Record<string, string> = {};
  for (const [k, v] of url.searchParams) raw[k] = v;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const errors: InvalidParam[] = parsed.error.issues.map((i) => ({
      pointer: `/${i.path.map(String).join('/')}`,
      detail: i.message,
      in: 'query',
    }));
    throw new HttpProblem(400, 'invalid_query', 'the query string has invalid parameters', { errors });
  }
  return parsed.data;
}

/** Runs a store call whose ValidationErrors concern query parameters (cursor, limit): those are 400s. */
export async function asQueryErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ValidationError) {
      const errors: InvalidParam[] = err.issues.map((i) => ({
        pointer: fieldPointer(i.path),
        detail: i.message,
        in: 'query',
      }));
      throw new HttpProblem(400, 'invalid_query', 'the query string has invalid parameters', { errors });
    }
    throw err;
  }
}
