// What the rollout gauges of /metrics need, read at scrape time: each balancer's latest gate answers, its
// open rollout window, and when the newest cycle finished. JSON is picked in SQL so no analysis is parsed whole.
import type { RolloutTarget } from '@/lib/rollout/types';
import type { Store } from '../index';

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

export function readRolloutGauges(store: Store): RolloutGauges {
  const gateRows = store.sqlite
    .prepare(
      `SELECT b.name AS balancer, json_extract(g.value, '$.revision') AS revision,
              json_extract(g.value, '$.ready') AS ready
         FROM balancers b
         JOIN balancer_states s ON s.balancer_id = b.id,
              json_each(s.analysis, '$.gates') g`,
    )
    .all() as Array<{ balancer: string; revision: unknown; ready: unknown }>;
  const gates = gateRows.flatMap((r) =>
    typeof r.revision === 'string'
      ? [{ balancer: r.balancer, revision: r.revision, ready: r.ready === 1 }]
      : [],
  );

  const windowRows = store.sqlite
    .prepare(
      `SELECT b.name AS balancer, w.target AS target, w.deadline AS deadline
         FROM rollout_windows w JOIN balancers b ON b.id = w.balancer_id
        WHERE w.closed_at IS NULL`,
    )
    .all() as Array<{ balancer: string; target: string; deadline: number }>;
  const windows = windowRows.map((w) => {
    const target = JSON.parse(w.target) as RolloutTarget;
    return {
      balancer: w.balancer,
      revision: target.negotiatedVersion ?? target.supportedIncludes ?? null,
      deadline: w.deadline,
    };
  });

  const last = store.sqlite.prepare('SELECT max(analyzed_at) AS at FROM balancer_states').get() as {
    at: number | null;
  };
  return { gates, windows, lastCycleAt: last.at };
}
