// The test-send action: a `webhook.test` delivery written to the log and attempted at once (outside the retry
// schedule, but recorded like any attempt, so a failure shows in the delivery log and retries as usual).
import type { Store } from '@/db/index';
import { enqueueTestDelivery, getWebhookRow } from '@/db/queries/webhooks';
import { attemptNow, defaultDeliveryDeps, type DeliveryDeps } from './worker';

export async function sendTestDelivery(
  store: Store,
  endpointId: string,
  deps: DeliveryDeps = defaultDeliveryDeps(),
) {
  const delivery = enqueueTestDelivery(store, endpointId, deps.now());
  const endpoint = getWebhookRow(store, endpointId);
  const result = await attemptNow(store, { delivery, endpoint }, deps);
  return { deliveryId: delivery.id, ...result };
}
