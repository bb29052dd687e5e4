// A balancer's nodes for the matrix, without evidence (auth as for API reads). See lib/api/read-model.ts.
import { readNodeSummaries } from '@/db/queries/dashboard';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

export const GET = route('dashboardBalancerNodes', async ({ store, params }) =>
  json({ items: await readNodeSummaries(store, params.id), nextCursor: null }),
);
