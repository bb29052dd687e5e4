import { getNodeHistory } from '@/db/queries/nodes';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

export const GET = route('getNodeHistory', async ({ store, params, query }) =>
  json({ items: await getNodeHistory(store, params.id, { limit: query.limit }) }),
);
