// Labels (URL or attribution) for the node ids a list shows, e.g. the event log (auth as for API reads).
import { readNodeLabels } from '@/lib/api/read-model';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

export const GET = route('dashboardNodeLabels', async ({ store, query }) =>
  json({ labels: await readNodeLabels(store, query.ids) }),
);
