// Stdio targets in the poller: each probe launches the configured command, probes it over stdin/stdout,
// and ends the process (by its pid, through the transport) before the result is stored. State and history
// are written like a node's: the state row in place, a history row only when the fingerprint changes.
import type Database from 'better-sqlite3';
import { writeTransaction, type Store } from '@/db';
import { getStdioTargetRow, stdioSpecOf, type StdioTarget } from '@/db/queries/stdio-targets';
import { probeNode } from '@/lib/probe/probe';
import { describeCommand, StdioTransport, type StdioTransportOptions } from '@/lib/probe/stdio-transport';
import {
  DEFAULT_PROBE_OPTIONS,
  unavailableVerdict,
  type ProbeOptions,
  type Verdict,
} from '@/lib/probe/types';
import { keyedFingerprintOf } from '@/lib/rollout/fingerprint';
import { CycleAbandonedError, runExclusive } from './cycle';
import type { Limiter } from './limiter';
import type { Clock } from './types';
import { UNAVAILABLE_KEY, writeSubjectState, type SubjectPrior } from './write';

/** Probes one stdio target; never throws for the server's fault. */
/** Probes one stdio target; never throws for the server's fault. An abort ends the process at once. */
export type StdioProbeFn = (
  target: StdioTarget,
  options: ProbeOptions,
  signal?: AbortSignal,
) => Promise<Verdict>;

export interface StdioCycleDeps {
  probe: StdioProbeFn;
  now: Clock;
  /** The poller's global cap on probes in flight, shared with the balancers. */
  limiter: Limiter;
  dueAt?: number;
  onProbeStart?: (lagMs: number) => void;
  signal?: AbortSignal;
}

export interface StdioCycleResult {
  targetId: string;
  at: number;
  verdict: Verdict;
  /** False when the target's command changed during the probe: the answer was about another program. */
  stored: boolean;
}

export function stdioProbeOptionsFor(t: StdioTarget): ProbeOptions {
  return {
    ...DEFAULT_PROBE_OPTIONS,
    legacyVersions: [...t.legacyVersions],
    timeoutMs: t.timeoutMs,
    legacyProbeTimeoutMs: t.legacyProbeTimeoutMs,
  };
}

/** The verdict's `url` for a stdio target: the command line, env values left out. */
export function stdioUrlOf(t: StdioTarget): string {
  return `stdio:${describeCommand(stdioSpecOf(t))}`;
}

/**
 * Launches the target's exact configured command, probes it, and always closes the transport, which ends
 * the process (SIGTERM, then SIGKILL) and waits for its exit. `allowLegacy` comes from the same row as
 * the command, so the allowlist is bound to this launch and nothing else.
 */
export function createStdioProbe(transportOptions: StdioTransportOptions = {}): StdioProbeFn {
  return async (target, options, signal) => {
    const transport = StdioTransport.launch(stdioSpecOf(target), transportOptions);
    const onAbort = () => void transport.close();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await probeNode(
        { url: stdioUrlOf(target), allowLegacy: target.allowLegacy, auditLegacy: target.auditLegacy },
        options,
        { transport },
      );
    } finally {
      signal?.removeEventListener('abort', onAbort);
      await transport.close();
    }
  };
}

interface Statements {
  prior: Database.Statement;
  upsertState: Database.Statement;
  touchState: Database.Statement;
  closeSpan: Database.Statement;
  openSpan: Database.Statement;
}

const statements = new WeakMap<Database.Database, Statements>();

function statementsFor(sqlite: Database.Database): Statements {
  const cached = statements.get(sqlite);
  if (cached) return cached;
  const s: Statements = {
    prior: sqlite.prepare(
      `SELECT fingerprint_key AS fingerprintKey, verdict_digest AS verdictDigest,
         last_available_key AS lastAvailableKey, fingerprint_since AS fingerprintSince, probes, failures,
         consecutive_failures AS consecutiveFailures
       FROM stdio_target_states WHERE target_id = ?`,
    ),
    upsertState: sqlite.prepare(
      `INSERT INTO stdio_target_states (target_id, verdict, verdict_digest, fingerprint_key, last_available_key,
         client_era, reason, probed_at, duration_ms, fingerprint_since, probes, failures, consecutive_failures)
       VALUES (@targetId, @verdict, @verdictDigest, @fingerprintKey, @lastAvailableKey, @clientEra, @reason,
         @probedAt, @durationMs, @fingerprintSince, @probes, @failures, @consecutiveFailures)
       ON CONFLICT(target_id) DO UPDATE SET verdict = excluded.verdict, verdict_digest = excluded.verdict_digest,
         fingerprint_key = excluded.fingerprint_key, last_available_key = excluded.last_available_key,
         client_era = excluded.client_era, reason = excluded.reason, probed_at = excluded.probed_at,
         duration_ms = excluded.duration_ms, fingerprint_since = excluded.fingerprint_since,
         probes = excluded.probes, failures = excluded.failures, consecutive_failures = excluded.consecutive_failures`,
    ),
    touchState: sqlite.prepare(
      `UPDATE stdio_target_states SET probed_at = ?, duration_ms = ?, probes = ?, failures = ?,
         consecutive_failures = ? WHERE target_id = ?`,
    ),
    closeSpan: sqlite.prepare(
      `UPDATE stdio_target_history SET ended_at = ?, probes = ?, failures = ?
       WHERE target_id = ? AND ended_at IS NULL`,
    ),
    openSpan: sqlite.prepare(
      `INSERT INTO stdio_target_history (target_id, fingerprint_key, client_era, reason, negotiated_version,
         served_eras, is_change, started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
  };
  statements.set(sqlite, s);
  return s;
}

/** Stores one probe of a stdio target in one transaction; returns the stored fingerprint key. */
export function writeStdioResult(store: Store, targetId: string, v: Verdict): string {
  const s = statementsFor(store.sqlite);
  const fingerprintKey = keyedFingerprintOf(v)?.key ?? null;
  const key = fingerprintKey ?? UNAVAILABLE_KEY;
  return writeTransaction(store, () => {
    const prior = (s.prior.get(targetId) as SubjectPrior | undefined) ?? null;
    writeSubjectState(s, 'targetId', targetId, v, fingerprintKey, prior);
    return key;
  });
}

/** Probes one stdio target under the global cap and stores the result. Never two at once per target. */
export function runStdioCycle(
  store: Store,
  targetId: string,
  deps: StdioCycleDeps,
): Promise<StdioCycleResult> {
  return runExclusive(`stdio:${targetId}`, async () => {
    const target = getStdioTargetRow(store, targetId);
    const dueAt = deps.dueAt ?? deps.now();
    const verdict = await deps.limiter.run(async () => {
      if (deps.signal?.aborted) throw new CycleAbandonedError(targetId);
      const at = deps.now();
      deps.onProbeStart?.(at - dueAt);
      try {
        return await deps.probe(target, stdioProbeOptionsFor(target), deps.signal);
      } catch (err) {
        // The probe reports the server's faults in the verdict; a throw is ours, kept visible.
        const v = unavailableVerdict(stdioUrlOf(target), 'probe_error', at);
        return { ...v, anomaly: err instanceof Error ? err.message : String(err) };
      }
    });
    if (deps.signal?.aborted) throw new CycleAbandonedError(targetId);
    // The target may have been changed by a config apply while it was probed: store nothing about another program.
    const current = getStdioTargetRow(store, targetId);
    if (JSON.stringify(stdioSpecOf(current)) !== JSON.stringify(stdioSpecOf(target)))
      return { targetId, at: deps.now(), verdict, stored: false };
    writeStdioResult(store, targetId, verdict);
    return { targetId, at: deps.now(), verdict, stored: true };
  });
}
