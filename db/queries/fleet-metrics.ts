// What /metrics reads from the store at scrape time, so the gauges are right whichever process polls.
import type { Store } from '@/db/index';

export interface FleetGaugeData {
  balancers: Array<{ name: string; status: string | null; degraded: boolean }>;
  nodesByEra: Array<{ era: string; count: number }>;
  deliveriesByStatus: Array<{ status: string; count: number }>;
  /** created_at of the oldest delivery waiting to be sent (held ones excluded), or null when none waits. */
  oldestPendingDeliveryAt: number | null;
}

export function readFleetGaugeData(store: Store): FleetGaugeData {
  const balancers = (
    store.sqlite
      .prepare(
        `SELECT b.name AS name, s.status AS status, s.degraded AS degraded
           FROM balancers b LEFT JOIN balancer_states s ON s.balancer_id = b.id`,
      )
      .all() as Array<{ name: string; status: string | null; degraded: number | null }>
  ).map((r) => ({ name: r.name, status: r.status, degraded: Boolean(r.degraded) }));
  const nodesByEra = store.sqlite
    .prepare(
      `SELECT coalesce(ns.client_era, 'unprobed') AS era, count(*) AS count
         FROM nodes n LEFT JOIN node_states ns ON ns.node_id = n.id GROUP BY 1`,
    )
    .all() as Array<{ era: string; count: number }>;
  const deliveriesByStatus = store.sqlite
    .prepare('SELECT status, count(*) AS count FROM webhook_deliveries GROUP BY status')
    .all() as Array<{ status: string; count: number }>;
  const oldest = store.sqlite
    .prepare(
      `SELECT min(d.created_at) AS at FROM webhook_deliveries d
         JOIN webhook_endpoints e ON e.id = d.endpoint_id
        WHERE d.status = 'pending' AND e.enabled = 1`,
    )
    .get() as { at: number | null } | undefined;
  return { balancers, nodesByEra, deliveriesByStatus, oldestPendingDeliveryAt: oldest?.at ?? null };
}
