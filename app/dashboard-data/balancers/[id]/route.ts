// One balancer's headline for the detail screen (auth as for API reads). See lib/ui/read-model.ts.
import { json, withApi } from '@/lib/api/with-api';
import { readBalancerDetail } from '@/db/queries/dashboard';

export const dynamic = 'force-dynamic';

export const GET = withApi<{ id: string }>('read', async ({ store, params }) =>
  json(await readBalancerDetail(store, params.id)),
);
