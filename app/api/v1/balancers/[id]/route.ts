import { deleteBalancer, getBalancer, readBalancerAnalysis, updateBalancer } from '@/db/queries/balancers';
import { listNodes } from '@/db/queries/nodes';
import { route } from '@/lib/api/route';
import { json, noContent } from '@/lib/api/with-api';
import { assertTargetUrlsAllowed } from '@/lib/api/target-input';
import { balancerView } from '@/lib/api/views';
import { restoreRedacted, restoreRedactedAuth } from '@/lib/schemas/balancer-view';

export const dynamic = 'force-dynamic';

export const GET = route('getBalancer', async ({ store, params }) => {
  const balancer = await getBalancer(store, params.id);
  return json({
    ...balancerView(balancer),
    analysis: await readBalancerAnalysis(store, params.id),
    nodes: await listNodes(store, params.id),
  });
});

export const PATCH = route('updateBalancer', async ({ store, params, now, settings, body, rawBody }) => {
  const patch = await body();
  assertTargetUrlsAllowed(patch, settings);
  const current = await getBalancer(store, params.id);
  // Only the keys sent are applied (the store ignores defaults the schema filled in).
  const sent = { ...((await rawBody()) as Record<string, unknown>) };
  if (patch.headers) sent.headers = restoreRedacted(patch.headers, current.headers);
  if (patch.auth) sent.auth = restoreRedactedAuth(patch.auth, current.auth);
  return json(balancerView(await updateBalancer(store, params.id, sent, now)));
});

export const DELETE = route('deleteBalancer', async ({ store, params }) => {
  await deleteBalancer(store, params.id);
  return noContent();
});
