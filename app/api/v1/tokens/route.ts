import { listApiTokens } from '@/db/queries/tokens';
import { createApiToken } from '@/lib/auth/api-tokens';
import { json, readJson, withApi } from '@/lib/api/with-api';
import { CreateTokenInput } from '@/lib/schemas/token';

export const dynamic = 'force-dynamic';

export const GET = withApi('admin', async ({ store }) => json({ items: await listApiTokens(store) }));

/** The response carries the token itself; it is never shown again. */
export const POST = withApi('admin', async ({ req, store, now }) => {
  const input = await readJson(req, CreateTokenInput);
  const created = await createApiToken(store, input, now);
  return json(created, 201, { location: `/api/v1/tokens/${created.id}` });
});
