import { deleteWebhook, getWebhookRow, toWebhookEndpoint } from '@/db/queries/webhooks';
import { updateWebhookEndpoint } from '@/lib/webhooks/endpoints';
import { assertWebhookUrlAllowed } from '@/lib/api/webhook-input';
import { audited } from '@/lib/api/audit';
import { route } from '@/lib/api/route';
import { json, noContent } from '@/lib/api/with-api';
import { ValidationError } from '@/lib/errors';
import { restoreRedactedUrl, URL_REDACTED } from '@/lib/schemas/url-redaction';

export const dynamic = 'force-dynamic';

export const GET = route('getWebhook', async ({ store, params, now }) =>
  json(toWebhookEndpoint(await getWebhookRow(store, params.id), now)),
);

export const PATCH = route('updateWebhook', async (ctx) => {
  const { store, params, now, settings } = ctx;
  const body = (await ctx.rawBody()) as Record<string, unknown>;
  const patch = await ctx.body();
  const sent =
    patch.url === undefined
      ? body
      : { ...body, url: keptUrl(patch.url, await getWebhookRow(store, params.id)) };
  assertWebhookUrlAllowed(sent.url as string | undefined, settings);
  const updated = await audited(ctx, { operation: 'webhook.update', subjectType: 'webhook' }, async () => {
    // The URL as stored: the audit redacts its query values itself, and so sees a change of one.
    const shown = async () => {
      const row = await getWebhookRow(store, params.id);
      return { ...toWebhookEndpoint(row, now), url: row.url };
    };
    const before = await shown();
    const result = await updateWebhookEndpoint(store, params.id, sent, now);
    return { subject: { id: result.id, name: result.name }, before, after: await shown(), result };
  });
  return json(updated);
});

/** A URL sent back as shown keeps the stored query values it shows as [redacted], for the same address only. */
function keptUrl(url: string, stored: { url: string }): string {
  const kept = restoreRedactedUrl(url, stored.url);
  if (kept === null) {
    throw new ValidationError([
      {
        path: 'url',
        message: `${URL_REDACTED} keeps a stored value only for the same address and parameter; send the value itself`,
      },
    ]);
  }
  return kept;
}

export const DELETE = route('deleteWebhook', async (ctx) => {
  const { store, params, now } = ctx;
  await audited(ctx, { operation: 'webhook.delete', subjectType: 'webhook' }, async () => {
    const before = toWebhookEndpoint(await getWebhookRow(store, params.id), now);
    await deleteWebhook(store, params.id);
    return { subject: { id: before.id, name: before.name }, before, after: null, result: null };
  });
  return noContent();
});
