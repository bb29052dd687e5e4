// What /metrics reads from the store at scrape time, so the gauges are right whichever process polls.
import { and, count, countDistinct, eq, min, sql } from 'drizzle-orm';
import type { Store } from '@/db/index';

export interface FleetGaugeData {
  balancers: Array<{ name: string; status: string | null; degraded: boolean }>;
  nodesByEra: Array<{ era: string; count: number }>;
  deliveriesByStatus: Array<{ status: string; count: number }>;
  /** created_at of the oldest delivery waiting to be sent (held ones excluded), or null when none waits. */
  oldestPendingDeliveryAt: number | null;
}

export function readFleetGaugeData(store: Store): Promise<FleetGaugeData> {
  const { balancers: b, balancerStates: s, nodes: n, subjectStates: ns, subjectTicks: k } = store.t;
  const { webhookDeliveries: d, webhookEndpoints: e } = store.t;
  return store.read(async (db) => {
    const balancers = (
      await db
        .select({ name: b.name, status: s.status, degraded: s.degraded })
        .from(b)
        .leftJoin(s, eq(s.balancerId, b.id))
    ).map((r) => ({ name: r.name, status: r.status, degraded: Boolean(r.degraded) }));
    const era = sql<string>`coalesce(${ns.clientEra}, 'unprobed')`;
    // Each node once, by its latest verdict from any region: several regions never count one node twice.
    const latest = sql`(SELECT max(l.probed_at) FROM subject_ticks l WHERE l.subject_id = ${n.id})`;
    const nodesByEra = (
      await db
        .select({ era, count: countDistinct(n.id) })
        .from(n)
        .leftJoin(k, and(eq(k.subjectId, n.id), eq(k.probedAt, latest)))
        .leftJoin(ns, and(eq(ns.subjectId, k.subjectId), eq(ns.region, k.region)))
        .groupBy(era)
    ).map((r) => ({ era: r.era, count: Number(r.count) }));
    const deliveriesByStatus = (
      await db.select({ status: d.status, count: count() }).from(d).groupBy(d.status)
    ).map((r) => ({ status: r.status, count: Number(r.count) }));
    const [oldest] = await db
      .select({ at: min(d.createdAt) })
      .from(d)
      .innerJoin(e, eq(e.id, d.endpointId))
      .where(and(eq(d.status, 'pending'), eq(e.enabled, true)));
    return {
      balancers,
      nodesByEra,
      deliveriesByStatus,
      oldestPendingDeliveryAt: oldest?.at == null ? null : Number(oldest.at),
    };
  });
}
