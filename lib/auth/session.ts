// The dashboard's login session: a cookie HMAC-signed with a key derived from the admin secret, so changing
// the secret logs everyone out. It carries a random session id: a logout records that id in the store
// (db/queries/sessions), and every web process refuses the cookie from then on. Writes with a session also
// need an Origin equal to the server's own.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { parseCookie } from 'cookie';

export const SESSION_COOKIE = 'erawatch_session';
export const SESSION_TTL_MS = 12 * 3_600_000;
/** The cookie format; a cookie of an older format (no session id, so it cannot be ended) is refused. */
const SESSION_VERSION = 2;

function sessionKey(adminSecret: string): Buffer {
  return createHmac('sha256', adminSecret).update('erawatch-session-v1').digest();
}

function sign(payload: string, adminSecret: string): string {
  return createHmac('sha256', sessionKey(adminSecret)).update(payload).digest('base64url');
}

export interface Session {
  /** Random id, what a logout records. */
  sid: string;
  expiresAt: number;
}

export function issueSession(adminSecret: string, now: number): Session & { value: string } {
  const expiresAt = now + SESSION_TTL_MS;
  const sid = randomBytes(16).toString('base64url');
  const payload = Buffer.from(JSON.stringify({ v: SESSION_VERSION, sid, iat: now, exp: expiresAt })).toString(
    'base64url',
  );
  return { value: `${payload}.${sign(payload, adminSecret)}`, sid, expiresAt };
}

/** The session a cookie carries when it is this server's, of the current format, and not expired; else null. */
export function verifySession(value: string, adminSecret: string, now: number): Session | null {
  const dot = value.indexOf('.');
  if (dot <= 0) return null;
  const payload = value.slice(0, dot);
  const given = Buffer.from(value.slice(dot + 1), 'base64url');
  const expected = Buffer.from(sign(payload, adminSecret), 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
      v?: unknown;
      sid?: unknown;
      exp?: unknown;
    };
    if (body.v !== SESSION_VERSION || typeof body.sid !== 'string' || body.sid === '') return null;
    if (typeof body.exp !== 'number' || body.exp <= now) return null;
    return { sid: body.sid, expiresAt: body.exp };
  } catch {
    return null;
  }
}

/** The session of the request's cookie, verified against the admin secret; null without one or when invalid. */
export function sessionOf(req: Request, adminSecret: string | null, now: number): Session | null {
  const cookie = readCookie(req.headers.get('cookie'), SESSION_COOKIE);
  return cookie !== null && adminSecret !== null ? verifySession(cookie, adminSecret, now) : null;
}

/** One cookie of a Cookie header (the `cookie` package's parser); a malformed value is read as sent, never thrown. */
export function readCookie(header: string | null, name: string): string | null {
  if (!header) return null;
  return parseCookie(header)[name] ?? null;
}

export function sessionCookie(value: string, maxAgeMs: number, secure: boolean): string {
  const attrs = [
    `${SESSION_COOKIE}=${value}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${Math.floor(maxAgeMs / 1000)}`,
  ];
  if (secure) attrs.push('Secure');
  return attrs.join('; ');
}

/** The request's own origin as the browser sees it (scheme from x-forwarded-proto when a proxy set it). */
export function requestOrigin(req: Request): string | null {
  const host = req.headers.get('host');
  if (!host) return null;
  const proto =
    req.headers.get('x-forwarded-proto')?.split(',')[0]?.trim() || new URL(req.url).protocol.replace(':', '');
  return `${proto}://${host}`;
}

/** True when a state-changing request comes from a page of this server. */
export function sameOrigin(req: Request): boolean {
  const origin = req.headers.get('origin');
  const own = requestOrigin(req);
  return origin !== null && own !== null && origin === own;
}
