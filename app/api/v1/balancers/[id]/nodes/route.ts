import { listNodes } from '@/db/queries/nodes';
import { json, withApi } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

export const GET = withApi<{ id: string }>('read', ({ store, params }) =>
  json({ items: listNodes(store, params.id) }),
);
