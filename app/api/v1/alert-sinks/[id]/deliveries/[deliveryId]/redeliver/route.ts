import { auditedRedeliver } from '@/lib/api/audit';
import { redeliver } from '@/db/queries/webhooks';
import { json, withApi } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

/** Queues the push again; it sends the sink's alerts as they are when it goes. */
export const POST = withApi<{ id: string; deliveryId: string }>('write', async (ctx) =>
  json(
    await auditedRedeliver(ctx, 'alert_sink', () =>
      redeliver(ctx.store, ctx.params.id, ctx.params.deliveryId, ctx.now, 'alertmanager'),
    ),
    202,
  ),
);
