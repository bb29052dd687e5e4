import { sendTestDelivery } from '@/lib/webhooks/test-send';
import { auditAction } from '@/lib/api/audit';
import { getWebhookRow } from '@/db/queries/webhooks';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';
import { defaultDeliveryDeps } from '@/lib/deliver/deps';

export const dynamic = 'force-dynamic';

/** Sends a signed `webhook.test` event now and answers with the attempt. */
export const POST = route('testWebhook', async (ctx) => {
  const { store, params, settings } = ctx;
  const row = await getWebhookRow(store, params.id);
  await auditAction(ctx, 'webhook.test', { type: 'webhook', id: row.id, name: row.name });
  return json(await sendTestDelivery(store, params.id, defaultDeliveryDeps(settings)));
});
