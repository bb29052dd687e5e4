// The two single sign-on routes outside /api/v1: /auth/login sends the browser to the provider, /auth/callback
// takes it back, makes the session (the same revocable session as the admin secret's login, now carrying the
// user and the role; recorded, so an admin can list and end it), ends the user's earlier sessions of a higher
// role and lowers the scope of any token they own above that role, and goes on to the page the sign-in started
// from. A refusal makes no session: it sends the browser to the login page with a code that page explains. A
// refusal for want of a role (`no_role`: the provider vouched for the user, whose groups now give none) also
// ends every session the user has and revokes every token they own: losing one's groups loses all access.
import { currentAuthMode } from '@/lib/auth/mode';
import {
  clearTxCookie,
  completeSignIn,
  OidcRefusal,
  startSignIn,
  txCookie,
  OIDC_TX_TTL_MS,
  type OidcRuntime,
} from '@/lib/auth/oidc';
import { issueSession, sessionCookie } from '@/lib/auth/session';
import { oidcSettingsOf } from '@/lib/auth/oidc-config';
import { processSettings, type Settings } from '@/lib/settings';
import { getStore } from '@/db/index';
import { recordLogin } from './sessions';
import { capOwnedTokens, endSessionsAbove, revokeOwnedTokens } from './token-owner';
import { checkHost, errorToResponse } from './with-api';
import { auditAction } from './audit';
import { clientAddress } from './front-door';
import type { SessionUser } from '@/lib/schemas/session';

/** Only same-site paths are followed after sign-in, never another origin. */
export function safeNext(value: string | null | undefined): string {
  return typeof value === 'string' && /^\/(?!\/)[^\s\\]*$/.test(value) ? value : '/';
}

function isSecure(req: Request, publicUrl: string): boolean {
  return (
    publicUrl.startsWith('https:') ||
    new URL(req.url).protocol === 'https:' ||
    req.headers.get('x-forwarded-proto') === 'https'
  );
}

function redirect(location: string, cookies: string[] = []): Response {
  const headers = new Headers({ location, 'cache-control': 'no-store' });
  for (const c of cookies) headers.append('set-cookie', c);
  return new Response(null, { status: 303, headers });
}

function refusedTo(publicUrl: string, code: string, cookies: string[] = []): Response {
  return redirect(`${publicUrl}/login?refused=${encodeURIComponent(code)}`, cookies);
}

export function ssoLoginHandler(runtime: OidcRuntime = {}) {
  return async (req: Request): Promise<Response> => {
    const settings = processSettings();
    try {
      const mode = currentAuthMode(settings);
      checkHost(req, mode);
      const oidc = oidcSettingsOf(settings);
      if (oidc === null) return refusedTo(settings.publicUrl, 'sso_not_set');
      if (mode.adminSecret === null) return refusedTo(settings.publicUrl, 'no_admin_secret');
      const now = Date.now();
      const { url, cookieValue } = await startSignIn(
        oidc,
        {
          publicUrl: settings.publicUrl,
          adminSecret: mode.adminSecret,
          next: safeNext(new URL(req.url).searchParams.get('next')),
          now,
        },
        runtime,
      );
      return redirect(url.toString(), [
        txCookie(cookieValue, OIDC_TX_TTL_MS, isSecure(req, settings.publicUrl)),
      ]);
    } catch (err) {
      if (err instanceof OidcRefusal) {
        console.error(`erawatch sso: ${err.code}: ${err.message}`);
        return refusedTo(settings.publicUrl, err.code);
      }
      return errorToResponse(err);
    }
  };
}

export function ssoCallbackHandler(runtime: OidcRuntime = {}) {
  return async (req: Request): Promise<Response> => {
    const settings = processSettings();
    try {
      const mode = currentAuthMode(settings);
      checkHost(req, mode);
      const oidc = oidcSettingsOf(settings);
      if (oidc === null) return refusedTo(settings.publicUrl, 'sso_not_set', [clearTxCookie]);
      if (mode.adminSecret === null) return refusedTo(settings.publicUrl, 'no_admin_secret', [clearTxCookie]);
      const now = Date.now();
      const signedIn = await completeSignIn(
        oidc,
        req,
        { publicUrl: settings.publicUrl, adminSecret: mode.adminSecret, env: settings.environment, now },
        runtime,
      );
      const session = issueSession(mode.adminSecret, now, { user: signedIn.user, role: signedIn.role });
      const store = await getStore({ settings });
      const ctx = {
        store,
        req,
        now,
        settings,
        principal: { kind: 'session', sid: session.sid, role: signedIn.role, user: signedIn.user } as const,
      };
      // One transaction: the user's earlier sessions of a higher role ended and their tokens brought down to the
      // role the groups give now, the session, the login.
      await store.write(async () => {
        const because = `a sign-in gave the ${signedIn.role} role`;
        await endSessionsAbove(ctx, signedIn.user.sub, signedIn.role, because);
        await capOwnedTokens(ctx, signedIn.role);
        await recordLogin(ctx, session, 'sso', { role: signedIn.role, groups: signedIn.groups });
      });
      const secure = isSecure(req, settings.publicUrl);
      return redirect(`${settings.publicUrl}${signedIn.next}`, [
        clearTxCookie,
        sessionCookie(session.value, session.expiresAt - now, secure),
      ]);
    } catch (err) {
      if (err instanceof OidcRefusal) {
        console.error(`erawatch sso: ${err.code}: ${err.message}`);
        if (err.code === 'no_role' && err.subject !== null) {
          try {
            await withdrawAccess(req, settings, err.subject);
          } catch (failed) {
            // The sign-in is refused all the same; the store's failure is the operator's to see.
            return errorToResponse(failed);
          }
        }
        return refusedTo(settings.publicUrl, err.code, [clearTxCookie]);
      }
      return errorToResponse(err);
    }
  };
}

/**
 * A user the provider vouched for whose groups give no role any more: every live session of theirs ends and
 * every live token they own is revoked, in one transaction, each audited with the user as the actor, and the
 * refusal itself recorded (`session.refused`) when they held anything.
 */
async function withdrawAccess(
  req: Request,
  settings: Settings,
  subject: { user: SessionUser; groups: string[] },
): Promise<void> {
  const store = await getStore({ settings });
  const now = Date.now();
  const { user, groups } = subject;
  const ctx = {
    store,
    req,
    now,
    settings,
    principal: { kind: 'anonymous' } as const,
    actor: {
      kind: 'user' as const,
      id: user.sub,
      name: user.email ?? user.name,
      address: clientAddress(req, settings),
    },
  };
  const because = 'a sign-in was refused: the user is in none of the groups that give a role (no_role)';
  const withdrawn = await store.write(async () => {
    const ended = await endSessionsAbove(ctx, user.sub, null, because);
    const revoked = await revokeOwnedTokens(ctx, `user:${user.sub}`, because);
    if (ended.length > 0 || revoked.length > 0) {
      await auditAction(
        ctx,
        'session.refused',
        { type: 'user', id: user.sub, name: user.email ?? user.name },
        { code: 'no_role', groups, sessionsEnded: ended, tokensRevoked: revoked.map((t) => t.id) },
      );
    }
    return { sessions: ended.length, tokens: revoked.length };
  });
  if (withdrawn.sessions > 0 || withdrawn.tokens > 0) {
    console.error(
      `erawatch sso: ${user.email ?? user.sub} has no role now: ended ${withdrawn.sessions} session(s), ` +
        `revoked ${withdrawn.tokens} token(s)`,
    );
  }
}
