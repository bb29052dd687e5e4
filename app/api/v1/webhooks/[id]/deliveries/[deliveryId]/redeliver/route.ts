import { redeliver } from '@/db/queries/webhooks';
import { json, withApi } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

/** Queues the delivery again with the same id and body; the worker sends it on its next pass. */
export const POST = withApi<{ id: string; deliveryId: string }>('write', async ({ store, params, now }) =>
  json(await redeliver(store, params.id, params.deliveryId, now), 202),
);
