import { listDeliveries } from '@/db/queries/webhooks';
import { route } from '@/lib/api/route';
import { asQueryErrors, json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

/** The endpoint's delivery log, newest first, each delivery with its attempts. */
export const GET = route('listWebhookDeliveries', async ({ store, params, query }) =>
  json(await asQueryErrors(async () => await listDeliveries(store, params.id, query))),
);
