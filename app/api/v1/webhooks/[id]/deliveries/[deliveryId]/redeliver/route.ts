import { auditedRedeliver } from '@/lib/api/audit';
import { redeliver } from '@/db/queries/webhooks';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

/** Queues the delivery again with the same id and body; the worker sends it on its next pass. */
export const POST = route('redeliverWebhook', async (ctx) =>
  json(
    await auditedRedeliver(ctx, 'webhook', () =>
      redeliver(ctx.store, ctx.params.id, ctx.params.deliveryId, ctx.now),
    ),
    202,
  ),
);
