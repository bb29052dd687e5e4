// The SQLite side of the poller's hot path: prepared statements for a probed subject's state and history (a
// node of a cycle or a stdio target, the same statements), run synchronously inside the caller's write
// transaction (one await per batch, not per row).
import type Database from 'better-sqlite3';
import type { Verdict } from '@/lib/probe/types';
import { storedAnalysisOf } from '@/lib/schemas/stored-analysis';
import { addToHistogram, bucketOf, formatHistogram, mergeHistograms, parseHistogram } from '../histogram';
import { MINUTE_SLOTS, minuteOf, minuteRingStart, minuteRollupKey, rollupKey } from '../rollup-key';
import {
  hourToFold,
  LAST_SEEN_RESOLUTION_MS,
  planSubjectWrite,
  type NodeResult,
  type ProbeWrite,
  type SubjectPrior,
  type SubjectRef,
} from '../subject-state';

interface Statements {
  insertNode: Database.Statement;
  maxSeq: Database.Statement;
  setSeq: Database.Statement;
  touchNode: Database.Statement;
  renameNode: Database.Statement;
  prior: Database.Statement;
  upsertState: Database.Statement;
  upsertTicks: Database.Statement;
  touchTicks: Database.Statement;
  closeSpan: Database.Statement;
  openSpan: Database.Statement;
  foldRollup: Database.Statement;
  upsertMinuteRollup: Database.Statement;
  upsertBalancerState: Database.Statement;
  touchBalancerState: Database.Statement;
}

const statements = new WeakMap<Database.Database, Statements>();

function statementsFor(sqlite: Database.Database): Statements {
  const cached = statements.get(sqlite);
  if (cached) return cached;
  // Adding in SQL keeps rollups right even when two processes (poller, "probe now") write the same hour.
  // One more sample in one bucket, without parsing the stored histogram into a map.
  sqlite.function('erawatch_histogram_add', { deterministic: true }, (text: unknown, bucket: unknown) =>
    addToHistogram(String(text ?? ''), Number(bucket), 1),
  );
  // The histograms of a group of rows merged into one (an hour's minute slots).
  sqlite.aggregate('erawatch_histogram_merge', {
    start: () => new Map<number, number>(),
    step: (h: Map<number, number>, text: unknown) => {
      mergeHistograms(h, parseHistogram(String(text ?? '')));
      return h;
    },
    result: (h: Map<number, number>) => formatHistogram(h),
  });
  const s: Statements = {
    insertNode: sqlite.prepare(
      `INSERT INTO nodes (id, balancer_id, key, seq, origin, url, address, served_by, name, created_at,
         last_seen_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    renameNode: sqlite.prepare('UPDATE nodes SET name = ? WHERE id = ?'),
    maxSeq: sqlite.prepare('SELECT coalesce(max(seq), 0) AS seq FROM nodes'),
    setSeq: sqlite.prepare('UPDATE nodes SET seq = ? WHERE id = ?'),
    touchNode: sqlite.prepare('UPDATE nodes SET last_seen_at = ? WHERE id = ?'),
    prior: sqlite.prepare(
      `SELECT s.fingerprint_key AS fingerprintKey, s.verdict_digest AS verdictDigest,
         s.last_available_key AS lastAvailableKey, s.fingerprint_since AS fingerprintSince,
         coalesce(k.probes, 0) AS probes, coalesce(k.failures, 0) AS failures,
         coalesce(k.consecutive_failures, 0) AS consecutiveFailures
       FROM subject_states s LEFT JOIN subject_ticks k ON k.subject_id = s.subject_id AND k.region = s.region
       WHERE s.subject_id = ? AND s.region = ?`,
    ),
    upsertState: sqlite.prepare(
      `INSERT INTO subject_states (subject_id, region, kind, node_id, target_id, verdict, verdict_digest,
         fingerprint_key, last_available_key, client_era, reason, fingerprint_since)
       VALUES (@subjectId, @region, @kind, @nodeId, @targetId, @verdict, @verdictDigest, @fingerprintKey,
         @lastAvailableKey, @clientEra, @reason, @fingerprintSince)
       ON CONFLICT(subject_id, region) DO UPDATE SET verdict = excluded.verdict,
         verdict_digest = excluded.verdict_digest, fingerprint_key = excluded.fingerprint_key,
         last_available_key = excluded.last_available_key, client_era = excluded.client_era, reason = excluded.reason,
         fingerprint_since = excluded.fingerprint_since`,
    ),
    upsertTicks: sqlite.prepare(
      `INSERT INTO subject_ticks (subject_id, region, probed_at, duration_ms, probes, failures, consecutive_failures)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(subject_id, region) DO UPDATE SET probed_at = excluded.probed_at,
         duration_ms = excluded.duration_ms, probes = excluded.probes, failures = excluded.failures,
         consecutive_failures = excluded.consecutive_failures`,
    ),
    touchTicks: sqlite.prepare(
      `UPDATE subject_ticks SET probed_at = ?, duration_ms = ?, probes = ?, failures = ?, consecutive_failures = ?
       WHERE subject_id = ? AND region = ?`,
    ),
    closeSpan: sqlite.prepare(
      `UPDATE subject_history SET ended_at = ?, probes = ?, failures = ?
       WHERE subject_id = ? AND region = ? AND ended_at IS NULL`,
    ),
    openSpan: sqlite.prepare(
      `INSERT INTO subject_history (subject_id, region, kind, node_id, target_id, fingerprint_key, client_era,
         reason, negotiated_version, served_eras, is_change, started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    // An hour a node has left, summed from its minute slots (see hourToFold).
    foldRollup: sqlite.prepare(
      `INSERT INTO node_rollups (key, probes, failures, latency)
       SELECT @key, sum(probes), sum(failures), erawatch_histogram_merge(latency) FROM node_minute_rollups
       WHERE key >= @lo AND key < @lo + ${MINUTE_SLOTS} AND minute >= @m0 AND minute < @m0 + 60
       HAVING count(*) > 0
       ON CONFLICT(key) DO UPDATE SET probes = excluded.probes, failures = excluded.failures,
         latency = excluded.latency`,
    ),
    // A slot still holding an older minute starts over (every right-hand side reads the row as it was).
    upsertMinuteRollup: sqlite.prepare(
      `INSERT INTO node_minute_rollups (key, minute, probes, failures, latency) VALUES (@key, @minute, 1, @failed, @bucket || ':1')
       ON CONFLICT(key) DO UPDATE SET
         probes = CASE WHEN minute = excluded.minute THEN probes + 1 ELSE 1 END,
         failures = CASE WHEN minute = excluded.minute THEN failures + excluded.failures ELSE excluded.failures END,
         latency = CASE WHEN minute = excluded.minute THEN erawatch_histogram_add(latency, @bucket) ELSE excluded.latency END,
         minute = excluded.minute
       WHERE excluded.minute >= minute`,
    ),
    upsertBalancerState: sqlite.prepare(
      `INSERT INTO balancer_states (balancer_id, status, severity, display_status, degraded, analysis, snapshot,
         analysis_digest, analyzed_at, cycles)
       VALUES (@balancerId, @status, @severity, @displayStatus, @degraded, @analysis, @snapshot, @digest,
         @analyzedAt, @cycles)
       ON CONFLICT(balancer_id) DO UPDATE SET status = excluded.status, severity = excluded.severity,
         display_status = excluded.display_status,
         degraded = excluded.degraded, analysis = excluded.analysis, snapshot = excluded.snapshot,
         analysis_digest = excluded.analysis_digest, analyzed_at = excluded.analyzed_at, cycles = excluded.cycles`,
    ),
    touchBalancerState: sqlite.prepare(
      'UPDATE balancer_states SET analyzed_at = @analyzedAt, cycles = @cycles WHERE balancer_id = @balancerId',
    ),
  };
  statements.set(sqlite, s);
  return s;
}

/**
 * Writes one probe write: a stdio target's state and history, or one cycle's nodes, states, history, rollups
 * and balancer state (inside the caller's write transaction, which also holds the cycle's events).
 */
export function sqliteWriteProbes(sqlite: Database.Database, w: ProbeWrite, regionId = 0): void {
  const s = statementsFor(sqlite);
  if (w.kind === 'stdio') {
    const ref: SubjectRef = { kind: 'stdio', id: w.targetId, region: w.region };
    const prior = (s.prior.get(ref.id, ref.region) as SubjectPrior | undefined) ?? null;
    writeSubjectState(s, ref, w.verdict, w.fingerprintKey, prior);
    return;
  }
  // Seqs are handed out inside this write transaction, so two writers can never take the same one.
  let nextSeq = -1;
  const takeSeq = () => {
    if (nextSeq < 0) nextSeq = (s.maxSeq.get() as { seq: number }).seq + 1;
    return nextSeq++;
  };
  const seqs = new Map<string, number>();
  for (const n of w.newNodes) {
    const seq = takeSeq();
    seqs.set(n.id, seq);
    s.insertNode.run(
      n.id,
      w.balancerId,
      n.key,
      seq,
      n.origin,
      n.url,
      n.address,
      n.servedBy,
      n.name ?? null,
      w.at,
      w.at,
    );
  }
  for (const r of w.renamed ?? []) s.renameNode.run(r.name, r.nodeId);
  for (const r of w.results) {
    let seq = r.seq ?? seqs.get(r.nodeId);
    if (seq === undefined) {
      seq = takeSeq();
      s.setSeq.run(seq, r.nodeId);
    }
    writeNodeResult(s, w.region, regionId, seq, r);
  }
  const cycles = w.analysis.snapshot.cycle ?? 0;
  // A cycle that found what the last one did writes only the time and the cycle count.
  if (w.analysisUnchanged) {
    s.touchBalancerState.run({ balancerId: w.balancerId, analyzedAt: w.at, cycles });
    return;
  }
  const { snapshot } = w.analysis;
  s.upsertBalancerState.run({
    balancerId: w.balancerId,
    status: w.analysis.status,
    severity: w.analysis.severity,
    displayStatus: w.analysis.displayStatus,
    degraded: w.analysis.degraded ? 1 : 0,
    analysis: JSON.stringify(storedAnalysisOf(w.analysis)),
    snapshot: JSON.stringify(snapshot),
    digest: w.analysisDigest,
    analyzedAt: w.at,
    cycles,
  });
}

/** Writes one verdict of one subject as planSubjectWrite decides: a quiet probe touches only its ticks row. */
function writeSubjectState(
  s: Statements,
  ref: SubjectRef,
  v: Verdict,
  fingerprintKey: string | null,
  prior: SubjectPrior | null,
): void {
  const plan = planSubjectWrite(v, fingerprintKey, prior);
  const t = plan.ticks;
  if (plan.closeSpan) {
    const c = plan.closeSpan;
    s.closeSpan.run(c.endedAt, c.probes, c.failures, ref.id, ref.region);
  }
  if (plan.openSpan) {
    const o = plan.openSpan;
    const [nodeId, targetId] = ref.kind === 'node' ? [ref.id, null] : [null, ref.id];
    s.openSpan.run(
      ref.id,
      ref.region,
      ref.kind,
      nodeId,
      targetId,
      o.fingerprintKey,
      o.clientEra,
      o.reason,
      o.negotiatedVersion,
      o.servedEras,
      o.isChange ? 1 : 0,
      o.startedAt,
    );
  }
  if (!plan.state) {
    s.touchTicks.run(
      t.probedAt,
      t.durationMs,
      t.probes,
      t.failures,
      t.consecutiveFailures,
      ref.id,
      ref.region,
    );
    return;
  }
  const st = plan.state;
  s.upsertState.run({
    subjectId: ref.id,
    region: ref.region,
    kind: ref.kind,
    nodeId: ref.kind === 'node' ? ref.id : null,
    targetId: ref.kind === 'stdio' ? ref.id : null,
    verdict: JSON.stringify(st.verdict),
    verdictDigest: st.verdictDigest,
    fingerprintKey: st.fingerprintKey,
    lastAvailableKey: st.lastAvailableKey,
    clientEra: st.clientEra,
    reason: st.reason,
    fingerprintSince: st.fingerprintSince,
  });
  s.upsertTicks.run(
    ref.id,
    ref.region,
    t.probedAt,
    t.durationMs,
    t.probes,
    t.failures,
    t.consecutiveFailures,
  );
}

function writeNodeResult(s: Statements, region: string, regionId: number, seq: number, r: NodeResult): void {
  const v = r.verdict;
  const at = v.probedAt;
  const failed = v.verdict === 'unavailable';
  const prior = r.prior;
  writeSubjectState(s, { kind: 'node', id: r.nodeId, region }, v, r.fingerprintKey, prior);
  if (prior && at - prior.lastSeenAt >= LAST_SEEN_RESOLUTION_MS) s.touchNode.run(at, r.nodeId);
  const bucket = bucketOf(v.durationMs);
  // Before this probe's minute can reuse one of the slots of the hour it folds.
  const fold = hourToFold(prior?.probedAt, at);
  if (fold !== null)
    s.foldRollup.run({
      key: rollupKey(fold, seq, regionId),
      lo: minuteRingStart(seq, regionId),
      m0: fold * 60,
    });
  s.upsertMinuteRollup.run({
    key: minuteRollupKey(minuteOf(at), seq, regionId),
    minute: minuteOf(at),
    failed: failed ? 1 : 0,
    bucket,
  });
}
