import { listAudit } from '@/db/queries/audit';
import { asQueryErrors, json, readQuery, withApi } from '@/lib/api/with-api';
import { AuditQuery } from '@/lib/schemas/audit';

export const dynamic = 'force-dynamic';

/** The audit trail, newest first: filter by subject id, actor (id or kind) and time; cursor pages. */
export const GET = withApi('admin', async ({ req, store }) => {
  const query = readQuery(req, AuditQuery);
  return json(await asQueryErrors(async () => await listAudit(store, query)));
});
