// Who a token belongs to: the person who minted it, by a key that stays the same across their sessions; a
// token never outranks its owner's current role, and a dashboard session never outlives the role it was
// issued with: what a sign-in learns about a person (a lower role, or none) reaches everything they hold.
import { listLiveSessionsOf, revokeSession } from '@/db/queries/sessions';
import { listLiveOwnedTokens, revokeApiToken, setTokenScope, type TokenOwner } from '@/db/queries/tokens';
import { maxTokenScope, roleAtLeast, tokenScopeRole } from '@/lib/auth/roles';
import type { UserRole } from '@/lib/schemas/session';
import type { ApiToken } from '@/lib/schemas/token';
import { audited, type AuditContext } from './audit';
import { sessionName } from './sessions';
import type { Principal } from './with-api';

export function tokenOwnerOf(principal: Principal): TokenOwner {
  switch (principal.kind) {
    case 'session':
      return principal.user
        ? { by: `user:${principal.user.sub}`, name: principal.user.email ?? principal.user.name }
        : { by: 'admin', name: 'admin secret' };
    case 'admin':
      return { by: 'admin', name: 'admin secret' };
    case 'token':
      return { by: `token:${principal.id}`, name: principal.name };
    default:
      return { by: 'local', name: 'local mode' };
  }
}

/**
 * Brings the live tokens `owner` minted (the caller's own by default) down to the highest scope `role` may
 * mint, each change audited: a token does not keep a scope its owner's role lost (a single sign-on with a lower
 * role than before). Returns the tokens it lowered.
 */
export async function capOwnedTokens(
  ctx: AuditContext,
  role: UserRole,
  owner: string = tokenOwnerOf(ctx.principal).by,
): Promise<ApiToken[]> {
  const owned = await listLiveOwnedTokens(ctx.store, owner, ctx.now);
  const above = owned.filter((t) => !roleAtLeast(role, tokenScopeRole(t.scope)));
  const lowered: ApiToken[] = [];
  for (const token of above) {
    lowered.push(
      await audited(ctx, { operation: 'token.cap_scope', subjectType: 'token' }, async () => {
        const after = await setTokenScope(ctx.store, token.id, maxTokenScope(role));
        return { subject: { id: token.id, name: token.name }, before: token, after, result: after };
      }),
    );
  }
  return lowered;
}

/** Revokes every live token `owner` minted, each audited with `because`; returns them as revoked. */
export async function revokeOwnedTokens(
  ctx: AuditContext,
  owner: string,
  because: string,
): Promise<ApiToken[]> {
  const revoked: ApiToken[] = [];
  for (const token of await listLiveOwnedTokens(ctx.store, owner, ctx.now)) {
    revoked.push(
      await audited(ctx, { operation: 'token.revoke', subjectType: 'token' }, async () => {
        const after = await revokeApiToken(ctx.store, token.id, ctx.now);
        return {
          subject: { id: token.id, name: token.name },
          before: { ...token, revokedBecause: null },
          after: { ...after, revokedBecause: because },
          result: after,
        };
      }),
    );
  }
  return revoked;
}

/**
 * Ends the live dashboard sessions of the single sign-on user `sub` whose role is above `role` (every one of
 * them for null: the user has no role now), each as an admin's end would be (every web process refuses the
 * cookie from then on) and audited as `session.end` with `because`. Returns the ids ended.
 */
export async function endSessionsAbove(
  ctx: AuditContext,
  sub: string,
  role: UserRole | null,
  because: string,
): Promise<string[]> {
  const ended: string[] = [];
  for (const live of await listLiveSessionsOf(ctx.store, sub, ctx.now)) {
    if (role !== null && roleAtLeast(role, live.role)) continue;
    await audited(ctx, { operation: 'session.end', subjectType: 'session' }, async () => {
      await revokeSession(ctx.store, live.id, live.expiresAt);
      return {
        subject: { id: live.id, name: sessionName(live.user) },
        before: { ...live, endedAt: null, endedBecause: null },
        after: { ...live, endedAt: ctx.now, endedBecause: because },
        result: null,
      };
    });
    ended.push(live.id);
  }
  return ended;
}
