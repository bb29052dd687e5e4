import { route } from '@/lib/api/route';
import { refreshFleetGauges } from '@/lib/metrics/collect';
import { getMetrics } from '@/lib/metrics/registry';
import { renderStoredSeries } from '@/lib/metrics/stored';

export const dynamic = 'force-dynamic';

/** Prometheus exposition; needs a read token except in local mode (balancer names are fleet information). */
export const GET = route('metrics', async ({ store }) => {
  const metrics = getMetrics();
  await refreshFleetGauges(store, metrics);
  const body = (await metrics.registry.metrics()) + (await renderStoredSeries(store));
  return new Response(body, {
    headers: { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' },
  });
});
