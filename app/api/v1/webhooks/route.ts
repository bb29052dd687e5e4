import { listWebhooks } from '@/db/queries/webhooks';
import { createWebhook } from '@/lib/webhooks/endpoints';
import { assertWebhookUrlAllowed } from '@/lib/api/webhook-input';
import { json, readJson, withApi } from '@/lib/api/with-api';
import { CreateWebhookInput } from '@/lib/schemas/webhook';

export const dynamic = 'force-dynamic';

export const GET = withApi('read', async ({ store, now }) => json({ items: await listWebhooks(store, now) }));

/** The response carries the signing secret; it is never shown again. */
export const POST = withApi('write', async ({ req, store, now, settings }) => {
  const input = await readJson(req, CreateWebhookInput);
  assertWebhookUrlAllowed(input.url, settings);
  const created = await createWebhook(store, input, now);
  return json(created, 201, { location: `/api/v1/webhooks/${created.id}` });
});
