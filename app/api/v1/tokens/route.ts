import { createApiToken, listApiTokens } from '@/db/queries/tokens';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

export const GET = route('listTokens', async ({ store }) => json({ items: await listApiTokens(store) }));

/** The response carries the token itself; it is never shown again. */
export const POST = route('createToken', async ({ store, now, body }) => {
  const created = await createApiToken(store, await body(), now);
  return json(created, 201, { location: `/api/v1/tokens/${created.id}` });
});
