// The test-send action: a `webhook.test` delivery written to the log already claimed by this call and
// attempted at once: one attempt per try (the outbox worker only retries it after a failure schedules a retry,
// recorded like any attempt so it shows in the delivery log).
import type { Store } from '@/db/index';
import { newId } from '@/db/ids';
import { getWebhookRow, insertTestDelivery } from '@/db/queries/webhooks';
import { buildEnvelope, TEST_EVENT_TYPE } from '@/lib/schemas/webhook-envelope';
import { attemptLeaseMs, deliveryTime, type DeliveryDeps } from '@/lib/deliver/deps';
import { attemptDelivery } from '@/lib/deliver/loop';

export async function sendTestDelivery(store: Store, endpointId: string, deps: DeliveryDeps) {
  const endpoint = await getWebhookRow(store, endpointId);
  const now = await deliveryTime(store, deps);
  const envelope = buildEnvelope({
    id: newId('evt'),
    type: TEST_EVENT_TYPE,
    balancerId: null,
    nodeId: null,
    at: now,
    data: { message: `test delivery to '${endpoint.name}'` },
  });
  const delivery = await insertTestDelivery(
    store,
    endpointId,
    JSON.stringify(envelope),
    now,
    attemptLeaseMs(deps),
  );
  const result = await attemptDelivery(store, { delivery, endpoint }, deps);
  return { deliveryId: delivery.id, ...result };
}
