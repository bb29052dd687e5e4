import { HttpProblem } from '@/lib/api/problem';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';
import { revokeSession } from '@/db/queries/sessions';
import { SESSION_COOKIE, issueSession, sameOrigin, sessionCookie, sessionOf } from '@/lib/auth/session';
import { secretsEqual } from '@/lib/auth/tokens';
import { auditAction } from '@/lib/api/audit';
import { recordLogin, sessionName } from '@/lib/api/sessions';
import { principalRole } from '@/lib/auth/roles';
import { endSessionUrl } from '@/lib/auth/oidc';
import { oidcSettingsOf } from '@/lib/auth/oidc-config';

export const dynamic = 'force-dynamic';

/** Who the caller is and what they may do: lets the dashboard decide what to show. */
export const GET = route('getSession', ({ principal, mode, settings }) =>
  json({
    authenticated: principal.kind !== 'anonymous',
    via: principal.kind === 'admin' ? principal.via : principal.kind,
    loginRequired: !mode.local,
    role: principalRole(principal),
    user: principal.kind === 'session' ? principal.user : null,
    sso: oidcSettingsOf(settings) !== null,
  }),
);

/** Dashboard login with the admin secret; sets an HttpOnly session cookie. */
export const POST = route('login', async (ctx) => {
  const { req, mode, now } = ctx;
  if (!sameOrigin(req)) {
    throw new HttpProblem(403, 'origin_mismatch', 'log in from a page of this server (Origin must match)');
  }
  const { secret } = await ctx.body();
  if (mode.adminSecret === null) {
    throw new HttpProblem(409, 'no_admin_secret', 'no admin secret is configured; local mode needs no login');
  }
  if (!secretsEqual(secret, mode.adminSecret)) {
    throw new HttpProblem(401, 'invalid_secret', 'the admin secret is not correct');
  }
  const session = issueSession(mode.adminSecret, now);
  await recordLogin({ ...ctx, principal: { kind: 'admin', via: 'secret' } }, session, 'admin_secret');
  const secure = new URL(req.url).protocol === 'https:' || req.headers.get('x-forwarded-proto') === 'https';
  return json({ authenticated: true, expiresAt: session.expiresAt }, 200, {
    'set-cookie': sessionCookie(session.value, session.expiresAt - now, secure),
  });
});

/**
 * Log out: the session is ended in the store, so its cookie is refused by every web process, and cleared. A
 * signed-in user is also offered the provider's logout (`endSessionUrl`) when the provider has one.
 */
export const DELETE = route('logout', async (ctx) => {
  const { req, mode, now, store, settings, principal } = ctx;
  const session = sessionOf(req, mode.adminSecret, now);
  if (session !== null) {
    await store.write(async () => {
      await revokeSession(store, session.sid, session.expiresAt);
      await auditAction(ctx, 'session.logout', {
        type: 'session',
        id: session.sid,
        name: sessionName(principal.kind === 'session' ? principal.user : null),
      });
    });
  }
  const oidc = oidcSettingsOf(settings);
  const providerLogout =
    session?.user && oidc ? await endSessionUrl(oidc, { publicUrl: settings.publicUrl }) : null;
  return json({ authenticated: false, ...(providerLogout ? { endSessionUrl: providerLogout } : {}) }, 200, {
    'set-cookie': `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`,
  });
});
