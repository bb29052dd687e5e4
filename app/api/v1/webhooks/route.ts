import { createWebhook, listWebhooks } from '@/db/queries/webhooks';
import { assertWebhookUrlAllowed } from '@/lib/api/webhook-input';
import { audited } from '@/lib/api/audit';
import { json, readJson, withApi } from '@/lib/api/with-api';
import { CreateWebhookInput } from '@/lib/schemas/webhook';

export const dynamic = 'force-dynamic';

export const GET = withApi('read', async ({ store, now }) => json({ items: await listWebhooks(store, now) }));

/** The response carries the signing secret; it is never shown again. */
export const POST = withApi('write', async (ctx) => {
  const { req, store, now, settings } = ctx;
  const input = await readJson(req, CreateWebhookInput);
  assertWebhookUrlAllowed(input.url, settings);
  const created = await audited(ctx, { operation: 'webhook.create', subjectType: 'webhook' }, async () => {
    const made = await createWebhook(store, input, now);
    return { subject: { id: made.id, name: made.name }, before: null, after: made, result: made };
  });
  return json(created, 201, { location: `/api/v1/webhooks/${created.id}` });
});
