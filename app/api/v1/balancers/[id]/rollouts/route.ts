import { getBalancer } from '@/db/queries/balancers';
import { getOpenWindow, openRolloutWindow } from '@/db/queries/rollouts';
import { audited } from '@/lib/api/audit';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';
import { checkWindowDeadline } from '@/lib/rollout/window';

export const dynamic = 'force-dynamic';

export const GET = route('getOpenRollout', async ({ store, params }) => {
  await getBalancer(store, params.id);
  return json({ open: await getOpenWindow(store, params.id) });
});

export const POST = route('openRollout', async (ctx) => {
  const { store, params, now } = ctx;
  const input = await ctx.body();
  checkWindowDeadline(input.deadline, now);
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
