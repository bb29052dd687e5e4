// The PostgreSQL side of the poller's hot path: a cycle's node writes and a stdio target's state, inside the
// caller's write transaction. Statements are sent without waiting for each answer (postgres-js pipelines them
// on the transaction's connection, in order), so a cycle costs about one round trip, not one per row.
import { sql, type SQL } from 'drizzle-orm';
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import type { Verdict } from '@/lib/probe/types';
import { bucketOf } from '../histogram';
import { hourOf, minuteOf, minuteRollupKey, rollupKey } from '../rollup-key';
import type * as pgSchema from '../schema-pg';
import {
  classifyTransition,
  LAST_SEEN_RESOLUTION_MS,
  UNAVAILABLE_KEY,
  verdictDigest,
  type CycleWrite,
  type StdioWrite,
  type SubjectPrior,
  type SubjectRef,
} from '../subject-state';

type Tx = Pick<PostgresJsDatabase<typeof pgSchema>, 'execute'>;

/** Merges two sparse "index:count,…" histograms in SQL, as db/histogram.ts does in JS. */
const mergedLatency = sql.raw(`(SELECT coalesce(string_agg(m.b || ':' || m.c, ',' ORDER BY m.b), '')
  FROM (SELECT split_part(p, ':', 1)::int AS b, sum(split_part(p, ':', 2)::bigint) AS c
        FROM unnest(string_to_array(node_rollups.latency || ',' || excluded.latency, ',')) AS p
        WHERE p <> '' GROUP BY 1 HAVING sum(split_part(p, ':', 2)::bigint) > 0) AS m)`);

const mergedMinuteLatency = sql.raw(`(SELECT coalesce(string_agg(m.b || ':' || m.c, ',' ORDER BY m.b), '')
  FROM (SELECT split_part(p, ':', 1)::int AS b, sum(split_part(p, ':', 2)::bigint) AS c
        FROM unnest(string_to_array(node_minute_rollups.latency || ',' || excluded.latency, ',')) AS p
        WHERE p <> '' GROUP BY 1 HAVING sum(split_part(p, ':', 2)::bigint) > 0) AS m)`);

interface Batch {
  push(q: SQL): void;
  flush(): Promise<void>;
}

function batchOn(tx: Tx): Batch {
  const pending: Promise<unknown>[] = [];
  return {
    push(q) {
      // drizzle's query runs on each `then`: start it exactly once here (in order), and await it in flush.
      const p = Promise.resolve(tx.execute(q));
      p.catch(() => {});
      pending.push(p);
    },
    async flush() {
      const all = pending.splice(0);
      await Promise.all(all);
    },
  };
}

function writeSubjectState(
  b: Batch,
  ref: SubjectRef,
  v: Verdict,
  fingerprintKey: string | null,
  prior: SubjectPrior | null,
): void {
  const { id, region, kind } = ref;
  const nodeId = kind === 'node' ? id : null;
  const targetId = kind === 'stdio' ? id : null;
  const at = v.probedAt;
  const failed = v.verdict === 'unavailable';
  const key = fingerprintKey ?? UNAVAILABLE_KEY;
  const { newSpan, isChange } = classifyTransition(prior, fingerprintKey);
  if (newSpan) {
    if (prior)
      b.push(sql`UPDATE subject_history SET ended_at = ${at}, probes = ${prior.probes}, failures = ${prior.failures}
        WHERE subject_id = ${id} AND region = ${region} AND ended_at IS NULL`);
    b.push(sql`INSERT INTO subject_history (subject_id, region, kind, node_id, target_id, fingerprint_key,
        client_era, reason, negotiated_version, served_eras, is_change, started_at)
      VALUES (${id}, ${region}, ${kind}, ${nodeId}, ${targetId}, ${key}, ${v.verdict}, ${v.reason}, ${v.negotiatedVersion}, ${v.servedEras}, ${isChange}, ${at})`);
  }
  const base =
    newSpan || !prior ? { probes: 0, failures: 0, since: at } : { ...prior, since: prior.fingerprintSince };
  const probes = base.probes + 1;
  const failures = base.failures + (failed ? 1 : 0);
  const consecutiveFailures = failed ? (prior?.consecutiveFailures ?? 0) + 1 : 0;
  const durationMs = Math.round(v.durationMs);
  const digest = verdictDigest(v);
  if (!newSpan && prior?.verdictDigest === digest) {
    b.push(sql`UPDATE subject_states SET probed_at = ${at}, duration_ms = ${durationMs}, probes = ${probes},
        failures = ${failures}, consecutive_failures = ${consecutiveFailures}
      WHERE subject_id = ${id} AND region = ${region}`);
    return;
  }
  const lastAvailableKey = fingerprintKey ?? prior?.lastAvailableKey ?? null;
  b.push(sql`INSERT INTO subject_states (subject_id, region, kind, node_id, target_id, verdict, verdict_digest, fingerprint_key, last_available_key,
      client_era, reason, probed_at, duration_ms, fingerprint_since, probes, failures, consecutive_failures)
    VALUES (${id}, ${region}, ${kind}, ${nodeId}, ${targetId}, ${JSON.stringify(v)}::jsonb, ${digest}, ${key}, ${lastAvailableKey}, ${v.verdict}, ${v.reason},
      ${at}, ${durationMs}, ${base.since}, ${probes}, ${failures}, ${consecutiveFailures})
    ON CONFLICT (subject_id, region) DO UPDATE SET verdict = excluded.verdict, verdict_digest = excluded.verdict_digest,
      fingerprint_key = excluded.fingerprint_key, last_available_key = excluded.last_available_key,
      client_era = excluded.client_era, reason = excluded.reason, probed_at = excluded.probed_at,
      duration_ms = excluded.duration_ms, fingerprint_since = excluded.fingerprint_since,
      probes = excluded.probes, failures = excluded.failures, consecutive_failures = excluded.consecutive_failures`);
}

/** Writes one cycle's nodes, states, history, rollups and balancer state (inside the caller's transaction). */
export async function postgresWriteCycle(tx: Tx, w: CycleWrite, regionId = 0): Promise<void> {
  const b = batchOn(tx);
  // Seqs come from the node_seq sequence (migration 0006): no lock, so concurrent first rounds never queue.
  const created = new Set(w.newNodes.map((n) => n.id));
  const unnumbered = w.results.filter((r) => r.seq === null && !created.has(r.nodeId));
  const wanted = w.newNodes.length + unnumbered.length;
  const handed =
    wanted === 0
      ? []
      : ((await tx.execute(
          sql`SELECT nextval('node_seq')::int AS seq FROM generate_series(1, ${wanted})`,
        )) as unknown as Array<{ seq: number }>);
  let next = 0;
  const takeSeq = () => {
    const seq = handed[next++]?.seq;
    if (seq === undefined) throw new Error('node_seq handed out fewer values than asked');
    return Number(seq);
  };
  const seqs = new Map<string, number>();
  for (const n of w.newNodes) {
    const seq = takeSeq();
    seqs.set(n.id, seq);
    b.push(sql`INSERT INTO nodes (id, balancer_id, key, seq, origin, url, address, served_by, created_at, last_seen_at)
      VALUES (${n.id}, ${w.balancerId}, ${n.key}, ${seq}, ${n.origin}, ${n.url}, ${n.address}, ${n.servedBy},
        ${w.at}, ${w.at})`);
  }
  for (const r of w.results) {
    let seq = r.seq ?? seqs.get(r.nodeId);
    if (seq === undefined) {
      seq = takeSeq();
      b.push(sql`UPDATE nodes SET seq = ${seq} WHERE id = ${r.nodeId}`);
    }
    const v = r.verdict;
    const at = v.probedAt;
    writeSubjectState(b, { kind: 'node', id: r.nodeId, region: w.region }, v, r.fingerprintKey, r.prior);
    if (r.prior && at - r.prior.lastSeenAt >= LAST_SEEN_RESOLUTION_MS)
      b.push(sql`UPDATE nodes SET last_seen_at = ${at} WHERE id = ${r.nodeId}`);
    const failed = v.verdict === 'unavailable' ? 1 : 0;
    b.push(sql`INSERT INTO node_rollups (key, probes, failures, latency)
      VALUES (${rollupKey(hourOf(at), seq, regionId)}, 1, ${failed}, ${`${bucketOf(v.durationMs)}:1`})
      ON CONFLICT (key) DO UPDATE SET probes = node_rollups.probes + 1,
        failures = node_rollups.failures + excluded.failures, latency = ${mergedLatency}`);
    const minute = minuteOf(at);
    b.push(sql`INSERT INTO node_minute_rollups (key, minute, probes, failures, latency)
      VALUES (${minuteRollupKey(minute, seq, regionId)}, ${minute}, 1, ${failed}, ${`${bucketOf(v.durationMs)}:1`})
      ON CONFLICT (key) DO UPDATE SET
        probes = CASE WHEN node_minute_rollups.minute = excluded.minute THEN node_minute_rollups.probes + 1 ELSE 1 END,
        failures = CASE WHEN node_minute_rollups.minute = excluded.minute
          THEN node_minute_rollups.failures + excluded.failures ELSE excluded.failures END,
        latency = CASE WHEN node_minute_rollups.minute = excluded.minute
          THEN ${mergedMinuteLatency} ELSE excluded.latency END,
        minute = excluded.minute
      WHERE excluded.minute >= node_minute_rollups.minute`);
  }
  const { snapshot, ...analysis } = w.analysis;
  b.push(sql`INSERT INTO balancer_states (balancer_id, status, severity, display_status, degraded, analysis,
      snapshot, analyzed_at, cycles)
    VALUES (${w.balancerId}, ${w.analysis.state}, ${w.analysis.severity}, ${w.analysis.displayStatus},
      ${w.analysis.isDegraded}, ${JSON.stringify(analysis)}::jsonb, ${JSON.stringify(snapshot)}::jsonb, ${w.at}, 1)
    ON CONFLICT (balancer_id) DO UPDATE SET status = excluded.status, severity = excluded.severity,
      display_status = excluded.display_status, degraded = excluded.degraded, analysis = excluded.analysis,
      snapshot = excluded.snapshot, analyzed_at = excluded.analyzed_at, cycles = balancer_states.cycles + 1`);
  await b.flush();
}

/** Stores one probe of a stdio target (inside the caller's write transaction). */
export async function postgresWriteStdioResult(tx: Tx, w: StdioWrite): Promise<void> {
  const { targetId, region, verdict: v, fingerprintKey } = w;
  const rows =
    (await tx.execute(sql`SELECT fingerprint_key AS "fingerprintKey", verdict_digest AS "verdictDigest",
      last_available_key AS "lastAvailableKey", fingerprint_since AS "fingerprintSince", probes, failures,
      consecutive_failures AS "consecutiveFailures"
    FROM subject_states WHERE subject_id = ${targetId} AND region = ${region} FOR UPDATE`)) as unknown as SubjectPrior[];
  const b = batchOn(tx);
  writeSubjectState(b, { kind: 'stdio', id: targetId, region }, v, fingerprintKey, rows[0] ?? null);
  await b.flush();
}
