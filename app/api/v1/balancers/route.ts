import { listBalancerPage, readBalancerAnalysis } from '@/db/queries/balancers';
import { readBalancerProgress } from '@/db/queries/progress';
import { getOpenWindow } from '@/db/queries/rollouts';
import { createBalancer } from '@/lib/balancers';
import { route } from '@/lib/api/route';
import { asQueryErrors, json } from '@/lib/api/with-api';
import { assertTargetUrlsAllowed } from '@/lib/api/target-input';
import { balancerView } from '@/lib/api/views';
import { audited } from '@/lib/api/audit';

export const dynamic = 'force-dynamic';

export const GET = route('listBalancers', async ({ store, query, now }) => {
  const page = await asQueryErrors(async () => await listBalancerPage(store, query));
  const items = [];
  for (const b of page.items) {
    const facts = {
      balancerId: b.id,
      intervalMs: b.intervalMs,
      analysis: await readBalancerAnalysis(store, b.id),
      window: await getOpenWindow(store, b.id),
    };
    items.push({ ...b, progress: await readBalancerProgress(store, facts, now) });
  }
  return json({ ...page, items });
});

export const POST = route('createBalancer', async (ctx) => {
  const { store, now, settings } = ctx;
  const input = await ctx.body();
  assertTargetUrlsAllowed(input, settings);
  const view = await audited(ctx, { operation: 'balancer.create', subjectType: 'balancer' }, async () => {
    const created = balancerView(await createBalancer(store, input, now));
    return { subject: { id: created.id, name: created.name }, before: null, after: created, result: created };
  });
  return json(view, 201, { location: `/api/v1/balancers/${view.id}` });
});
