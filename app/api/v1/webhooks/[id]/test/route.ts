import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';
import { defaultDeliveryDeps } from '@/lib/webhooks/deliver-role';
import { sendTestDelivery } from '@/lib/webhooks/test-send';

export const dynamic = 'force-dynamic';

/** Sends a signed `webhook.test` event now and answers with the attempt. */
export const POST = route('testWebhook', async ({ store, params, settings }) =>
  json(await sendTestDelivery(store, params.id, defaultDeliveryDeps(settings))),
);
