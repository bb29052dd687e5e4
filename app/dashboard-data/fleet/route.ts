// The fleet overview's rows in one response (auth as for API reads). See lib/ui/read-model.ts.
import { json, withApi } from '@/lib/api/with-api';
import { readFleetRows } from '@/lib/api/read-model';

export const dynamic = 'force-dynamic';

export const GET = withApi('read', async ({ store, now }) =>
  json({ rows: await readFleetRows(store), generatedAt: now }),
);
