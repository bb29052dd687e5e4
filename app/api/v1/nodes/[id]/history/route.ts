import { z } from 'zod';
import { getNodeHistory } from '@/db/queries/nodes';
import { json, readQuery, withApi } from '@/lib/api/with-api';
import { Limit } from '@/lib/schemas/common';

export const dynamic = 'force-dynamic';

const HistoryQuery = z.object({ limit: Limit });

export const GET = withApi<{ id: string }>('read', async ({ req, store, params }) => {
  const { limit } = readQuery(req, HistoryQuery);
  return json({ items: await getNodeHistory(store, params.id, { limit }) });
});
