// A cycle's read of a balancer's nodes with their prior state in the region. SQLite's comes as one JSON text of
// tuples for the whole balancer: better-sqlite3 builds a JS value per column of every row, at several times the
// query's cost, and V8 parses one string fast. PostgreSQL's comes as plain rows: there the server's JSON
// building costs more than the driver's parsing, and drizzle's per-field mapping is left out.
import { sql } from 'drizzle-orm';
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import type * as pgSchema from '../schema-pg';

/** A balancer's node, each with its prior state columns in the region (null when never probed there). */
export type KnownNodeRow = {
  id: string;
  seq: number | null;
  key: string;
  origin: string;
  address: string | null;
  lastSeenAt: number;
  fingerprintKey: string | null;
  verdictDigest: string | null;
  lastAvailableKey: string | null;
  fingerprintSince: number | null;
  probes: number | null;
  failures: number | null;
  consecutiveFailures: number | null;
  /** The latest probe's time in the region (the ticks row). */
  probedAt: number | null;
  /** The node's display name as stored (nodes.name). */
  name: string | null;
};

/** The columns of one tuple, in order: both engines' statements name them in this order. */
export type KnownNodeTuple = [
  string,
  number | null,
  string,
  string,
  string | null,
  number,
  string | null,
  string | null,
  string | null,
  number | null,
  number | null,
  number | null,
  number | null,
  number | null,
  string | null,
];

export function knownNodesFromJson(text: string | null | undefined): KnownNodeRow[] {
  const tuples = text ? (JSON.parse(text) as KnownNodeTuple[]) : [];
  return tuples.map((t) => ({
    id: t[0],
    seq: t[1],
    key: t[2],
    origin: t[3],
    address: t[4],
    lastSeenAt: t[5],
    fingerprintKey: t[6],
    verdictDigest: t[7],
    lastAvailableKey: t[8],
    fingerprintSince: t[9],
    probes: t[10],
    failures: t[11],
    consecutiveFailures: t[12],
    probedAt: t[13],
    name: t[14],
  }));
}

type Reader = Pick<PostgresJsDatabase<typeof pgSchema>, 'execute'>;

/**
 * PostgreSQL's read of a balancer's known nodes, as rows (the server builds JSON slower than postgres-js parses
 * rows). Each node's verdict and ticks rows are looked up by their key (a LATERAL subquery with LIMIT 1, which
 * the planner does not flatten): as a plain join the planner hashes the whole ticks table of every balancer, a
 * scan that grows with the fleet rather than with the balancer.
 */
export async function postgresKnownNodeRows(
  db: Reader,
  balancerId: string,
  region: string,
): Promise<KnownNodeRow[]> {
  const rows = await db.execute<KnownNodeRow>(sql`SELECT n.id, n.seq, n.key, n.origin, n.address,
      n.last_seen_at AS "lastSeenAt", s.fingerprint_key AS "fingerprintKey", s.verdict_digest AS "verdictDigest",
      s.last_available_key AS "lastAvailableKey", s.fingerprint_since AS "fingerprintSince", k.probes,
      k.failures, k.consecutive_failures AS "consecutiveFailures", k.probed_at AS "probedAt", n.name
    FROM nodes n
    LEFT JOIN LATERAL (SELECT fingerprint_key, verdict_digest, last_available_key, fingerprint_since
      FROM subject_states WHERE subject_id = n.id AND region = ${region} LIMIT 1) s ON true
    LEFT JOIN LATERAL (SELECT probes, failures, consecutive_failures, probed_at
      FROM subject_ticks WHERE subject_id = n.id AND region = ${region} LIMIT 1) k ON true
    WHERE n.balancer_id = ${balancerId}`);
  // The columns are named as KnownNodeRow's fields, typed by the driver (int8 as numbers, see postgres.ts).
  return rows;
}
