// Who a token belongs to: the person who minted it, by a key that stays the same across their sessions; and a
// token never outranks its owner's current role.
import { listApiTokens, setTokenScope, type TokenOwner } from '@/db/queries/tokens';
import { maxTokenScope, roleAtLeast, tokenScopeRole } from '@/lib/auth/roles';
import type { UserRole } from '@/lib/schemas/session';
import type { ApiToken } from '@/lib/schemas/token';
import { audited, type AuditContext } from './audit';
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
 * Brings the live tokens the caller (`ctx.principal`) owns down to the highest scope `role` may mint, each
 * change audited as theirs: a token does not keep a scope its owner's role lost (a single sign-on with a
 * lower role than before). Returns the tokens it lowered.
 */
export async function capOwnedTokens(ctx: AuditContext, role: UserRole): Promise<ApiToken[]> {
  const owned = await listApiTokens(ctx.store, tokenOwnerOf(ctx.principal).by);
  const above = owned.filter((t) => t.revokedAt === null && !roleAtLeast(role, tokenScopeRole(t.scope)));
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
