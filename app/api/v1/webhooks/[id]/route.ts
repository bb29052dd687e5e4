import { deleteWebhook, getWebhookRow, toWebhookEndpoint } from '@/db/queries/webhooks';
import { updateWebhookEndpoint } from '@/lib/webhooks/endpoints';
import { assertWebhookUrlAllowed } from '@/lib/api/webhook-input';
import { audited } from '@/lib/api/audit';
import { route } from '@/lib/api/route';
import { json, noContent } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

export const GET = route('getWebhook', async ({ store, params, now }) =>
  json(toWebhookEndpoint(await getWebhookRow(store, params.id), now)),
);

export const PATCH = route('updateWebhook', async (ctx) => {
  const { store, params, now, settings } = ctx;
  const body = await ctx.rawBody();
  const patch = await ctx.body();
  assertWebhookUrlAllowed(patch.url, settings);
  const updated = await audited(ctx, { operation: 'webhook.update', subjectType: 'webhook' }, async () => {
    const before = toWebhookEndpoint(await getWebhookRow(store, params.id), now);
    const after = await updateWebhookEndpoint(store, params.id, body, now);
    return { subject: { id: after.id, name: after.name }, before, after, result: after };
  });
  return json(updated);
});

export const DELETE = route('deleteWebhook', async (ctx) => {
  const { store, params, now } = ctx;
  await audited(ctx, { operation: 'webhook.delete', subjectType: 'webhook' }, async () => {
    const before = toWebhookEndpoint(await getWebhookRow(store, params.id), now);
    await deleteWebhook(store, params.id);
    return { subject: { id: before.id, name: before.name }, before, after: null, result: null };
  });
  return noContent();
});
