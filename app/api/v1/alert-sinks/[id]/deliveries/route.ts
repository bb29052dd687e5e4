import { listDeliveries } from '@/db/queries/webhooks';
import { route } from '@/lib/api/route';
import { asQueryErrors, json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

/** The sink's pushes, newest first, each with its attempts: the same log webhooks keep. */
export const GET = route('listAlertSinkDeliveries', async ({ store, params, query }) =>
  json(
    await asQueryErrors(
      async () => await listDeliveries(store, params.id, { ...query, kind: 'alertmanager' }),
    ),
  ),
);
