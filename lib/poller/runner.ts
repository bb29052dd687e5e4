// The poll role: holds the lease, schedules every balancer on its interval (spread evenly across it), runs
// cycles under one global concurrency cap and each balancer's claim in the store, and stops cleanly.
// Retention is the maintain role's.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Store } from '@/db';
import { runCycle, runExclusive, CycleAbandonedError, type CycleResult } from './cycle';
import {
  acquireLease,
  describeHolder,
  readLease,
  releaseLease,
  releaseLeaseAtExit,
  renewLease,
  type LeaseHolder,
} from './lease';
import { listScheduledSubjects } from '@/db/queries/subjects';
import { startCheckpointer, type Checkpointer } from '@/db/checkpoints';
import { createLimiter } from './limiter';
import { closeDefaultProbe, createDefaultProbe, resolveAllAddresses } from './probe';
import { instrumentProbe } from '@/lib/metrics/probe';
import { recordCycleFailed, startMetricFlusher, type MetricFlusher } from '@/lib/metrics/stored';
import { balancerSubject } from './claim-names';
import { newClaimHolder, withSubjectClaim } from './claim';
import { createStdioProbe, runStdioCycle, type StdioCycleResult, type StdioProbeFn } from './stdio';
import type { Clock, ProbeFn, ResolveFn } from './types';

export interface PollerOptions {
  store: Store;
  probe?: ProbeFn;
  /** Probes one stdio target (default: launch its command, probe, end the process). */
  stdioProbe?: StdioProbeFn;
  resolve?: ResolveFn;
  now?: Clock;
  env?: Record<string, string | undefined>;
  /** Probes in flight across all balancers (default ERAWATCH_POLLER_CONCURRENCY or 64). */
  concurrency?: number;
  leaseTtlMs?: number;
  leaseRenewMs?: number;
  /** How often the balancer list is re-read (default 5 s). */
  refreshMs?: number;
  /** How long stop() lets running cycles finish before abandoning them (default 10 s). */
  stopGraceMs?: number;
  holderId?: string;
  log?: (line: string) => void;
  onCycle?: (result: CycleResult) => void;
  onStdioCycle?: (result: StdioCycleResult) => void;
  onProbeStart?: (lagMs: number) => void;
}

export interface LagSummary {
  count: number;
  p50Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
}

export interface PollerStatus {
  state: 'waiting' | 'polling' | 'stopping' | 'stopped';
  holderId: string;
  leaseHeld: boolean;
  /** The other poller holding the lease while this one waits. */
  heldBy: LeaseHolder | null;
  balancers: number;
  /** Stdio targets scheduled (from the config file). */
  stdioTargets: number;
  cyclesCompleted: number;
  cyclesFailed: number;
  cyclesAbandoned: number;
  cyclesRunning: number;
  probes: number;
  lastCycleAt: number | null;
  lastCycleAgeMs: number | null;
  lastError: string | null;
  /** Lag between a cycle's due time and each probe's start, over the last LAG_WINDOW probes. */
  lag: LagSummary;
}

export interface PollerHandle {
  stop(): Promise<void>;
  status(): PollerStatus;
}

const LAG_WINDOW = 20_000;
const CLAIM_RETRY_MS = 250;

interface Scheduled {
  id: string;
  intervalMs: number;
  /** Where in each interval this subject's cycles start (see assignPhases). */
  phaseMs: number;
  dueAt: number;
  running: Promise<void> | null;
}

function concurrencyFromEnv(env: Record<string, string | undefined>): number {
  const raw = env.ERAWATCH_POLLER_CONCURRENCY;
  if (raw === undefined || raw.trim() === '') return 64;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 10_000) {
    throw new RangeError(`ERAWATCH_POLLER_CONCURRENCY must be an integer from 1 to 10000, got '${raw}'`);
  }
  return n;
}

export function summarizeLag(lags: Float64Array, count: number): LagSummary {
  const n = Math.min(count, lags.length);
  if (n === 0) return { count, p50Ms: null, p99Ms: null, maxMs: null };
  const sorted = Float64Array.from(lags.subarray(0, n)).sort();
  const at = (q: number) => sorted[Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))] ?? null;
  return { count, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: sorted[n - 1] ?? null };
}

/**
 * Even phases: the subjects sharing one interval start at i × interval / n, in id order, so cycles are spread
 * across the interval instead of bunching up (what random offsets do) and queueing behind each other.
 */
export function assignPhases(rows: ReadonlyArray<{ key: string; intervalMs: number }>): Map<string, number> {
  const byInterval = new Map<number, string[]>();
  for (const r of rows) {
    const keys = byInterval.get(r.intervalMs) ?? [];
    keys.push(r.key);
    byInterval.set(r.intervalMs, keys);
  }
  const phases = new Map<string, number>();
  for (const [intervalMs, keys] of byInterval) {
    keys.sort();
    keys.forEach((key, i) => phases.set(key, Math.floor((i * intervalMs) / keys.length)));
  }
  return phases;
}

/** The first time at or after `t` that falls on `phaseMs` within the interval. */
export function nextSlot(t: number, intervalMs: number, phaseMs: number): number {
  const base = Math.floor((t - phaseMs) / intervalMs) * intervalMs + phaseMs;
  return base >= t ? base : base + intervalMs;
}

/**
 * The due time after a cycle that was due at `dueAt` started at `t`: the phase's slot about one interval on.
 * A cycle started off its phase (a new subject, or phases reassigned) lands on its phase at least half an
 * interval later; one that overran skips the slots it missed.
 */
export function followingDue(
  entry: Pick<Scheduled, 'intervalMs' | 'phaseMs'>,
  dueAt: number,
  t: number,
): number {
  return nextSlot(Math.max(t, dueAt) + entry.intervalMs / 2, entry.intervalMs, entry.phaseMs);
}

export function startPollerWith(opts: PollerOptions): PollerHandle {
  const env = opts.env ?? process.env;
  const store = opts.store;
  const now = opts.now ?? Date.now;
  // Every probe lands in the stored probe series, whichever process runs the poll role.
  const probe = instrumentProbe(opts.probe ?? createDefaultProbe(process.env));
  const claimHolder = newClaimHolder('poll');
  const stdioProbe = opts.stdioProbe ?? createStdioProbe();
  const resolve = opts.resolve ?? resolveAllAddresses;
  const limiter = createLimiter(opts.concurrency ?? concurrencyFromEnv(env));
  const leaseTtlMs = opts.leaseTtlMs ?? 15_000;
  const leaseRenewMs = opts.leaseRenewMs ?? Math.max(100, Math.floor(leaseTtlMs / 3));
  const refreshMs = opts.refreshMs ?? 5_000;
  const stopGraceMs = opts.stopGraceMs ?? 10_000;
  const holderId = opts.holderId ?? `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const log = opts.log ?? ((line: string) => process.stdout.write(`[poller] ${line}\n`));

  let state: PollerStatus['state'] = 'waiting';
  let heldBy: LeaseHolder | null = null;
  let lastHolderSeen: string | null = null;
  const abort = new AbortController();
  const schedule = new Map<string, Scheduled>();
  const stdioSchedule = new Map<string, Scheduled>();
  let startedPolling = false;
  let tickTimer: NodeJS.Timeout | null = null;
  let leaseTimer: NodeJS.Timeout | null = null;
  let lastRefresh = -Infinity;
  let lastCycleAt: number | null = null;
  let lastError: string | null = null;
  let checkpointer: Checkpointer | null = null;
  let flusher: MetricFlusher | null = null;
  const counters = { completed: 0, failed: 0, abandoned: 0, probes: 0 };
  const lags = new Float64Array(LAG_WINDOW);
  let lagCount = 0;

  const recordLag = (lagMs: number) => {
    lags[lagCount % LAG_WINDOW] = lagMs;
    lagCount += 1;
    opts.onProbeStart?.(lagMs);
  };

  async function refreshBalancers(t: number): Promise<void> {
    const { balancers, stdioTargets: stdio } = await listScheduledSubjects(store);
    // Balancers and stdio targets share the probe cap, so they share one spread.
    const phases = assignPhases([
      ...balancers.map((r) => ({ key: `b:${r.id}`, intervalMs: r.intervalMs })),
      ...stdio.map((r) => ({ key: `s:${r.id}`, intervalMs: r.intervalMs })),
    ]);
    refreshSchedule(schedule, balancers, (id) => phases.get(`b:${id}`) ?? 0, t);
    refreshSchedule(stdioSchedule, stdio, (id) => phases.get(`s:${id}`) ?? 0, t);
    startedPolling = true;
    lastRefresh = t;
  }

  function refreshSchedule(
    entries: Map<string, Scheduled>,
    rows: ReadonlyArray<{ id: string; intervalMs: number }>,
    phaseOf: (id: string) => number,
    t: number,
  ): void {
    const seen = new Set<string>();
    for (const r of rows) {
      seen.add(r.id);
      const phaseMs = phaseOf(r.id);
      const entry = entries.get(r.id);
      if (entry) {
        entry.intervalMs = r.intervalMs;
        entry.phaseMs = phaseMs;
      } else {
        // At start-up each subject waits for its phase; a subject registered later is probed at once.
        const dueAt = startedPolling ? t : nextSlot(t, r.intervalMs, phaseMs);
        entries.set(r.id, { id: r.id, intervalMs: r.intervalMs, phaseMs, dueAt, running: null });
      }
    }
    for (const id of entries.keys()) if (!seen.has(id)) entries.delete(id);
  }

  function startStdioCycle(entry: Scheduled, t: number): void {
    const dueAt = entry.dueAt;
    entry.dueAt = followingDue(entry, dueAt, t);
    entry.running = runStdioCycle(store, entry.id, {
      probe: stdioProbe,
      now,
      limiter,
      dueAt,
      onProbeStart: recordLag,
      signal: abort.signal,
    })
      .then((result) => {
        counters.completed += 1;
        counters.probes += 1;
        lastCycleAt = result.at;
        opts.onStdioCycle?.(result);
      })
      .catch((err: unknown) => {
        if (err instanceof CycleAbandonedError) counters.abandoned += 1;
        else if (err instanceof Error && err.name === 'NotFoundError') stdioSchedule.delete(entry.id);
        else {
          counters.failed += 1;
          recordCycleFailed();
          lastError = err instanceof Error ? err.message : String(err);
          log(`probe of stdio target ${entry.id} failed: ${lastError}`);
        }
      })
      .finally(() => {
        entry.running = null;
      });
  }

  function startCycle(entry: Scheduled, t: number): void {
    const dueAt = entry.dueAt;
    entry.dueAt = followingDue(entry, dueAt, t);
    entry.running = withSubjectClaim(store, balancerSubject(entry.id), claimHolder, () =>
      runExclusive(entry.id, () =>
        runCycle(store, entry.id, {
          probe,
          resolve,
          now,
          env,
          limiter,
          dueAt,
          onProbeStart: recordLag,
          signal: abort.signal,
        }),
      ),
    )
      .then((result) => {
        if (result === null) {
          // A probe-now holds the balancer in some process: try again shortly rather than probe beside it.
          entry.dueAt = Math.min(entry.dueAt, now() + CLAIM_RETRY_MS);
          return;
        }
        counters.completed += 1;
        counters.probes += result.probes;
        lastCycleAt = result.at;
        opts.onCycle?.(result);
      })
      .catch((err: unknown) => {
        if (err instanceof CycleAbandonedError) counters.abandoned += 1;
        else if (err instanceof Error && err.name === 'NotFoundError') schedule.delete(entry.id);
        else {
          counters.failed += 1;
          recordCycleFailed();
          lastError = err instanceof Error ? err.message : String(err);
          log(`cycle of ${entry.id} failed: ${lastError}`);
        }
      })
      .finally(() => {
        entry.running = null;
      });
  }

  async function tick(): Promise<void> {
    tickTimer = null;
    if (state !== 'polling') return;
    let t = now();
    try {
      if (t - lastRefresh >= refreshMs) await refreshBalancers(t);
    } catch (err) {
      lastError = err instanceof Error ? err.message : String(err);
      log(`reading the schedule failed: ${lastError}`);
    }
    // The lease may have been lost or the poller stopped while the schedule was read.
    if (state !== 'polling' || tickTimer !== null) return;
    t = now();
    let next = t + refreshMs;
    for (const entry of schedule.values()) {
      // A running entry's dueAt is already its next cycle's, so it still bounds the next tick.
      if (!entry.running && entry.dueAt <= t) startCycle(entry, t);
      next = Math.min(next, entry.dueAt);
    }
    for (const entry of stdioSchedule.values()) {
      if (!entry.running && entry.dueAt <= t) startStdioCycle(entry, t);
      next = Math.min(next, entry.dueAt);
    }
    tickTimer = setTimeout(() => void tick(), Math.max(0, Math.min(next - now(), refreshMs)));
  }

  const stoppingOrStopped = () => state === 'stopping' || state === 'stopped';
  async function onLease(): Promise<void> {
    leaseTimer = null;
    if (stoppingOrStopped()) return;
    const t = now();
    try {
      if (state === 'polling') {
        const renewed = await renewLease(store, holderId, leaseTtlMs, t, lastCycleAt);
        if (stoppingOrStopped()) return;
        if (!renewed) {
          log('lost the poller lease to another poller; pausing');
          state = 'waiting';
          if (tickTimer) clearTimeout(tickTimer);
          tickTimer = null;
        }
      } else {
        const attempt = await acquireLease(store, holderId, leaseTtlMs, t);
        // stop() ran while the lease was being taken: hand it straight back.
        if (stoppingOrStopped()) {
          if (attempt.acquired) await releaseLease(store, holderId);
          return;
        }
        if (attempt.acquired) {
          heldBy = null;
          lastHolderSeen = null;
          state = 'polling';
          checkpointer ??= startCheckpointer(store, 1_000, log);
          flusher ??= startMetricFlusher(store, 1_000, log);
          log(`holding the poller lease as ${holderId}`);
          void tick();
        } else {
          heldBy = attempt.heldBy;
          if (lastHolderSeen !== attempt.heldBy.holder) {
            lastHolderSeen = attempt.heldBy.holder;
            log(`another poller holds the lease: ${describeHolder(attempt.heldBy, t)}; waiting`);
          }
        }
      }
    } catch (err) {
      lastError = err instanceof Error ? err.message : String(err);
      log(`lease check failed: ${lastError}`);
    }
    if (!stoppingOrStopped()) leaseTimer = setTimeout(() => void onLease(), leaseRenewMs);
  }

  // On a hard exit (the web server's own signal handling calls process.exit) the lease is released
  // synchronously; an unfinished cycle simply never writes.
  const releaseOnExit = () => {
    if (state === 'polling') {
      // Synchronous where the engine allows it; otherwise the lease expires on its own.
      releaseLeaseAtExit(store, holderId);
    }
  };
  process.once('exit', releaseOnExit);

  void onLease();

  let stopping: Promise<void> | null = null;
  const handle: PollerHandle = {
    stop() {
      stopping ??= (async () => {
        const wasPolling = state === 'polling';
        state = 'stopping';
        process.removeListener('exit', releaseOnExit);
        if (tickTimer) clearTimeout(tickTimer);
        if (leaseTimer) clearTimeout(leaseTimer);
        const inFlight = [...schedule.values(), ...stdioSchedule.values()].flatMap((e) =>
          e.running ? [e.running] : [],
        );
        if (inFlight.length > 0) {
          let timer: NodeJS.Timeout | undefined;
          const grace = new Promise<void>((r) => {
            timer = setTimeout(r, stopGraceMs);
          });
          await Promise.race([Promise.all(inFlight), grace]);
          clearTimeout(timer);
          abort.abort();
          // An abandoned stdio probe ends its process on the abort; wait (bounded) until it has exited.
          const stdioInFlight = [...stdioSchedule.values()].flatMap((e) => (e.running ? [e.running] : []));
          if (stdioInFlight.length > 0) {
            await Promise.race([
              Promise.allSettled(stdioInFlight),
              new Promise<void>((r) => setTimeout(r, 5_000).unref()),
            ]);
          }
        }
        abort.abort();
        if (wasPolling || (await readLease(store).catch(() => null))?.holder === holderId) {
          try {
            await releaseLease(store, holderId);
          } catch (err) {
            log(`could not release the lease: ${err instanceof Error ? err.message : String(err)}`);
          }
        }
        await checkpointer?.stop();
        checkpointer = null;
        await flusher?.stop();
        flusher = null;
        if (!opts.probe) await closeDefaultProbe();
        state = 'stopped';
      })();
      return stopping;
    },
    status() {
      const t = now();
      return {
        state,
        holderId,
        leaseHeld: state === 'polling',
        heldBy,
        balancers: schedule.size,
        stdioTargets: stdioSchedule.size,
        cyclesCompleted: counters.completed,
        cyclesFailed: counters.failed,
        cyclesAbandoned: counters.abandoned,
        cyclesRunning: [...schedule.values(), ...stdioSchedule.values()].filter((e) => e.running !== null)
          .length,
        probes: counters.probes,
        lastCycleAt,
        lastCycleAgeMs: lastCycleAt === null ? null : t - lastCycleAt,
        lastError,
        lag: summarizeLag(lags, lagCount),
      };
    },
  };
  return handle;
}
