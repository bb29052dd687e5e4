import { getApiToken, revokeApiToken } from '@/db/queries/tokens';
import { audited } from '@/lib/api/audit';
import { tokenOwnerOf } from '@/lib/api/token-owner';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';
import { principalRole } from '@/lib/auth/roles';
import { NotFoundError } from '@/lib/errors';

export const dynamic = 'force-dynamic';

/** Revokes the token; it stops working at once and stays listed as revoked. One's own, or any for an admin. */
export const DELETE = route('revokeToken', async (ctx) => {
  const { store, params, now, principal } = ctx;
  const before = await getApiToken(store, params.id);
  // Someone else's token is as unknown to a non-admin as one that does not exist.
  if (principalRole(principal) !== 'admin' && before.createdBy !== tokenOwnerOf(principal).by) {
    throw new NotFoundError('token', params.id);
  }
  const revoked = await audited(ctx, { operation: 'token.revoke', subjectType: 'token' }, async () => {
    const after = await revokeApiToken(store, params.id, now);
    return { subject: { id: after.id, name: after.name }, before, after, result: after };
  });
  return json(revoked);
});
