import { createWebhook, listWebhooks } from '@/db/queries/webhooks';
import { route } from '@/lib/api/route';
import { assertWebhookUrlAllowed } from '@/lib/api/webhook-input';
import { json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

export const GET = route('listWebhooks', async ({ store, now }) =>
  json({ items: await listWebhooks(store, now) }),
);

/** The response carries the signing secret; it is never shown again. */
export const POST = route('createWebhook', async ({ store, now, settings, body }) => {
  const input = await body();
  assertWebhookUrlAllowed(input.url, settings);
  const created = await createWebhook(store, input, now);
  return json(created, 201, { location: `/api/v1/webhooks/${created.id}` });
});
