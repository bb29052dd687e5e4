// The fleet overview's rows in one response (auth as for API reads). See lib/api/read-model.ts.
import { readFleetRows } from '@/lib/api/read-model';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

export const GET = route('dashboardFleet', async ({ store, now }) =>
  json({ rows: await readFleetRows(store), generatedAt: now }),
);
