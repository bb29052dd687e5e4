// The SQLite side of what a cycle reads before probing: prepared once per connection, rows as plain objects.
// drizzle's query building and per-field mapping cost several times the query itself on these reads.
import type Database from 'better-sqlite3';
import { knownNodesFromJson, type KnownNodeRow } from './known-nodes';

export type { KnownNodeRow };

interface Reads {
  knownNodes: Database.Statement;
  recentChanges: Database.Statement;
}

/**
 * A balancer's fingerprint changes in one region since a time (balancer id, region, since). `is_change = 1`
 * spelled as the partial index `subject_history_changes` spells it, so the read seeks that small index.
 */
export const RECENT_CHANGES_SQL = `SELECT h.subject_id AS nodeId, h.started_at AS at
  FROM subject_history h INNER JOIN nodes n ON n.id = h.subject_id
  WHERE n.balancer_id = ? AND h.region = ? AND h.is_change = 1 AND h.started_at >= ?
  ORDER BY h.started_at ASC`;

const reads = new WeakMap<Database.Database, Reads>();

function readsFor(sqlite: Database.Database): Reads {
  let r = reads.get(sqlite);
  if (!r) {
    r = {
      // One JSON text for the whole balancer (see known-nodes.ts).
      knownNodes: sqlite
        .prepare(
          `SELECT json_group_array(json_array(n.id, n.seq, n.key, n.origin, n.address, n.last_seen_at,
             s.fingerprint_key, s.verdict_digest, s.last_available_key, s.fingerprint_since, k.probes,
             k.failures, k.consecutive_failures, k.probed_at, n.name))
           FROM nodes n LEFT JOIN subject_states s ON s.subject_id = n.id AND s.region = @region
             LEFT JOIN subject_ticks k ON k.subject_id = n.id AND k.region = @region
           WHERE n.balancer_id = @balancer`,
        )
        .pluck(),
      recentChanges: sqlite.prepare(RECENT_CHANGES_SQL),
    };
    reads.set(sqlite, r);
  }
  return r;
}

export function sqliteKnownNodeRows(
  sqlite: Database.Database,
  balancerId: string,
  region: string,
): KnownNodeRow[] {
  return knownNodesFromJson(
    readsFor(sqlite).knownNodes.get({ region, balancer: balancerId }) as string | null,
  );
}

export function sqliteRecentChangeRows(
  sqlite: Database.Database,
  balancerId: string,
  region: string,
  since: number,
): Array<{ nodeId: string; at: number }> {
  return readsFor(sqlite).recentChanges.all(balancerId, region, since) as Array<{
    nodeId: string;
    at: number;
  }>;
}
