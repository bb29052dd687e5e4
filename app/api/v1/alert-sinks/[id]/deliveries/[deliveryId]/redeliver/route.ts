import { redeliver } from '@/db/queries/webhooks';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

/** Queues the push again; it sends the sink's alerts as they are when it goes. */
export const POST = route('redeliverAlertSinkPush', async ({ store, params, now }) =>
  json(await redeliver(store, params.id, params.deliveryId, now, 'alertmanager'), 202),
);
