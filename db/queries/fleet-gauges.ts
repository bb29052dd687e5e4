// What the rollout gauges of /metrics need, read at scrape time: each balancer's latest gate answers, its
// open rollout window, and when the newest cycle finished. JSON is picked in SQL so no analysis is parsed whole.
import { eq, isNull, max, sql } from 'drizzle-orm';
import { selectRows, type Store } from '../index';

export interface GateGauge {
  balancer: string;
  revision: string;
  ready: boolean;
}

export interface WindowGauge {
  balancer: string;
  /** The revision the window moves to (its target's negotiatedVersion or supportedIncludes), if it names one. */
  revision: string | null;
  deadline: number;
}

export interface RolloutGauges {
  gates: GateGauge[];
  windows: WindowGauge[];
  /** When the newest analysis of any balancer was written; null before the first cycle. */
  lastCycleAt: number | null;
}

export function readRolloutGauges(store: Store): Promise<RolloutGauges> {
  const { balancers: b, balancerStates: s, rolloutWindows: w } = store.t;
  return store.read(async (db) => {
    // Each engine picks the gate answers out of the analysis JSON in its own dialect.
    const gateQuery =
      store.engine === 'sqlite'
        ? sql`SELECT b.name AS balancer, json_extract(g.value, '$.revision') AS revision,
                     json_extract(g.value, '$.ready') AS ready
                FROM balancers b
                JOIN balancer_states s ON s.balancer_id = b.id,
                     json_each(s.analysis, '$.gates') g`
        : sql`SELECT b.name AS balancer, g->>'revision' AS revision, (g->'ready') = 'true'::jsonb AS ready
                FROM balancers b
                JOIN balancer_states s ON s.balancer_id = b.id,
                     jsonb_array_elements(coalesce(s.analysis->'gates', '[]'::jsonb)) g`;
    const gateRows = await selectRows<{ balancer: string; revision: unknown; ready: unknown }>(
      store,
      gateQuery,
    );
    const gates = gateRows.flatMap((r) =>
      typeof r.revision === 'string'
        ? [{ balancer: r.balancer, revision: r.revision, ready: r.ready === 1 || r.ready === true }]
        : [],
    );

    const windowRows = await db
      .select({ balancer: b.name, target: w.target, deadline: w.deadline })
      .from(w)
      .innerJoin(b, eq(b.id, w.balancerId))
      .where(isNull(w.closedAt));
    const windows = windowRows.map((r) => ({
      balancer: r.balancer,
      revision: r.target.negotiatedVersion ?? r.target.supportedIncludes ?? null,
      deadline: r.deadline,
    }));

    const [last] = await db.select({ at: max(s.analyzedAt) }).from(s);
    return { gates, windows, lastCycleAt: last?.at == null ? null : Number(last.at) };
  });
}

/** Per balancer: its nodes whose TLS certificate expires by `until` (or has expired), and the earliest expiry. */
export interface CertificateGauge {
  balancer: string;
  expiring: number;
  earliestExpiry: number;
}

/**
 * The certificate gauges, from each node's latest verdicts (every region; a node counts once): the expiry is
 * picked out of the verdict JSON in SQL. Balancers without an HTTPS node that showed a certificate are absent.
 */
export async function readCertificateGauges(store: Store, until: number): Promise<CertificateGauge[]> {
  const expiry =
    store.engine === 'sqlite'
      ? sql`json_extract(ss.verdict, '$.tls.certificateExpiresAt')`
      : sql`(ss.verdict->'tls'->>'certificateExpiresAt')::bigint`;
  const rows = await selectRows<{ balancer: string; expiring: unknown; earliest: unknown }>(
    store,
    sql`SELECT b.name AS balancer,
               count(DISTINCT CASE WHEN ${expiry} <= ${until} THEN ss.node_id END) AS expiring,
               min(${expiry}) AS earliest
          FROM subject_states ss
          JOIN nodes n ON n.id = ss.node_id
          JOIN balancers b ON b.id = n.balancer_id
         WHERE ${expiry} IS NOT NULL
         GROUP BY b.name`,
  );
  return rows.map((r) => ({
    balancer: r.balancer,
    expiring: Number(r.expiring),
    earliestExpiry: Number(r.earliest),
  }));
}
