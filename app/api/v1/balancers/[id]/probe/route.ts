import { getBalancer } from '@/db/queries/balancers';
import { json, withApi } from '@/lib/api/with-api';
import { probeBalancerNow } from '@/lib/api/probe-now';

export const dynamic = 'force-dynamic';

/** Runs one cycle of the balancer now (waiting for one already running) and answers with its result. */
export const POST = withApi<{ id: string }>('write', async ({ store, params }) => {
  await getBalancer(store, params.id);
  const result = await probeBalancerNow(store, params.id);
  const { snapshot: _snapshot, ...analysis } = result.analysis;
  return json({
    balancerId: result.balancerId,
    at: result.at,
    durationMs: result.durationMs,
    probes: result.probes,
    analysis,
    events: result.events.map(({ seq: _seq, ...e }) => e),
  });
});
