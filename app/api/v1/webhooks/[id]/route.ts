import { deleteWebhook, getWebhookRow, toWebhookEndpoint, updateWebhook } from '@/db/queries/webhooks';
import { route } from '@/lib/api/route';
import { assertWebhookUrlAllowed } from '@/lib/api/webhook-input';
import { json, noContent } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

export const GET = route('getWebhook', async ({ store, params, now }) =>
  json(toWebhookEndpoint(await getWebhookRow(store, params.id), now)),
);

export const PATCH = route('updateWebhook', async ({ store, params, now, settings, body, rawBody }) => {
  const patch = await body();
  assertWebhookUrlAllowed(patch.url, settings);
  return json(await updateWebhook(store, params.id, (await rawBody()) as Record<string, unknown>, now));
});

export const DELETE = route('deleteWebhook', async ({ store, params }) => {
  await deleteWebhook(store, params.id);
  return noContent();
});
