import { getBalancer } from '@/db/queries/balancers';
import { auditAction } from '@/lib/api/audit';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';
import { probeBalancerNow } from '@/lib/api/probe-now';

export const dynamic = 'force-dynamic';

/**
 * Asks the workers of the balancer's regions for a cycle now and answers with what they stored: 503 when a
 * region that must probe it has no live poll worker, 504 when a cycle did not finish in time.
 */
export const POST = route('probeBalancer', async (ctx) => {
  const { store, params, settings } = ctx;
  const balancer = await getBalancer(store, params.id);
  await auditAction(ctx, 'balancer.probe', { type: 'balancer', id: balancer.id, name: balancer.name });
  const result = await probeBalancerNow(store, params.id, settings);
  return json({ ...result, events: result.events.map(({ seq: _seq, ...e }) => e) });
});
