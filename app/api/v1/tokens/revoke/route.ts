import { revokeOwnedTokens } from '@/lib/api/token-owner';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

/** Revokes every live token of one person at once (an admin's), each change audited as `token.revoke`. */
export const POST = route('revokeOwnerTokens', async (ctx) => {
  const { owner } = await ctx.body();
  const revoked = await ctx.store.write(() =>
    revokeOwnedTokens(ctx, owner, `an admin revoked every token of ${owner}`),
  );
  return json({ items: revoked });
});
