import { sendTestDelivery } from '@/lib/webhooks/test-send';
import { json, withApi } from '@/lib/api/with-api';
import { defaultDeliveryDeps } from '@/lib/webhooks/deliver-role';

export const dynamic = 'force-dynamic';

/** Sends a signed `webhook.test` event now and answers with the attempt. */
export const POST = withApi<{ id: string }>('write', async ({ store, params, settings }) =>
  json(await sendTestDelivery(store, params.id, defaultDeliveryDeps(settings))),
);
