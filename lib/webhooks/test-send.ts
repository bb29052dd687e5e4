// The test-send action: a `webhook.test` delivery written to the log already claimed by this call and
// attempted at once: one attempt per try (the outbox worker only retries it after a failure schedules a retry,
// recorded like any attempt so it shows in the delivery log).
import type { Store } from '@/db/index';
import { enqueueTestDelivery, getWebhookRow } from '@/db/queries/webhooks';
import { attemptLeaseMs, attemptNow, deliveryTime, type DeliveryDeps } from './deliver-role';

export async function sendTestDelivery(store: Store, endpointId: string, deps: DeliveryDeps) {
  const delivery = await enqueueTestDelivery(
    store,
    endpointId,
    await deliveryTime(store, deps),
    attemptLeaseMs(deps),
  );
  const endpoint = await getWebhookRow(store, endpointId);
  const result = await attemptNow(store, { delivery, endpoint }, deps);
  return { deliveryId: delivery.id, ...result };
}
