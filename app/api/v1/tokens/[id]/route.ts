import { revokeApiToken } from '@/db/queries/tokens';
import { json, withApi } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

/** Revokes the token; it stops working at once and stays listed as revoked. */
export const DELETE = withApi<{ id: string }>('admin', async ({ store, params, now }) =>
  json(await revokeApiToken(store, params.id, now)),
);
