import { listAudit } from '@/db/queries/audit';
import { route } from '@/lib/api/route';
import { asQueryErrors, json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

/** The audit trail, newest first: filter by subject id, actor (id or kind) and time; cursor pages. */
export const GET = route('listAudit', async ({ store, query }) =>
  json(await asQueryErrors(async () => await listAudit(store, query))),
);
