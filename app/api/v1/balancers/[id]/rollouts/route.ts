import { getBalancer } from '@/db/queries/balancers';
import { getOpenWindow, openRolloutWindow } from '@/db/queries/rollouts';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

export const GET = route('getOpenRollout', async ({ store, params }) => {
  await getBalancer(store, params.id);
  return json({ open: await getOpenWindow(store, params.id) });
});

export const POST = route('openRollout', async ({ store, params, now, body }) => {
  const window = await openRolloutWindow(store, params.id, await body(), now);
  return json(window, 201, { location: `/api/v1/rollouts/${window.id}` });
});
