import { revokeApiToken } from '@/db/queries/tokens';
import { json, withApi } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

/** Revokes the token; it stops working at once and stays listed as revoked. */
export const DELETE = withApi<{ id: string }>('admin', ({ store, params, now }) =>
  json(revokeApiToken(store, params.id, now)),
);
