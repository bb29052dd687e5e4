import { listNodes } from '@/db/queries/nodes';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

export const GET = route('listBalancerNodes', async ({ store, params }) =>
  json({ items: await listNodes(store, params.id) }),
);
