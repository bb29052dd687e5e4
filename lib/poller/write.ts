// The cycle's one write transaction: new nodes, node states, history spans on fingerprint change,
// hourly rollups, the balancer's analysis and snapshot, and its events. Prepared statements: this is the
// poller's hot path.
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { writeTransaction, type Store } from '@/db';
import { bucketOf, formatHistogram, mergeHistograms, parseHistogram } from '@/db/histogram';
import { hourOf, rollupKey } from '@/db/rollup-key';
import { insertEvents, type EventDraft, type StoredEvent } from '@/db/queries/events';
import type { NodeOrigin } from '@/db/schema';
import type { Verdict } from '@/lib/probe/types';
import type { BalancerAnalysis } from '@/lib/rollout/types';

export const UNAVAILABLE_KEY = 'unavailable';
/** nodes.last_seen_at is refreshed at most this often, to keep a quiet fleet's writes small. */
const LAST_SEEN_RESOLUTION_MS = 5 * 60_000;

export interface PriorState {
  fingerprintKey: string;
  verdictDigest: string | null;
  lastAvailableKey: string | null;
  fingerprintSince: number;
  probes: number;
  failures: number;
  consecutiveFailures: number;
  lastSeenAt: number;
}

export interface NewNode {
  id: string;
  key: string;
  origin: NodeOrigin;
  url: string;
  address: string | null;
  servedBy: string | null;
}

export interface NodeResult {
  nodeId: string;
  /** The node's rollup seq; null for a node created this cycle or before seqs existed. */
  seq: number | null;
  verdict: Verdict;
  /** The fingerprint key, or null when unavailable. */
  fingerprintKey: string | null;
  prior: PriorState | null;
}

export interface CycleWrite {
  balancerId: string;
  at: number;
  newNodes: NewNode[];
  results: NodeResult[];
  analysis: BalancerAnalysis;
  events: EventDraft[];
}

interface Statements {
  insertNode: Database.Statement;
  maxSeq: Database.Statement;
  setSeq: Database.Statement;
  touchNode: Database.Statement;
  upsertState: Database.Statement;
  touchState: Database.Statement;
  closeSpan: Database.Statement;
  openSpan: Database.Statement;
  upsertRollup: Database.Statement;
  upsertBalancerState: Database.Statement;
}

const statements = new WeakMap<Database.Database, Statements>();

function statementsFor(sqlite: Database.Database): Statements {
  const cached = statements.get(sqlite);
  if (cached) return cached;
  // Merging in SQL keeps rollups right even when two processes (poller, "probe now") write the same hour.
  sqlite.function('erawatch_merge_histogram', { deterministic: true }, (a: unknown, b: unknown) =>
    formatHistogram(mergeHistograms(parseHistogram(String(a ?? '')), parseHistogram(String(b ?? '')))),
  );
  const s: Statements = {
    insertNode: sqlite.prepare(
      `INSERT INTO nodes (id, balancer_id, key, seq, origin, url, address, served_by, created_at, last_seen_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    maxSeq: sqlite.prepare('SELECT coalesce(max(seq), 0) AS seq FROM nodes'),
    setSeq: sqlite.prepare('UPDATE nodes SET seq = ? WHERE id = ?'),
    touchNode: sqlite.prepare('UPDATE nodes SET last_seen_at = ? WHERE id = ?'),
    upsertState: sqlite.prepare(
      `INSERT INTO node_states (node_id, verdict, verdict_digest, fingerprint_key, last_available_key, client_era,
         reason, probed_at, duration_ms, fingerprint_since, probes, failures, consecutive_failures)
       VALUES (@nodeId, @verdict, @verdictDigest, @fingerprintKey, @lastAvailableKey, @clientEra, @reason, @probedAt,
         @durationMs, @fingerprintSince, @probes, @failures, @consecutiveFailures)
       ON CONFLICT(node_id) DO UPDATE SET verdict = excluded.verdict, verdict_digest = excluded.verdict_digest,
         fingerprint_key = excluded.fingerprint_key,
         last_available_key = excluded.last_available_key, client_era = excluded.client_era, reason = excluded.reason,
         probed_at = excluded.probed_at, duration_ms = excluded.duration_ms,
         fingerprint_since = excluded.fingerprint_since, probes = excluded.probes, failures = excluded.failures,
         consecutive_failures = excluded.consecutive_failures`,
    ),
    touchState: sqlite.prepare(
      `UPDATE node_states SET probed_at = ?, duration_ms = ?, probes = ?, failures = ?, consecutive_failures = ?
       WHERE node_id = ?`,
    ),
    closeSpan: sqlite.prepare(
      'UPDATE node_history SET ended_at = ?, probes = ?, failures = ? WHERE node_id = ? AND ended_at IS NULL',
    ),
    openSpan: sqlite.prepare(
      `INSERT INTO node_history (node_id, fingerprint_key, client_era, reason, negotiated_version, served_eras,
         is_change, started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    upsertRollup: sqlite.prepare(
      `INSERT INTO node_rollups (key, probes, failures, latency) VALUES (?, 1, ?, ?)
       ON CONFLICT(key) DO UPDATE SET probes = probes + 1, failures = failures + excluded.failures,
         latency = erawatch_merge_histogram(latency, excluded.latency)`,
    ),
    upsertBalancerState: sqlite.prepare(
      `INSERT INTO balancer_states (balancer_id, status, severity, display_status, degraded, analysis, snapshot,
         analyzed_at, cycles)
       VALUES (@balancerId, @status, @severity, @displayStatus, @degraded, @analysis, @snapshot, @analyzedAt, 1)
       ON CONFLICT(balancer_id) DO UPDATE SET status = excluded.status, severity = excluded.severity,
         display_status = excluded.display_status,
         degraded = excluded.degraded, analysis = excluded.analysis, snapshot = excluded.snapshot,
         analyzed_at = excluded.analyzed_at, cycles = cycles + 1`,
    ),
  };
  statements.set(sqlite, s);
  return s;
}

/** A digest of the verdict without its timings and request ids: equal digests mean the same answer. */
export function verdictDigest(v: Verdict): string {
  const stable = {
    ...v,
    probedAt: 0,
    durationMs: 0,
    evidence: v.evidence.map((e) => ({ ...e, elapsedMs: 0, requestId: 0 })),
  };
  return createHash('sha1').update(JSON.stringify(stable)).digest('base64url');
}

/** Whether this result starts a new history span, and whether that span is a real fingerprint change. */
export function classifyTransition(
  prior: Pick<PriorState, 'fingerprintKey' | 'lastAvailableKey'> | null,
  fingerprintKey: string | null,
): { newSpan: boolean; isChange: boolean } {
  const key = fingerprintKey ?? UNAVAILABLE_KEY;
  const newSpan = prior === null || prior.fingerprintKey !== key;
  const isChange =
    fingerprintKey !== null &&
    prior !== null &&
    prior.lastAvailableKey !== null &&
    prior.lastAvailableKey !== key;
  return { newSpan, isChange };
}

/** Writes one cycle in one BEGIN IMMEDIATE transaction; returns the stored events. */
export function writeCycle(store: Store, w: CycleWrite): StoredEvent[] {
  const s = statementsFor(store.sqlite);
  return writeTransaction(store, (tx) => {
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
      s.insertNode.run(n.id, w.balancerId, n.key, seq, n.origin, n.url, n.address, n.servedBy, w.at, w.at);
    }
    for (const r of w.results) {
      let seq = r.seq ?? seqs.get(r.nodeId);
      if (seq === undefined) {
        seq = takeSeq();
        s.setSeq.run(seq, r.nodeId);
      }
      writeNodeResult(s, seq, r);
    }
    const { snapshot, ...analysis } = w.analysis;
    s.upsertBalancerState.run({
      balancerId: w.balancerId,
      status: w.analysis.state,
      severity: w.analysis.severity,
      displayStatus: w.analysis.displayStatus,
      degraded: w.analysis.isDegraded ? 1 : 0,
      analysis: JSON.stringify(analysis),
      snapshot: JSON.stringify(snapshot),
      analyzedAt: w.at,
    });
    return w.events.length > 0 ? insertEvents(tx, w.events) : [];
  });
}

/** The state and history statements of one kind of probed subject (a node, a stdio target). */
export interface SubjectStatements {
  upsertState: Database.Statement;
  touchState: Database.Statement;
  closeSpan: Database.Statement;
  openSpan: Database.Statement;
}

export type SubjectPrior = Omit<PriorState, 'lastSeenAt'>;

/**
 * Writes one verdict of one subject: a history span opens only when its fingerprint changes (counters
 * otherwise), and a quiet subject gives the same answer every cycle, so only the small columns are rewritten,
 * not the evidence JSON. `idParam` names the subject's id in the upsert statement.
 */
export function writeSubjectState(
  s: SubjectStatements,
  idParam: 'nodeId' | 'targetId',
  id: string,
  v: Verdict,
  fingerprintKey: string | null,
  prior: SubjectPrior | null,
): void {
  const at = v.probedAt;
  const failed = v.verdict === 'unavailable';
  const key = fingerprintKey ?? UNAVAILABLE_KEY;
  const { newSpan, isChange } = classifyTransition(prior, fingerprintKey);
  if (newSpan) {
    if (prior) s.closeSpan.run(at, prior.probes, prior.failures, id);
    s.openSpan.run(id, key, v.verdict, v.reason, v.negotiatedVersion, v.servedEras, isChange ? 1 : 0, at);
  }
  const base =
    newSpan || !prior ? { probes: 0, failures: 0, since: at } : { ...prior, since: prior.fingerprintSince };
  const probes = base.probes + 1;
  const failures = base.failures + (failed ? 1 : 0);
  const consecutiveFailures = failed ? (prior?.consecutiveFailures ?? 0) + 1 : 0;
  const durationMs = Math.round(v.durationMs);
  const digest = verdictDigest(v);
  if (!newSpan && prior?.verdictDigest === digest) {
    s.touchState.run(at, durationMs, probes, failures, consecutiveFailures, id);
  } else {
    s.upsertState.run({
      [idParam]: id,
      verdict: JSON.stringify(v),
      verdictDigest: digest,
      fingerprintKey: key,
      lastAvailableKey: fingerprintKey ?? prior?.lastAvailableKey ?? null,
      clientEra: v.verdict,
      reason: v.reason,
      probedAt: at,
      durationMs,
      fingerprintSince: base.since,
      probes,
      failures,
      consecutiveFailures,
    });
  }
}

function writeNodeResult(s: Statements, seq: number, r: NodeResult): void {
  const v = r.verdict;
  const at = v.probedAt;
  const failed = v.verdict === 'unavailable';
  const prior = r.prior;
  writeSubjectState(s, 'nodeId', r.nodeId, v, r.fingerprintKey, prior);
  if (prior && at - prior.lastSeenAt >= LAST_SEEN_RESOLUTION_MS) s.touchNode.run(at, r.nodeId);
  s.upsertRollup.run(rollupKey(hourOf(at), seq), failed ? 1 : 0, `${bucketOf(v.durationMs)}:1`);
}
