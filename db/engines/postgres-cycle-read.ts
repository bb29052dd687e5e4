// PostgreSQL's read of what a balancer's cycle needs besides its nodes, in one statement: the balancer, the
// region's previous snapshot (or, before regions, the balancer's), the open rollout window and the recent
// fingerprint changes. Each statement sent is a round trip, a write to the socket and a wake-up of the server:
// five of them cost more than the one statement that answers them all as JSON (the nodes come apart, as rows,
// see known-nodes.ts).
import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import * as pgSchema from '../schema-pg';
import type { BalancerRow, RolloutWindowRow } from '../schema';

type Reader = Pick<PostgresJsDatabase<typeof pgSchema>, 'execute'>;

/** A stored snapshot with its digest, time and cycle count (the time and count from their own columns). */
export interface SnapshotCell {
  snapshot: unknown;
  digest?: string | null;
  at: number;
  cycle: number;
}

export interface PostgresCycleRead {
  balancer: BalancerRow | null;
  own: SnapshotCell | null;
  legacy: SnapshotCell | null;
  window: RolloutWindowRow | null;
  changes: Array<{ nodeId: string; at: number }>;
}

/**
 * The statement. The change flag is tested bare, as the partial index `subject_history_changes` states it: a
 * bound `= true` would keep a generic plan of the prepared statement off that index.
 */
export function postgresCycleReadQuery(balancerId: string, region: string, since: number): SQL {
  return sql`SELECT
      (SELECT to_jsonb(b) FROM balancers b WHERE b.id = ${balancerId}) AS balancer,
      (SELECT jsonb_build_object('snapshot', rs.snapshot, 'digest', rs.analysis_digest, 'at', rs.analyzed_at,
          'cycle', rs.cycles)
        FROM balancer_region_states rs WHERE rs.balancer_id = ${balancerId} AND rs.region = ${region}) AS own,
      (SELECT jsonb_build_object('snapshot', bs.snapshot, 'at', bs.analyzed_at, 'cycle', bs.cycles)
        FROM balancer_states bs WHERE bs.balancer_id = ${balancerId} AND ${region} = 'default'
          AND NOT EXISTS (SELECT 1 FROM balancer_region_states r2
            WHERE r2.balancer_id = ${balancerId} AND r2.region = ${region})) AS legacy,
      (SELECT to_jsonb(w) FROM rollout_windows w
        WHERE w.balancer_id = ${balancerId} AND w.closed_at IS NULL LIMIT 1) AS "window",
      (SELECT jsonb_agg(jsonb_build_array(h.subject_id, h.started_at) ORDER BY h.started_at)
        FROM subject_history h INNER JOIN nodes n ON n.id = h.subject_id
        WHERE n.balancer_id = ${balancerId} AND h.region = ${region} AND h.is_change
          AND h.started_at >= ${since}) AS changes`;
}

/** A row of `table` as `to_jsonb` gives it (column names), keyed as drizzle's rows are (field names). */
function rowFromJson<T>(table: PgTable, json: Record<string, unknown> | null): T | null {
  if (!json) return null;
  const out: Record<string, unknown> = {};
  // JSON keeps every column type the tables use as the driver gives it: text, numbers (bigint epoch times
  // are below 2^53), booleans, and jsonb values parsed.
  for (const [field, column] of Object.entries(getTableColumns(table)))
    out[field] = json[column.name] ?? null;
  return out as T;
}

export async function postgresCycleRead(
  db: Reader,
  balancerId: string,
  region: string,
  since: number,
): Promise<PostgresCycleRead> {
  const [row] = await db.execute<{
    balancer: Record<string, unknown> | null;
    own: SnapshotCell | null;
    legacy: SnapshotCell | null;
    window: Record<string, unknown> | null;
    changes: Array<[string, number]> | null;
  }>(postgresCycleReadQuery(balancerId, region, since));
  return {
    balancer: rowFromJson<BalancerRow>(pgSchema.balancers, row?.balancer ?? null),
    own: row?.own ?? null,
    legacy: row?.legacy ?? null,
    window: rowFromJson<RolloutWindowRow>(pgSchema.rolloutWindows, row?.window ?? null),
    changes: (row?.changes ?? []).map(([nodeId, at]) => ({ nodeId, at })),
  };
}
