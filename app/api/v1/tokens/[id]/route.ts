import { revokeApiToken } from '@/db/queries/tokens';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

/** Revokes the token; it stops working at once and stays listed as revoked. */
export const DELETE = route('revokeToken', async ({ store, params, now }) =>
  json(await revokeApiToken(store, params.id, now)),
);
