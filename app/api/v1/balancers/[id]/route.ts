import { deleteBalancer, getBalancer, readBalancerAnalysis } from '@/db/queries/balancers';
import { updateBalancer } from '@/lib/balancers';
import { listNodes } from '@/db/queries/nodes';
import { readBalancerProgress } from '@/db/queries/progress';
import { getOpenWindow } from '@/db/queries/rollouts';
import { route } from '@/lib/api/route';
import { json, noContent } from '@/lib/api/with-api';
import { assertTargetUrlsAllowed } from '@/lib/api/target-input';
import { balancerView } from '@/lib/api/views';
import { audited } from '@/lib/api/audit';
import { analysisResponseOf } from '@/lib/schemas/balancer-analysis';
import { restoreRedacted, restoreRedactedAuth } from '@/lib/schemas/balancer-view';

export const dynamic = 'force-dynamic';

export const GET = route('getBalancer', async ({ store, params, now }) => {
  const balancer = await getBalancer(store, params.id);
  const analysis = await readBalancerAnalysis(store, params.id);
  const window = await getOpenWindow(store, params.id);
  return json({
    ...balancerView(balancer),
    analysis: analysis && analysisResponseOf(analysis),
    progress: await readBalancerProgress(
      store,
      { balancerId: balancer.id, intervalMs: balancer.intervalMs, analysis, window },
      now,
    ),
    nodes: await listNodes(store, params.id),
  });
});

export const PATCH = route('updateBalancer', async (ctx) => {
  const { store, params, now, settings } = ctx;
  const body = await ctx.rawBody();
  const patch = await ctx.body();
  assertTargetUrlsAllowed(patch, settings);
  const current = await getBalancer(store, params.id);
  // Only the keys sent are applied (the store ignores defaults the schema filled in).
  const sent = { ...(body as Record<string, unknown>) };
  // Only when sent: the schema fills `headers` with its default ({}), which must not wipe the stored ones.
  if ('headers' in sent && patch.headers) sent.headers = restoreRedacted(patch.headers, current.headers);
  if ('auth' in sent && patch.auth) sent.auth = restoreRedactedAuth(patch.auth, current.auth);
  const view = await audited(ctx, { operation: 'balancer.update', subjectType: 'balancer' }, async () => {
    // As stored: the audit redacts header values and the client secret itself, and so sees a change of one.
    const before = await getBalancer(store, params.id);
    const after = await updateBalancer(store, params.id, sent, now);
    return { subject: { id: after.id, name: after.name }, before, after, result: balancerView(after) };
  });
  return json(view);
});

export const DELETE = route('deleteBalancer', async (ctx) => {
  const { store, params } = ctx;
  await audited(ctx, { operation: 'balancer.delete', subjectType: 'balancer' }, async () => {
    const before = balancerView(await getBalancer(store, params.id));
    await deleteBalancer(store, params.id);
    return { subject: { id: before.id, name: before.name }, before, after: null, result: null };
  });
  return noContent();
});
