import { listNodes } from '@/db/queries/nodes';
import { json, withApi } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

export const GET = withApi<{ id: string }>('read', async ({ store, params }) =>
  json({ items: await listNodes(store, params.id) }),
);
