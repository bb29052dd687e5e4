import { closeRolloutWindow } from '@/db/queries/rollouts';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

export const POST = route('closeRollout', async ({ store, params, now }) =>
  json(await closeRolloutWindow(store, params.id, now)),
);
