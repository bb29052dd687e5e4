import { audited } from '@/lib/api/audit';
import { HttpProblem } from '@/lib/api/problem';
import { readRoute } from '@/lib/api/reads';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';
import { createApiToken } from '@/lib/auth/api-tokens';
import { maxTokenScope, principalRole, roleAtLeast, tokenScopeRole } from '@/lib/auth/roles';
import { tokenOwnerOf } from '@/lib/api/token-owner';

export const dynamic = 'force-dynamic';

/** An admin sees every token, or one person's (`owner`); anyone else the tokens they minted. */
export const GET = readRoute('listTokens');

/** The response carries the token itself; it is never shown again. Nobody mints above their own role. */
export const POST = route('createToken', async (ctx) => {
  const { store, now, principal } = ctx;
  const input = await ctx.body();
  const role = principalRole(principal) ?? 'viewer';
  if (!roleAtLeast(role, tokenScopeRole(input.scope))) {
    throw new HttpProblem(
      403,
      'scope_above_role',
      `a ${role} may mint tokens of scope '${maxTokenScope(role)}' at most, not '${input.scope}'`,
    );
  }
  const created = await audited(ctx, { operation: 'token.create', subjectType: 'token' }, async () => {
    const token = await createApiToken(store, input, now, tokenOwnerOf(principal));
    const { token: _secret, ...view } = token;
    return { subject: { id: token.id, name: token.name }, before: null, after: view, result: token };
  });
  return json(created, 201, { location: `/api/v1/tokens/${created.id}` });
});
