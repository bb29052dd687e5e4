import { getBalancer } from '@/db/queries/balancers';
import { getOpenWindow, openRolloutWindow } from '@/db/queries/rollouts';
import { json, readJson, withApi } from '@/lib/api/with-api';
import { OpenRolloutInput } from '@/lib/schemas/rollout';

export const dynamic = 'force-dynamic';

export const GET = withApi<{ id: string }>('read', async ({ store, params }) => {
  await getBalancer(store, params.id);
  return json({ open: await getOpenWindow(store, params.id) });
});

export const POST = withApi<{ id: string }>('write', async ({ req, store, params, now }) => {
  const input = await readJson(req, OpenRolloutInput);
  const window = await openRolloutWindow(store, params.id, input, now);
  return json(window, 201, { location: `/api/v1/rollouts/${window.id}` });
});
