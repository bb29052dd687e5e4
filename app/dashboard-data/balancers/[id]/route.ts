// One balancer's headline for the detail screen (auth as for API reads). See lib/api/read-model.ts.
import { readBalancerDetail } from '@/db/queries/dashboard';
import { route } from '@/lib/api/route';
import { balancerView } from '@/lib/api/views';
import { json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

export const GET = route('dashboardBalancer', async ({ store, params }) =>
  json(balancerView(await readBalancerDetail(store, params.id))),
);
