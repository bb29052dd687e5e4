import { closeRolloutWindow } from '@/db/queries/rollouts';
import { json, withApi } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

export const POST = withApi<{ id: string }>('write', async ({ store, params, now }) =>
  json(await closeRolloutWindow(store, params.id, now)),
);
