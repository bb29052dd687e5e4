import { deleteWebhook, getWebhookRow, toWebhookEndpoint, updateWebhook } from '@/db/queries/webhooks';
import { assertWebhookUrlAllowed } from '@/lib/api/webhook-input';
import { json, noContent, parseBody, readJsonBody, withApi } from '@/lib/api/with-api';
import { UpdateWebhookInput } from '@/lib/schemas/webhook';

export const dynamic = 'force-dynamic';

export const GET = withApi<{ id: string }>('read', async ({ store, params, now }) =>
  json(toWebhookEndpoint(await getWebhookRow(store, params.id), now)),
);

export const PATCH = withApi<{ id: string }>('write', async ({ req, store, params, now, settings }) => {
  const body = await readJsonBody(req);
  const patch = parseBody(UpdateWebhookInput, body);
  assertWebhookUrlAllowed(patch.url, settings);
  return json(await updateWebhook(store, params.id, body as Record<string, unknown>, now));
});

export const DELETE = withApi<{ id: string }>('write', async ({ store, params }) => {
  await deleteWebhook(store, params.id);
  return noContent();
});
