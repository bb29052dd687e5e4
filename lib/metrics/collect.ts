// Fleet gauges read from the database at scrape time, so /metrics is right whichever process polls.
import type { Store } from '@/db/index';
import { readRolloutGauges } from '@/db/queries/fleet-gauges';
import { getMetrics, type Metrics } from './registry';

interface StateRow {
  name: string;
  status: string | null;
  degraded: number | null;
}

export function refreshFleetGauges(
  store: Store,
  metrics: Metrics = getMetrics(),
  now: number = Date.now(),
): void {
  const states = store.sqlite
    .prepare(
      `SELECT b.name AS name, s.status AS status, s.degraded AS degraded
         FROM balancers b LEFT JOIN balancer_states s ON s.balancer_id = b.id`,
    )
    .all() as StateRow[];
  metrics.balancerState.reset();
  for (const s of states) {
    metrics.balancerState.set({ balancer: s.name, state: s.status ?? 'unknown' }, 1);
    if (s.degraded) metrics.balancerState.set({ balancer: s.name, state: 'degraded' }, 1);
  }
  const eras = store.sqlite
    .prepare(
      `SELECT coalesce(ns.client_era, 'unprobed') AS era, count(*) AS n
         FROM nodes n LEFT JOIN node_states ns ON ns.node_id = n.id GROUP BY 1`,
    )
    .all() as Array<{ era: string; n: number }>;
  metrics.nodesByEra.reset();
  for (const era of ['modern', 'legacy', 'unavailable', 'unprobed']) metrics.nodesByEra.set({ era }, 0);
  for (const e of eras) metrics.nodesByEra.set({ era: e.era }, e.n);
  const deliveries = store.sqlite
    .prepare('SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status')
    .all() as Array<{ status: string; n: number }>;
  metrics.webhookDeliveries.reset();
  for (const d of deliveries) metrics.webhookDeliveries.set({ status: d.status }, d.n);
  refreshRolloutGauges(store, metrics, now);
}

function refreshRolloutGauges(store: Store, metrics: Metrics, now: number): void {
  const { gates, windows, lastCycleAt } = readRolloutGauges(store);
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
