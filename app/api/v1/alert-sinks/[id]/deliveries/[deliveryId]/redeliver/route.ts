import { auditedRedeliver } from '@/lib/api/audit';
import { redeliver } from '@/db/queries/webhooks';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

/** Queues the push again; it sends the sink's alerts as they are when it goes. */
export const POST = route('redeliverAlertSinkPush', async (ctx) =>
  json(
    await auditedRedeliver(ctx, 'alert_sink', () =>
      redeliver(ctx.store, ctx.params.id, ctx.params.deliveryId, ctx.now, 'alertmanager'),
    ),
    202,
  ),
);
