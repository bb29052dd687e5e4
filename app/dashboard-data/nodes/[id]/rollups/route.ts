// Hourly probe rollups of one node for its latency chart (auth as for API reads).
import { getRollups } from '@/db/queries/nodes';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

const WEEK_MS = 7 * 86_400_000;

export const GET = route('dashboardNodeRollups', async ({ store, params, now }) =>
  json({
    items: (await getRollups(store, { nodeId: params.id, since: now - WEEK_MS })).map(
      ({ latency: _l, ...r }) => r,
    ),
    nextCursor: null,
  }),
);
