import { getWebhookRow } from '@/db/queries/webhooks';
import { audited } from '@/lib/api/audit';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';
import { rotateWebhookSecret } from '@/lib/webhooks/endpoints';

export const dynamic = 'force-dynamic';

/** A new secret (returned once); the old one keeps signing beside it for `overlapMs`. */
export const POST = route('rotateWebhookSecret', async (ctx) => {
  const { store, params, now } = ctx;
  const input = await ctx.body();
  const rotated = await audited(
    ctx,
    { operation: 'webhook.rotate_secret', subjectType: 'webhook' },
    async () => {
      const row = await getWebhookRow(store, params.id);
      const result = await rotateWebhookSecret(store, params.id, input, now);
      // The secrets themselves never reach the trail: only that one was rotated, and the overlap.
      return {
        subject: { id: row.id, name: row.name },
        before: { secret: 'old' },
        after: { secret: 'new', overlapMs: input.overlapMs },
        result,
      };
    },
  );
  return json(rotated);
});
