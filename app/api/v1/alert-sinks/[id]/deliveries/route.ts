import { z } from 'zod';
import { listDeliveries } from '@/db/queries/webhooks';
import { asQueryErrors, json, readQuery, withApi } from '@/lib/api/with-api';
import { Cursor, Limit } from '@/lib/schemas/common';
import { DELIVERY_STATUSES } from '@/lib/schemas/webhook';

export const dynamic = 'force-dynamic';

const DeliveriesQuery = z.object({
  limit: Limit,
  cursor: Cursor.optional(),
  status: z.enum(DELIVERY_STATUSES, { error: `must be one of ${DELIVERY_STATUSES.join(', ')}` }).optional(),
});

/** The sink's pushes, newest first, each with its attempts: the same log webhooks keep. */
export const GET = withApi<{ id: string }>('read', async ({ req, store, params }) => {
  const q = readQuery(req, DeliveriesQuery);
  return json(
    await asQueryErrors(async () => await listDeliveries(store, params.id, { ...q, kind: 'alertmanager' })),
  );
});
