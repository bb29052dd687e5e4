import { createWebhook } from '@/lib/webhooks/endpoints';
import { assertWebhookUrlAllowed } from '@/lib/api/webhook-input';
import { audited } from '@/lib/api/audit';
import { readRoute } from '@/lib/api/reads';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

export const GET = readRoute('listWebhooks');

/** The response carries the signing secret; it is never shown again. */
export const POST = route('createWebhook', async (ctx) => {
  const { store, now, settings } = ctx;
  const input = await ctx.body();
  assertWebhookUrlAllowed(input.url, settings);
  const created = await audited(ctx, { operation: 'webhook.create', subjectType: 'webhook' }, async () => {
    const made = await createWebhook(store, input, now);
    return { subject: { id: made.id, name: made.name }, before: null, after: made, result: made };
  });
  return json(created, 201, { location: `/api/v1/webhooks/${created.id}` });
});
