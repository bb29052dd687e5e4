import { getNode } from '@/db/queries/nodes';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

export const GET = route('getNode', async ({ store, params }) => json(await getNode(store, params.id)));
