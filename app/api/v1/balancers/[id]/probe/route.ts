import { getBalancer } from '@/db/queries/balancers';
import { probeBalancerNow } from '@/lib/api/probe-now';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

/**
 * Asks the workers of the balancer's regions for a cycle now and answers with what they stored: 503 when a
 * region that must probe it has no live poll worker, 504 when a cycle did not finish in time.
 */
export const POST = route('probeBalancer', async ({ store, params, settings }) => {
  await getBalancer(store, params.id);
  const result = await probeBalancerNow(store, params.id, settings);
  return json({ ...result, events: result.events.map(({ seq: _seq, ...e }) => e) });
});
