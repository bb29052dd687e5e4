// Fleet gauges read from the database at scrape time, so /metrics is right whichever process polls.
import type { Store } from '@/db/index';
import { getMetrics, type Metrics } from './registry';

interface StateRow {
  name: string;
  status: string | null;
  degraded: number | null;
}

export function refreshFleetGauges(store: Store, metrics: Metrics = getMetrics()): void {
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
}
