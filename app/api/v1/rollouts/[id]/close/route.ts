import { closeRolloutWindow } from '@/db/queries/rollouts';
import { audited } from '@/lib/api/audit';
import { getBalancer } from '@/db/queries/balancers';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

export const POST = route('closeRollout', async (ctx) => {
  const { store, params, now } = ctx;
  const closed = await audited(ctx, { operation: 'rollout.close', subjectType: 'balancer' }, async () => {
    const window = await closeRolloutWindow(store, params.id, now);
    const balancer = await getBalancer(store, window.balancerId);
    return {
      subject: { id: balancer.id, name: balancer.name },
      before: { rollout: { ...window, closedAt: null } },
      after: { rollout: window },
      result: window,
    };
  });
  return json(closed);
});
