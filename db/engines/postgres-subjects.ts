// The PostgreSQL side of the poller's hot path: a cycle's node writes and a stdio target's state, inside the
// caller's write transaction. Each kind of row is one multi-row statement over `jsonb_to_recordset` of one
// JSON parameter (nodes, seqs, spans closed and opened, verdict rows, ticks, last-seen, rollups), whatever
// the number of nodes; statements are sent without waiting for each answer (postgres-js pipelines them on the
// transaction's connection, in order). A quiet cycle writes the ticks, the minute slots and the balancer's time
// and cycle count; the hourly rollups only when a node's probe starts a new hour.
import { sql, type SQL } from 'drizzle-orm';
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import type { Verdict } from '@/lib/probe/types';
import { storedAnalysisOf } from '@/lib/schemas/stored-analysis';
import { bucketOf } from '../histogram';
import { MINUTE_SLOTS, minuteOf, minuteRingStart, minuteRollupKey, rollupKey } from '../rollup-key';
import type * as pgSchema from '../schema-pg';
import {
  hourToFold,
  LAST_SEEN_RESOLUTION_MS,
  planSubjectWrite,
  type CycleWrite,
  type StdioWrite,
  type SubjectPrior,
} from '../subject-state';
import type { SubjectKind } from '../schema-pg';

type Tx = Pick<PostgresJsDatabase<typeof pgSchema>, 'execute'>;

/** Merges the sparse "index:count,…" histograms of a group of rows (`latency`) in SQL, as db/histogram.ts does in JS. */
const foldedLatency = sql.raw(`(SELECT coalesce(string_agg(f.b || ':' || f.c, ',' ORDER BY f.b), '')
  FROM (SELECT split_part(p, ':', 1)::int AS b, sum(split_part(p, ':', 2)::bigint) AS c
        FROM unnest(string_to_array(string_agg(m.latency, ','), ',')) AS p
        WHERE p <> '' GROUP BY 1 HAVING sum(split_part(p, ':', 2)::bigint) > 0) AS f)`);

const mergedMinuteLatency = sql.raw(`(SELECT coalesce(string_agg(m.b || ':' || m.c, ',' ORDER BY m.b), '')
  FROM (SELECT split_part(p, ':', 1)::int AS b, sum(split_part(p, ':', 2)::bigint) AS c
        FROM unnest(string_to_array(node_minute_rollups.latency || ',' || excluded.latency, ',')) AS p
        WHERE p <> '' GROUP BY 1 HAVING sum(split_part(p, ':', 2)::bigint) > 0) AS m)`);

interface Batch {
  /** Sends a statement now (its rows may be needed by the ones after it). */
  push(q: SQL): void;
  /**
   * Adds a statement to the combined one that flush sends: one statement of data-modifying CTEs, parsed and
   * sent once (each statement sent is a write to the socket, and a wake-up of the server, on its own). Its
   * parts see the rows as they were before it (the fold reads the minute slots this cycle is about to
   * update), must not update one row twice, and their foreign keys are checked once all of them ran.
   */
  add(q: SQL): void;
  flush(): Promise<void>;
}

function batchOn(tx: Tx): Batch {
  const pending: Promise<unknown>[] = [];
  const combined: SQL[] = [];
  return {
    push(q) {
      // drizzle's query runs on each `then`: start it exactly once here (in order), and await it in flush.
      const p = Promise.resolve(tx.execute(q));
      p.catch(() => {});
      pending.push(p);
    },
    add(q) {
      combined.push(q);
    },
    async flush() {
      const parts = combined.splice(0);
      if (parts.length === 1 && parts[0]) this.push(parts[0]);
      else if (parts.length > 1)
        this.push(
          sql`WITH ${sql.join(
            parts.map((q, i) => sql`${sql.raw(`w${i}`)} AS (${q})`),
            sql`, `,
          )} SELECT 1`,
        );
      const all = pending.splice(0);
      await Promise.all(all);
    },
  };
}

/** The rows of one multi-row statement, sent as one JSON parameter. */
const rows = (list: readonly unknown[]) => JSON.stringify(list);

interface SubjectRows {
  close: Array<{ s: string; at: number; p: number; f: number }>;
  open: Array<{
    s: string;
    k: SubjectKind;
    n: string | null;
    t: string | null;
    fk: string;
    ce: string;
    r: string;
    nv: string | null;
    se: string;
    c: boolean;
    at: number;
  }>;
  states: Array<{
    s: string;
    k: SubjectKind;
    n: string | null;
    t: string | null;
    v: Verdict;
    d: string;
    fk: string;
    la: string | null;
    ce: string;
    r: string;
    fs: number;
  }>;
  ticks: Array<{ s: string; at: number; ms: number; p: number; f: number; cf: number }>;
}

function addSubject(
  out: SubjectRows,
  kind: SubjectKind,
  id: string,
  v: Verdict,
  fingerprintKey: string | null,
  prior: SubjectPrior | null,
): void {
  const plan = planSubjectWrite(v, fingerprintKey, prior);
  const n = kind === 'node' ? id : null;
  const t = kind === 'stdio' ? id : null;
  if (plan.closeSpan)
    out.close.push({
      s: id,
      at: plan.closeSpan.endedAt,
      p: plan.closeSpan.probes,
      f: plan.closeSpan.failures,
    });
  if (plan.openSpan) {
    const o = plan.openSpan;
    out.open.push({
      s: id,
      k: kind,
      n,
      t,
      fk: o.fingerprintKey,
      ce: o.clientEra,
      r: o.reason,
      nv: o.negotiatedVersion,
      se: o.servedEras,
      c: o.isChange,
      at: o.startedAt,
    });
  }
  if (plan.state) {
    const st = plan.state;
    out.states.push({
      s: id,
      k: kind,
      n,
      t,
      v: st.verdict,
      d: st.verdictDigest,
      fk: st.fingerprintKey,
      la: st.lastAvailableKey,
      ce: st.clientEra,
      r: st.reason,
      fs: st.fingerprintSince,
    });
  }
  const k = plan.ticks;
  out.ticks.push({
    s: id,
    at: k.probedAt,
    ms: k.durationMs,
    p: k.probes,
    f: k.failures,
    cf: k.consecutiveFailures,
  });
}

/** The statements of a set of subjects' writes in one region: spans, verdict rows (changed only), ticks. */
function pushSubjects(b: Batch, region: string, out: SubjectRows): void {
  if (out.close.length > 0)
    b.push(sql`UPDATE subject_history h SET ended_at = x.at, probes = x.p, failures = x.f
      FROM jsonb_to_recordset(${rows(out.close)}::jsonb) AS x(s text, at bigint, p int, f int)
      WHERE h.subject_id = x.s AND h.region = ${region} AND h.ended_at IS NULL`);
  if (out.open.length > 0)
    b.push(sql`INSERT INTO subject_history (subject_id, region, kind, node_id, target_id, fingerprint_key,
        client_era, reason, negotiated_version, served_eras, is_change, started_at)
      SELECT x.s, ${region}, x.k, x.n, x.t, x.fk, x.ce, x.r, x.nv, x.se, x.c, x.at
      FROM jsonb_to_recordset(${rows(out.open)}::jsonb)
        AS x(s text, k text, n text, t text, fk text, ce text, r text, nv text, se text, c boolean, at bigint)`);
  if (out.states.length > 0)
    b.add(sql`INSERT INTO subject_states (subject_id, region, kind, node_id, target_id, verdict, verdict_digest,
        fingerprint_key, last_available_key, client_era, reason, fingerprint_since)
      SELECT x.s, ${region}, x.k, x.n, x.t, x.v, x.d, x.fk, x.la, x.ce, x.r, x.fs
      FROM jsonb_to_recordset(${rows(out.states)}::jsonb)
        AS x(s text, k text, n text, t text, v jsonb, d text, fk text, la text, ce text, r text, fs bigint)
      ON CONFLICT (subject_id, region) DO UPDATE SET verdict = excluded.verdict,
        verdict_digest = excluded.verdict_digest, fingerprint_key = excluded.fingerprint_key,
        last_available_key = excluded.last_available_key, client_era = excluded.client_era,
        reason = excluded.reason, fingerprint_since = excluded.fingerprint_since`);
  // The one statement a quiet subject costs: its narrow ticks row, updated HOT (no indexed column changes).
  if (out.ticks.length > 0)
    b.add(sql`INSERT INTO subject_ticks (subject_id, region, probed_at, duration_ms, probes, failures,
        consecutive_failures)
      SELECT x.s, ${region}, x.at, x.ms, x.p, x.f, x.cf
      FROM jsonb_to_recordset(${rows(out.ticks)}::jsonb) AS x(s text, at bigint, ms int, p int, f int, cf int)
      ON CONFLICT (subject_id, region) DO UPDATE SET probed_at = excluded.probed_at,
        duration_ms = excluded.duration_ms, probes = excluded.probes, failures = excluded.failures,
        consecutive_failures = excluded.consecutive_failures`);
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
      : await tx.execute<{ seq: number }>(
          sql`SELECT nextval('node_seq')::int AS seq FROM generate_series(1, ${wanted})`,
        );
  let next = 0;
  const takeSeq = () => {
    const seq = handed[next++]?.seq;
    if (seq === undefined) throw new Error('node_seq handed out fewer values than asked');
    return Number(seq);
  };
  const seqs = new Map<string, number>();
  const inserted = w.newNodes.map((n) => {
    const seq = takeSeq();
    seqs.set(n.id, seq);
    return {
      id: n.id,
      k: n.key,
      q: seq,
      o: n.origin,
      u: n.url,
      a: n.address,
      sb: n.servedBy,
      nm: n.name ?? null,
    };
  });
  if (inserted.length > 0)
    b.push(sql`INSERT INTO nodes (id, balancer_id, key, seq, origin, url, address, served_by, name, created_at,
        last_seen_at)
      SELECT x.id, ${w.balancerId}, x.k, x.q, x.o, x.u, x.a, x.sb, x.nm, ${w.at}, ${w.at}
      FROM jsonb_to_recordset(${rows(inserted)}::jsonb)
        AS x(id text, k text, q int, o text, u text, a text, sb text, nm text)`);
  if ((w.renamed ?? []).length > 0)
    b.push(sql`UPDATE nodes SET name = x.nm
      FROM jsonb_to_recordset(${rows((w.renamed ?? []).map((r) => ({ id: r.nodeId, nm: r.name })))}::jsonb)
        AS x(id text, nm text)
      WHERE nodes.id = x.id`);
  const renumbered: Array<{ id: string; q: number }> = [];
  const seen: string[] = [];
  const folds: Array<{ k: number; lo: number; m0: number }> = [];
  const minutes: Array<{ k: number; m: number; f: number; l: string }> = [];
  const subjects: SubjectRows = { close: [], open: [], states: [], ticks: [] };
  for (const r of w.results) {
    let seq = r.seq ?? seqs.get(r.nodeId);
    if (seq === undefined) {
      seq = takeSeq();
      renumbered.push({ id: r.nodeId, q: seq });
    }
    const v = r.verdict;
    addSubject(subjects, 'node', r.nodeId, v, r.fingerprintKey, r.prior);
    if (r.prior && v.probedAt - r.prior.lastSeenAt >= LAST_SEEN_RESOLUTION_MS) seen.push(r.nodeId);
    const failed = v.verdict === 'unavailable' ? 1 : 0;
    const latency = `${bucketOf(v.durationMs)}:1`;
    const fold = hourToFold(r.prior?.probedAt, v.probedAt);
    if (fold !== null)
      folds.push({ k: rollupKey(fold, seq, regionId), lo: minuteRingStart(seq, regionId), m0: fold * 60 });
    const minute = minuteOf(v.probedAt);
    minutes.push({ k: minuteRollupKey(minute, seq, regionId), m: minute, f: failed, l: latency });
  }
  if (renumbered.length > 0)
    b.push(sql`UPDATE nodes SET seq = x.q FROM jsonb_to_recordset(${rows(renumbered)}::jsonb) AS x(id text, q int)
      WHERE nodes.id = x.id`);
  pushSubjects(b, w.region, subjects);
  if (seen.length > 0)
    b.add(sql`UPDATE nodes SET last_seen_at = ${w.at}
      WHERE id IN (SELECT jsonb_array_elements_text(${rows(seen)}::jsonb))`);
  // An hour a node has left is summed from its minute slots, before this probe's minute can reuse one of them.
  if (folds.length > 0)
    b.add(sql`INSERT INTO node_rollups (key, probes, failures, latency)
      SELECT x.k, sum(m.probes), sum(m.failures), ${foldedLatency}
      FROM jsonb_to_recordset(${rows(folds)}::jsonb) AS x(k bigint, lo bigint, m0 int)
        JOIN node_minute_rollups m ON m.key >= x.lo AND m.key < x.lo + ${MINUTE_SLOTS}
          AND m.minute >= x.m0 AND m.minute < x.m0 + 60
      GROUP BY x.k
      ON CONFLICT (key) DO UPDATE SET probes = excluded.probes, failures = excluded.failures,
        latency = excluded.latency`);
  // A slot of the minute ring holds one minute: a newer minute resets it, an older one is never written over it.
  if (minutes.length > 0)
    b.add(sql`INSERT INTO node_minute_rollups (key, minute, probes, failures, latency)
      SELECT x.k, x.m, 1, x.f, x.l FROM jsonb_to_recordset(${rows(minutes)}::jsonb)
        AS x(k bigint, m int, f int, l text)
      ON CONFLICT (key) DO UPDATE SET
        probes = CASE WHEN node_minute_rollups.minute = excluded.minute THEN node_minute_rollups.probes + 1 ELSE 1 END,
        failures = CASE WHEN node_minute_rollups.minute = excluded.minute
          THEN node_minute_rollups.failures + excluded.failures ELSE excluded.failures END,
        latency = CASE WHEN node_minute_rollups.minute = excluded.minute
          THEN ${mergedMinuteLatency} ELSE excluded.latency END,
        minute = excluded.minute
      WHERE excluded.minute >= node_minute_rollups.minute`);
  const cycles = w.analysis.snapshot.cycle ?? 0;
  // A cycle that found what the last one did writes only the time and the cycle count: the analysis and
  // snapshot stay where they are (out of line: toast_tuple_target, migration 0015), so the row version is small.
  if (w.analysisUnchanged)
    b.add(sql`UPDATE balancer_states SET analyzed_at = ${w.at}, cycles = ${cycles}
      WHERE balancer_id = ${w.balancerId}`);
  else {
    const { snapshot } = w.analysis;
    const analysis = storedAnalysisOf(w.analysis);
    const digest = w.analysisDigest;
    b.add(sql`INSERT INTO balancer_states (balancer_id, status, severity, display_status, degraded, analysis,
        snapshot, analysis_digest, analyzed_at, cycles)
      VALUES (${w.balancerId}, ${w.analysis.status}, ${w.analysis.severity}, ${w.analysis.displayStatus},
        ${w.analysis.degraded}, ${JSON.stringify(analysis)}::jsonb, ${JSON.stringify(snapshot)}::jsonb, ${digest},
        ${w.at}, ${cycles})
      ON CONFLICT (balancer_id) DO UPDATE SET status = excluded.status, severity = excluded.severity,
        display_status = excluded.display_status, degraded = excluded.degraded, analysis = excluded.analysis,
        snapshot = excluded.snapshot, analysis_digest = excluded.analysis_digest,
        analyzed_at = excluded.analyzed_at, cycles = excluded.cycles`);
  }
  await b.flush();
}

/** Stores one probe of a stdio target (inside the caller's write transaction). */
export async function postgresWriteStdioResult(tx: Tx, w: StdioWrite): Promise<void> {
  const { targetId, region, verdict: v, fingerprintKey } = w;
  const prior = await tx.execute<SubjectPrior>(sql`SELECT s.fingerprint_key AS "fingerprintKey",
      s.verdict_digest AS "verdictDigest", s.last_available_key AS "lastAvailableKey",
      s.fingerprint_since AS "fingerprintSince", coalesce(k.probes, 0) AS probes,
      coalesce(k.failures, 0) AS failures, coalesce(k.consecutive_failures, 0) AS "consecutiveFailures"
    FROM subject_states s LEFT JOIN subject_ticks k ON k.subject_id = s.subject_id AND k.region = s.region
    WHERE s.subject_id = ${targetId} AND s.region = ${region} FOR UPDATE OF s`);
  const subjects: SubjectRows = { close: [], open: [], states: [], ticks: [] };
  const p = prior[0];
  addSubject(
    subjects,
    'stdio',
    targetId,
    v,
    fingerprintKey,
    p ? { ...p, fingerprintSince: Number(p.fingerprintSince) } : null,
  );
  const b = batchOn(tx);
  pushSubjects(b, region, subjects);
  await b.flush();
}
