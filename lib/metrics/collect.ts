// Fleet gauges read from the store at scrape time, so /metrics is right whichever process polls.
import type { Store } from '@/db/index';
import { readCertificateGauges, readRolloutGauges } from '@/db/queries/fleet-gauges';
import { CERTIFICATE_EXPIRY_WARNING_MS } from '@/lib/probe/types';
import { readFleetGaugeData } from '@/db/queries/fleet-metrics';
import { getMetrics, type Metrics } from './registry';

export async function refreshFleetGauges(
  store: Store,
  metrics: Metrics = getMetrics(),
  now: number = Date.now(),
): Promise<void> {
  const data = await readFleetGaugeData(store);
  metrics.balancerState.reset();
  for (const s of data.balancers) {
    metrics.balancerState.set({ balancer: s.name, state: s.status ?? 'unknown' }, 1);
    if (s.degraded) metrics.balancerState.set({ balancer: s.name, state: 'degraded' }, 1);
  }
  metrics.nodesByEra.reset();
  for (const era of ['modern', 'legacy', 'unavailable', 'unprobed']) metrics.nodesByEra.set({ era }, 0);
  for (const e of data.nodesByEra) metrics.nodesByEra.set({ era: e.era }, e.count);
  metrics.webhookDeliveries.reset();
  for (const d of data.deliveriesByStatus) metrics.webhookDeliveries.set({ status: d.status }, d.count);
  const oldest = data.oldestPendingDeliveryAt;
  metrics.webhookOldestPending.set(oldest === null ? 0 : Math.max(0, (now - oldest) / 1000));
  await refreshRolloutGauges(store, metrics, now);
  metrics.certificatesExpiring.reset();
  metrics.certificateEarliestExpiry.reset();
  for (const c of await readCertificateGauges(store, now + CERTIFICATE_EXPIRY_WARNING_MS)) {
    metrics.certificatesExpiring.set({ balancer: c.balancer }, c.expiring);
    metrics.certificateEarliestExpiry.set({ balancer: c.balancer }, c.earliestExpiry / 1000);
  }
}

async function refreshRolloutGauges(store: Store, metrics: Metrics, now: number): Promise<void> {
  const { gates, windows, lastCycleAt } = await readRolloutGauges(store);
  metrics.gateOpen.reset();
  for (const g of gates)
    metrics.gateOpen.set({ balancer: g.balancer, revision: g.revision }, g.ready ? 1 : 0);
  metrics.windowDeadline.reset();
  for (const w of windows) {
    const labels =
      w.revision === null ? { balancer: w.balancer } : { balancer: w.balancer, revision: w.revision };
    metrics.windowDeadline.set(labels, w.deadline / 1000);
  }
  // Absent rather than 0 before the first cycle: a zero age would read as "just polled".
  const name = 'erawatch_poller_last_cycle_age_seconds';
  const registered = metrics.registry.getSingleMetric(name) !== undefined;
  if (lastCycleAt === null) {
    if (registered) metrics.registry.removeSingleMetric(name);
    return;
  }
  metrics.lastCycleAge.set(Math.max(0, now - lastCycleAt) / 1000);
  if (!registered) metrics.registry.registerMetric(metrics.lastCycleAge);
}
