import { HttpProblem } from '@/lib/api/problem';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';
import { revokeSession } from '@/db/queries/sessions';
import { SESSION_COOKIE, issueSession, sameOrigin, sessionCookie, sessionOf } from '@/lib/auth/session';
import { secretsEqual } from '@/lib/auth/tokens';

export const dynamic = 'force-dynamic';

/** Who the caller is: lets the dashboard decide whether to show the login form. */
export const GET = route('getSession', ({ principal, mode }) =>
  json({
    authenticated: principal.kind !== 'anonymous',
    via: principal.kind === 'admin' ? principal.via : principal.kind,
    loginRequired: !mode.local,
  }),
);

/** Dashboard login with the admin secret; sets an HttpOnly session cookie. */
export const POST = route('login', async ({ req, mode, now, body }) => {
  if (!sameOrigin(req)) {
    throw new HttpProblem(403, 'origin_mismatch', 'log in from a page of this server (Origin must match)');
  }
  const { secret } = await body();
  if (mode.adminSecret === null) {
    throw new HttpProblem(409, 'no_admin_secret', 'no admin secret is configured; local mode needs no login');
  }
  if (!secretsEqual(secret, mode.adminSecret)) {
    throw new HttpProblem(401, 'invalid_secret', 'the admin secret is not correct');
  }
  const session = issueSession(mode.adminSecret, now);
  const secure = new URL(req.url).protocol === 'https:' || req.headers.get('x-forwarded-proto') === 'https';
  return json({ authenticated: true, expiresAt: session.expiresAt }, 200, {
    'set-cookie': sessionCookie(session.value, session.expiresAt - now, secure),
  });
});

/** Log out: the session is ended in the store, so its cookie is refused by every web process, and cleared. */
export const DELETE = route('logout', async ({ req, mode, now, store }) => {
  const session = sessionOf(req, mode.adminSecret, now);
  if (session !== null) await revokeSession(store, session.sid, session.expiresAt);
  return json({ authenticated: false }, 200, {
    'set-cookie': `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`,
  });
});
