import { getNode } from '@/db/queries/nodes';
import { json, withApi } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

export const GET = withApi<{ id: string }>('read', async ({ store, params }) =>
  json(await getNode(store, params.id)),
);
