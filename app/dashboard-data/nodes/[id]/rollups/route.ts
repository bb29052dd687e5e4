// A node's latency chart (auth as for API reads): minute buckets for the last six hours, where the poller
// has them, and hourly rollups for the 31 days before (the node page's range picker reaches 30 days).
import { getMinuteRollups, getRollups } from '@/db/queries/nodes';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';
import { latencyPoints } from '@/lib/schemas/dashboard';

export const dynamic = 'force-dynamic';

const HOURS_MS = 31 * 86_400_000;
const MINUTES_MS = 6 * 3_600_000;

export const GET = route('dashboardNodeRollups', async ({ store, params, now }) => {
  const hours = await getRollups(store, { nodeId: params.id, since: now - HOURS_MS }, now);
  const minutes = await getMinuteRollups(store, params.id, now - MINUTES_MS, now);
  return json({
    items: latencyPoints(
      hours.map(({ latency: _l, ...r }) => r),
      minutes,
    ),
    nextCursor: null,
  });
});
