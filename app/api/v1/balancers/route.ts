import { createBalancer, listBalancerPage } from '@/db/queries/balancers';
import { asQueryErrors, json, readJson, readQuery, withApi } from '@/lib/api/with-api';
import { assertTargetUrlsAllowed } from '@/lib/api/target-input';
import { balancerView } from '@/lib/api/views';
import { audited } from '@/lib/api/audit';
import { CreateBalancerInput } from '@/lib/schemas/balancer';
import { BalancerListQuery } from '@/lib/schemas/balancer-view';

export const dynamic = 'force-dynamic';

export const GET = withApi('read', async ({ req, store }) => {
  const query = readQuery(req, BalancerListQuery);
  const page = await asQueryErrors(async () => await listBalancerPage(store, query));
  return json(page);
});

export const POST = withApi('write', async (ctx) => {
  const { req, store, now, settings } = ctx;
  const input = await readJson(req, CreateBalancerInput.strict());
  assertTargetUrlsAllowed(input, settings);
  const view = await audited(ctx, { operation: 'balancer.create', subjectType: 'balancer' }, async () => {
    const created = balancerView(await createBalancer(store, input, now));
    return { subject: { id: created.id, name: created.name }, before: null, after: created, result: created };
  });
  return json(view, 201, { location: `/api/v1/balancers/${view.id}` });
});
