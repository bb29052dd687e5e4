// A balancer's nodes for the matrix, without evidence (auth as for API reads). See lib/ui/read-model.ts.
import { json, withApi } from '@/lib/api/with-api';
import { readNodeSummaries } from '@/db/queries/dashboard';

export const dynamic = 'force-dynamic';

export const GET = withApi<{ id: string }>('read', async ({ store, params }) =>
  json({ items: await readNodeSummaries(store, params.id), nextCursor: null }),
);
