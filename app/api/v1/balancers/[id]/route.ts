import { deleteBalancer, getBalancer, readBalancerAnalysis, updateBalancer } from '@/db/queries/balancers';
import { listNodes } from '@/db/queries/nodes';
import { json, noContent, parseBody, readJsonBody, withApi } from '@/lib/api/with-api';
import { assertTargetUrlsAllowed } from '@/lib/api/target-input';
import { analysisView, balancerView } from '@/lib/api/views';
import { UpdateBalancerInput } from '@/lib/schemas/balancer';
import { restoreRedacted, restoreRedactedAuth } from '@/lib/schemas/balancer-view';

export const dynamic = 'force-dynamic';

export const GET = withApi<{ id: string }>('read', async ({ store, params }) => {
  const balancer = await getBalancer(store, params.id);
  return json({
    ...balancerView(balancer),
    analysis: analysisView(await readBalancerAnalysis(store, params.id)),
    nodes: await listNodes(store, params.id),
  });
});

export const PATCH = withApi<{ id: string }>('write', async ({ req, store, params, now, settings }) => {
  const body = await readJsonBody(req);
  const patch = parseBody(UpdateBalancerInput.strict(), body);
  assertTargetUrlsAllowed(patch, settings);
  const current = await getBalancer(store, params.id);
  // Only the keys sent are applied (the store ignores defaults the schema filled in).
  const sent = { ...(body as Record<string, unknown>) };
  if (patch.headers) sent.headers = restoreRedacted(patch.headers, current.headers);
  if (patch.auth) sent.auth = restoreRedactedAuth(patch.auth, current.auth);
  return json(balancerView(await updateBalancer(store, params.id, sent, now)));
});

export const DELETE = withApi<{ id: string }>('write', async ({ store, params }) => {
  await deleteBalancer(store, params.id);
  return noContent();
});
