// The one wrapper every /api/v1 route goes through: authenticate, rate-limit, run the handler, and map every
// thrown error to problem+json. Handlers stay thin: parse with zod, call one lib/db function, answer.
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { getStore, storeUnreachable, type Store } from '@/db/index';
import { withAnswerDeadline } from '@/db/answer-deadline';
import { findTokenBySecret } from '@/lib/auth/api-tokens';
import { ERROR_CODES, ValidationError, errorCode, errorMessage, loggableError } from '@/lib/errors';
import { currentAuthMode, hostRefusal, type AuthMode } from '@/lib/auth/mode';
import { awaitsBody, clientAddress, enterAfterBody } from './front-door';
import { SESSION_COOKIE, readCookie, sameOrigin, verifySession } from '@/lib/auth/session';
import { isSessionRevoked } from '@/db/queries/sessions';
import { displayPrefix, hashToken, looksLikeToken, secretsEqual } from '@/lib/auth/tokens';
import type { TokenScope } from '@/lib/schemas/token';
import type { SessionUser, UserRole } from '@/lib/schemas/session';
import { accessRole, principalRole, roleAtLeast } from '@/lib/auth/roles';
import { HttpProblem, buildProblem, problemResponse, zodIssuesToParams, type InvalidParam } from './problem';
import { getRateLimiters } from './rate-limit';
import { processSettings, type Settings } from '@/lib/settings';

import type { Access } from './routes';

export type { Access };

export type Principal =
  | { kind: 'token'; id: string; name: string; scope: TokenScope }
  | { kind: 'admin'; via: 'secret' }
  /** A dashboard session: of a signed-in user (with the role their groups gave), or of the admin secret (user null, admin). */
  | { kind: 'session'; sid: string; role: UserRole; user: SessionUser | null }
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

/** The weak validator of a JSON body: a hash of exactly the bytes sent. */
export function weakEtagOf(body: string): string {
  return `W/"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
}

/** Whether an If-None-Match header holds `etag` (weak comparison, `*` included). */
export function etagMatches(ifNoneMatch: string | null, etag: string): boolean {
  if (ifNoneMatch === null) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const wanted = opaque(etag);
  return ifNoneMatch.split(',').some((t) => t.trim() === '*' || opaque(t) === wanted);
}

/**
 * A JSON read answered with a weak ETag (a hash of its body) and `private, no-cache`: the client revalidates
 * every time, and a body that did not change costs a 304 with no body. Other answers pass unchanged.
 */
export async function withEtag(req: Request, res: Response): Promise<Response> {
  if (res.status !== 200 || !(res.headers.get('content-type') ?? '').startsWith('application/json'))
    return res;
  const body = await res.text();
  const etag = weakEtagOf(body);
  const headers = new Headers(res.headers);
  headers.set('etag', etag);
  headers.set('cache-control', 'private, no-cache');
  if (etagMatches(req.headers.get('if-none-match'), etag)) {
    headers.delete('content-type');
    return new Response(null, { status: 304, headers });
  }
  return new Response(body, { status: 200, headers });
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
  if (!token)
    throw unauthorized('invalid_token', 'the bearer token is unknown, has expired or has been revoked');
  return { kind: 'token', id: token.id, name: token.name, scope: token.scope };
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
  const principal = await cookiePrincipal(
    readCookie(req.headers.get('cookie'), SESSION_COOKIE),
    store,
    mode,
    now,
  );
  if (UNSAFE.has(req.method) && !sameOrigin(req)) {
    if (principal.kind === 'session') {
      throw new HttpProblem(
        403,
        'origin_mismatch',
        'a write with a session cookie needs an Origin header equal to this server',
      );
    }
    // Local mode trusts this machine; the Host check (checkHost) stops DNS rebinding, the Origin check
    // cross-site writes.
    if (principal.kind === 'local') {
      throw unauthorized(
        'credentials_required',
        'a write needs a bearer token, or an Origin header equal to this server',
      );
    }
  }
  return principal;
}

/**
 * Who a caller without a bearer credential is: the dashboard session its cookie names (a logged-out one is
 * refused by every web process: the logout is recorded in the store), else local mode's trust, else nobody.
 * Route handlers reach it through `authenticate`, server pages through `lib/api/page-read.ts`.
 */
export async function cookiePrincipal(
  sessionCookie: string | null,
  store: Store,
  mode: AuthMode,
  now: number,
): Promise<Principal> {
  const session =
    sessionCookie !== null && mode.adminSecret !== null
      ? verifySession(sessionCookie, mode.adminSecret, now)
      : null;
  if (session !== null && !(await isSessionRevoked(store, session.sid))) {
    return { kind: 'session', sid: session.sid, role: session.role, user: session.user };
  }
  return mode.local ? { kind: 'local' } : { kind: 'anonymous' };
}

export function allows(principal: Principal, access: Access): boolean {
  if (access === 'public') return true;
  if (principal.kind === 'anonymous') return false;
  // Tokens never manage tokens, sessions or the audit log.
  if (principal.kind === 'token' && (access === 'admin' || access === 'account')) return false;
  const role = principalRole(principal);
  return role !== null && roleAtLeast(role, accessRole(access as Exclude<Access, 'public'>));
}

function needOf(access: Exclude<Access, 'public'>): UserRole {
  return accessRole(access);
}

function requireAccess(principal: Principal, access: Access): void {
  if (allows(principal, access)) return;
  if (principal.kind === 'anonymous') {
    throw unauthorized(
      'credentials_required',
      'this endpoint needs a bearer token (Authorization: Bearer <token>)',
    );
  }
  if (principal.kind === 'token') {
    const need =
      access === 'admin' || access === 'account'
        ? 'the admin secret or a dashboard session'
        : `a token with scope '${access === 'viewer' ? 'read' : 'write'}'`;
    throw new HttpProblem(403, 'insufficient_scope', `this endpoint needs ${need}`);
  }
  const need = needOf(access as Exclude<Access, 'public'>);
  throw new HttpProblem(
    403,
    'insufficient_role',
    `this needs the ${need} role; you are signed in as ${principalRole(principal) ?? 'nobody'}`,
  );
}

function fieldPointer(path: string): string {
  return path === '' ? '/' : `/${path.split('.').join('/')}`;
}

/** How long a request waits for a store that answers nothing before 503 (the same as /readyz's deadline). */
export const STORE_ANSWER_DEADLINE_MS = 2_000;

/** Seconds a client is told to wait after 503 `store_unavailable`. */
export const STORE_RETRY_AFTER_S = 5;

function isHttpProblem(err: unknown): err is HttpProblem {
  if (err instanceof HttpProblem) return true;
  const e = err as Partial<HttpProblem> | null;
  return (
    err instanceof Error &&
    e?.name === 'HttpProblem' &&
    typeof e.status === 'number' &&
    typeof e.code === 'string'
  );
}

function storeUnavailable(detail: string): Response {
  return problemResponse(buildProblem(503, 'store_unavailable', detail), {
    'retry-after': String(STORE_RETRY_AFTER_S),
  });
}

/**
 * Maps anything thrown to a problem Response; unknown errors become an opaque 500 (logged, never echoed). Our
 * typed errors are told apart by their stable `code` (lib/errors.ts), not by class: the store's errors may come
 * from another bundle's copy of the class.
 */
export function errorToResponse(err: unknown): Response {
  if (isHttpProblem(err)) {
    return problemResponse(buildProblem(err.status, err.code, err.message, err.errors), err.headers);
  }
  const message = err instanceof Error ? err.message : String(err);
  switch (errorCode(err)) {
    case ERROR_CODES.validation: {
      const issues = (err as ValidationError).issues;
      const errors = issues.map((i) => ({ pointer: fieldPointer(i.path), detail: i.message }));
      return problemResponse(
        buildProblem(422, 'validation_failed', 'the request has invalid fields', errors),
      );
    }
    case ERROR_CODES.notFound:
      return problemResponse(buildProblem(404, 'not_found', message));
    case ERROR_CODES.conflict:
      return problemResponse(buildProblem(409, 'conflict', message));
    case ERROR_CODES.storeUnavailable: {
      console.error(`erawatch api: ${message}`);
      const silentMs = (err as { silentMs?: unknown }).silentMs;
      return storeUnavailable(
        typeof silentMs === 'number'
          ? `the database did not answer within ${silentMs / 1000} s; nothing was written`
          : 'the database is unavailable; nothing was written',
      );
    }
    case ERROR_CODES.egressRefused:
      return problemResponse(
        buildProblem(422, 'egress_refused', message, [{ pointer: '/url', detail: message }]),
      );
    case ERROR_CODES.storedDataInvalid:
      console.error('erawatch api: stored data does not parse', message);
      return problemResponse(buildProblem(500, 'stored_data_invalid', message));
  }
  if (storeUnreachable(err)) {
    // The server refused or dropped the connection: a transaction it did not commit wrote nothing.
    console.error(`erawatch api: the database is unreachable: ${errorMessage(err)}`);
    return storeUnavailable('the database is unreachable; nothing was written');
  }
  console.error(`erawatch api: unhandled error: ${loggableError(err)}`);
  return problemResponse(
    buildProblem(500, 'internal', 'an internal error occurred; the server log has the details'),
  );
}

/** The bearer value sent, if any (malformed headers are left to authenticate). */
function bearerOf(req: Request): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.get('authorization') ?? '');
  return match?.[1] ?? null;
}

/** Which buckets a failed credential from this request spends: its client address, and its token prefix. */
function failureKeys(
  req: Request,
  settings: Pick<Settings, 'trustedProxies'>,
  secret: string | null = bearerOf(req),
): { address: string; prefix: string | null } {
  return {
    address: `addr:${clientAddress(req, settings)}`,
    prefix: secret !== null && looksLikeToken(secret) ? `prefix:${displayPrefix(secret)}` : null,
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

export function checkHost(req: Request, mode: AuthMode): void {
  const refusal = hostRefusal(req.headers.get('host') ?? new URL(req.url).host, mode);
  if (refusal) throw new HttpProblem(403, refusal.code, refusal.detail);
}

/** The request-limit bucket, decided from what was sent and before any lookup, so refusals stay cheap. */
function requestKey(req: Request, mode: AuthMode, settings: Settings): string | null {
  const bearer = bearerOf(req);
  if (bearer !== null) return bearerBucket(bearer);
  if (readCookie(req.headers.get('cookie'), SESSION_COOKIE) !== null) return 'session';
  // Local mode: one bucket per client address, so one busy caller does not spend everyone's budget.
  return mode.local ? `local:${clientAddress(req, settings)}` : null;
}

/** The request bucket of a secret, however it is sent (a bearer header, the Flagger hook's metadata.token). */
function bearerBucket(secret: string): string {
  return `bearer:${hashToken(secret)}`;
}

function refuseIfLocked(keys: { address: string; prefix: string | null }, now: number): void {
  const limiters = getRateLimiters(processSettings());
  for (const [limiter, key] of [
    [limiters.failedAuth, keys.address],
    [limiters.failedAuthPerPrefix, keys.prefix],
  ] as const) {
    const lock = key === null ? null : limiter.peek(key, now);
    if (lock && !lock.allowed) throw lockedOut(lock.retryAfterS);
  }
}

function spendFailure(keys: { address: string; prefix: string | null }, at: number): void {
  const limiters = getRateLimiters(processSettings());
  limiters.failedAuth.take(keys.address, at);
  if (keys.prefix !== null) limiters.failedAuthPerPrefix.take(keys.prefix, at);
}

/**
 * The principal of a secret sent in a body (the Flagger hook's metadata.token), under the same lockout as a
 * bearer header: refused while its client or its prefix is locked out, a wrong one spends both buckets, and
 * a right one spends the secret's request bucket.
 */
export async function principalForBodySecret(
  secret: string,
  req: Request,
  ctx: { store: Store; mode: AuthMode; now: number; settings: Settings },
): Promise<Principal> {
  const keys = failureKeys(req, ctx.settings, secret);
  refuseIfLocked(keys, ctx.now);
  let principal: Principal;
  try {
    principal = await principalForSecret(secret, ctx.store, ctx.mode, ctx.now);
  } catch (err) {
    // The address bucket is spent by withApi for every failed credential; the prefix is known only here.
    if (keys.prefix !== null) getRateLimiters(ctx.settings).failedAuthPerPrefix.take(keys.prefix, Date.now());
    throw err;
  }
  takeRequest(bearerBucket(secret), ctx.now);
  return principal;
}

function takeRequest(bucket: string, now: number): void {
  const limit = getRateLimiters(processSettings()).requests.take(bucket, now);
  if (!limit.allowed) {
    throw new HttpProblem(429, 'rate_limited', `too many requests; retry in ${limit.retryAfterS} s`, {
      headers: { 'retry-after': String(limit.retryAfterS) },
    });
  }
}

/**
 * Whether a request outside withApi (/readyz) carries a valid bearer credential, under the same lockout: a
 * wrong one spends the failure buckets, and a locked-out client is never believed. Never throws.
 */
export async function hasValidBearer(
  req: Request,
  store: Store,
  settings: Settings,
  now: number,
): Promise<boolean> {
  const bearer = bearerOf(req);
  if (bearer === null) return false;
  const keys = failureKeys(req, settings, bearer);
  try {
    refuseIfLocked(keys, now);
    await principalForSecret(bearer, store, currentAuthMode(settings), now);
    return true;
  } catch (err) {
    if (isHttpProblem(err) && err.status === 401) spendFailure(keys, Date.now());
    return false;
  }
}

export interface WithApiOptions {
  /**
   * The credential travels in the body (the Flagger hook): the request is not a browser's cross-site write,
   * so local mode's Origin rule does not apply, and the handler authenticates it.
   */
  credentialInBody?: boolean;
}

/** The API wrapper around one handler; route files reach it through `route()` (lib/api/route.ts). */
export function withApi<P extends Record<string, string> = Record<string, never>>(
  access: Access,
  handler: (ctx: ApiContext<P>) => Response | Promise<Response>,
  options: WithApiOptions = {},
): (req: Request, route?: { params: Promise<P> }) => Promise<Response> {
  return async (req, route) => {
    const settings = processSettings();
    let release: (() => void) | null = null;
    try {
      // A request with a body holds no slot while its body arrives (lib/api/front-door.ts): it is read first,
      // then the slot is taken for the handling alone.
      if (awaitsBody(req.headers)) await readBodyBytes(req);
      release = enterAfterBody(req.headers);
      if (release === null) {
        throw new HttpProblem(
          429,
          'overloaded',
          'the server is serving as many requests as it may; retry in 1 s',
          { headers: { 'retry-after': '1' } },
        );
      }
      const now = Date.now();
      const mode = currentAuthMode(settings);
      checkHost(req, mode);
      // A locked-out client is refused before any comparison, so even the right secret does not get in.
      refuseIfLocked(failureKeys(req, settings), now);
      const bucket = options.credentialInBody ? null : requestKey(req, mode, settings);
      if (bucket !== null) takeRequest(bucket, now);
      const store = await getStore({ settings });
      // A store that answers nothing costs 503 within the deadline /readyz keeps, not the connect timeout.
      return await withAnswerDeadline(STORE_ANSWER_DEADLINE_MS, async () => {
        const principal = options.credentialInBody
          ? ({ kind: 'anonymous' } as const)
          : await authenticate(req, store, mode, now);
        requireAccess(principal, access);
        // A route without path parameters gets a context whose params resolve to nothing.
        const params = ((route ? await route.params : undefined) ?? {}) as P;
        return await handler({ req, params, principal, store, now, mode, settings });
      });
    } catch (err) {
      if (err instanceof HttpProblem && err.status === 401 && FAILED_CREDENTIAL.has(err.code)) {
        // The prefix of a body secret is spent by principalForBodySecret.
        spendFailure(failureKeys(req, settings), Date.now());
      }
      return errorToResponse(err);
    } finally {
      release?.();
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
  const text = (await readBodyBytes(req)).toString('utf8');
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

const BODIES = new WeakMap<Request, Promise<Buffer>>();

/** The request's body under the size cap, read once (413 beyond it, 408 when it was cut before it arrived). */
function readBodyBytes(req: Request): Promise<Buffer> {
  let body = BODIES.get(req);
  if (!body) {
    const declared = Number(req.headers.get('content-length') ?? '0');
    body = declared > MAX_BODY_BYTES ? Promise.reject(tooLarge()) : readCapped(req, MAX_BODY_BYTES);
    // Read at most once; a caller that never awaits it (a refusal before the handler) leaves no rejection loose.
    body.catch(() => {});
    BODIES.set(req, body);
  }
  return body;
}

async function readCapped(req: Request, cap: number): Promise<Buffer> {
  if (!req.body) return Buffer.alloc(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let next: ReadableStreamReadResult<Uint8Array>;
    try {
      next = await reader.read();
    } catch {
      throw bodyCut();
    }
    const { done, value } = next;
    if (done) break;
    size += value.byteLength;
    if (size > cap) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  // A stream that ended before the declared length was cut (the front door's 408, or the client went away):
  // it is not a body to handle, and takes no slot.
  const declared = Number(req.headers.get('content-length') ?? 'NaN');
  if (Number.isInteger(declared) && size < declared) throw bodyCut();
  return Buffer.concat(chunks);
}

function bodyCut(): HttpProblem {
  return new HttpProblem(
    408,
    'body_timeout',
    'the request body did not arrive: it was cut for arriving too slowly, or the client went away',
  );
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
    if (errorCode(err) === ERROR_CODES.validation) {
      const errors: InvalidParam[] = (err as ValidationError).issues.map((i) => ({
        pointer: fieldPointer(i.path),
        detail: i.message,
        in: 'query',
      }));
      throw new HttpProblem(400, 'invalid_query', 'the query string has invalid parameters', { errors });
    }
    throw err;
  }
}
