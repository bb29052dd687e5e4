import { getBalancer } from '@/db/queries/balancers';
import { getOpenWindow, openRolloutWindow } from '@/db/queries/rollouts';
import { audited } from '@/lib/api/audit';
import { json, readJson, withApi } from '@/lib/api/with-api';
import { OpenRolloutInput } from '@/lib/schemas/rollout';

export const dynamic = 'force-dynamic';

export const GET = withApi<{ id: string }>('read', async ({ store, params }) => {
  await getBalancer(store, params.id);
  return json({ open: await getOpenWindow(store, params.id) });
});

export const POST = withApi<{ id: string }>('write', async (ctx) => {
  const { req, store, params, now } = ctx;
  const input = await readJson(req, OpenRolloutInput);
  const window = await audited(ctx, { operation: 'rollout.open', subjectType: 'balancer' }, async () => {
    const balancer = await getBalancer(store, params.id);
    const opened = await openRolloutWindow(store, params.id, input, now);
    return {
      subject: { id: balancer.id, name: balancer.name },
      before: { rollout: null },
      after: { rollout: opened },
      result: opened,
    };
  });
  return json(window, 201, { location: `/api/v1/rollouts/${window.id}` });
});
