import { createBalancer, listBalancerPage } from '@/db/queries/balancers';
import { route } from '@/lib/api/route';
import { asQueryErrors, json } from '@/lib/api/with-api';
import { assertTargetUrlsAllowed } from '@/lib/api/target-input';
import { balancerView } from '@/lib/api/views';

export const dynamic = 'force-dynamic';

export const GET = route('listBalancers', async ({ store, query }) =>
  json(await asQueryErrors(async () => await listBalancerPage(store, query))),
);

export const POST = route('createBalancer', async ({ store, now, settings, body }) => {
  const input = await body();
  assertTargetUrlsAllowed(input, settings);
  const created = await createBalancer(store, input, now);
  return json(balancerView(created), 201, { location: `/api/v1/balancers/${created.id}` });
});
