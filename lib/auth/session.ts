// The dashboard's login session: a cookie HMAC-signed with a key derived from the admin secret, so changing
// the secret logs everyone out. It carries a random session id: a logout records that id in the store
// (db/queries/sessions), and every web process refuses the cookie from then on. Writes with a session also
// need an Origin equal to the server's own.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { parseCookie } from 'cookie';
import { USER_ROLES, type SessionUser, type UserRole } from '@/lib/schemas/session';

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
  /** What the session may do: admin for the admin secret's login, else the role the user's groups gave. */
  role: UserRole;
  /** The person signed in through single sign-on; null for the admin secret's login. */
  user: SessionUser | null;
}

/** A session for the admin secret's login (no user, admin) or for a signed-in user with their role. */
export function issueSession(
  adminSecret: string,
  now: number,
  who: { user: SessionUser; role: UserRole } | null = null,
): Session & { value: string } {
  const expiresAt = now + SESSION_TTL_MS;
  const sid = randomBytes(16).toString('base64url');
  const role = who?.role ?? 'admin';
  const user = who?.user ?? null;
  const payload = Buffer.from(
    JSON.stringify({ v: SESSION_VERSION, sid, iat: now, exp: expiresAt, role, ...(user ? { user } : {}) }),
  ).toString('base64url');
  return { value: `${payload}.${sign(payload, adminSecret)}`, sid, expiresAt, role, user };
}

function userOf(value: unknown): SessionUser | null {
  if (typeof value !== 'object' || value === null) return null;
  const u = value as Record<string, unknown>;
  if (typeof u.sub !== 'string') return null;
  const opt = (v: unknown) => (typeof v === 'string' ? v : null);
  return { sub: u.sub, email: opt(u.email), name: opt(u.name) };
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
      role?: unknown;
      user?: unknown;
    };
    if (body.v !== SESSION_VERSION || typeof body.sid !== 'string' || body.sid === '') return null;
    if (typeof body.exp !== 'number' || body.exp <= now) return null;
    // Sessions signed before roles existed were all the admin secret's.
    const role = body.role === undefined ? 'admin' : USER_ROLES.find((r) => r === body.role);
    if (role === undefined) return null;
    return { sid: body.sid, expiresAt: body.exp, role, user: userOf(body.user) };
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
