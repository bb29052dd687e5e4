// The SQLite side of what a cycle reads before probing: prepared once per connection, rows as plain objects.
// drizzle's query building and per-field mapping cost several times the query itself on these reads.
import type Database from 'better-sqlite3';

interface Reads {
  knownNodes: Database.Statement;
  recentChanges: Database.Statement;
}

const reads = new WeakMap<Database.Database, Reads>();

function readsFor(sqlite: Database.Database): Reads {
  let r = reads.get(sqlite);
  if (!r) {
    r = {
      knownNodes: sqlite.prepare(
        `SELECT n.id, n.seq, n.key, n.origin, n.address, n.last_seen_at AS lastSeenAt,
           s.fingerprint_key AS fingerprintKey, s.verdict_digest AS verdictDigest,
           s.last_available_key AS lastAvailableKey, s.fingerprint_since AS fingerprintSince, s.probes,
           s.failures, s.consecutive_failures AS consecutiveFailures
         FROM nodes n LEFT JOIN subject_states s ON s.subject_id = n.id AND s.region = ?
         WHERE n.balancer_id = ?`,
      ),
      recentChanges: sqlite.prepare(
        `SELECT h.subject_id AS nodeId, h.started_at AS at
         FROM subject_history h INNER JOIN nodes n ON n.id = h.subject_id
         WHERE n.balancer_id = ? AND h.region = ? AND h.is_change = 1 AND h.started_at >= ?
         ORDER BY h.started_at ASC`,
      ),
    };
    reads.set(sqlite, r);
  }
  return r;
}

export function sqliteKnownNodeRows<T>(sqlite: Database.Database, balancerId: string, region: string): T[] {
  return readsFor(sqlite).knownNodes.all(region, balancerId) as T[];
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
