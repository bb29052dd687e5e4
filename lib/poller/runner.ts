// The poll role: holds the lease, schedules every balancer on its interval, runs cycles under one global
// concurrency cap and each balancer's claim in the store, and stops cleanly. Retention is the maintain role's.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Store } from '@/db';
import { runCycle, runExclusive, CycleAbandonedError, type CycleResult } from './cycle';
import { acquireLease, describeHolder, readLease, releaseLease, renewLease, type LeaseHolder } from './lease';
import { startCheckpointer, type Checkpointer } from './checkpointer';
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
  random?: () => number;
  env?: Record<string, string | undefined>;
  /** Probes in flight across all balancers (default ERAWATCH_POLLER_CONCURRENCY or 64). */
  concurrency?: number;
  /** Each cycle's due time moves by up to ±jitter/2 × interval (default 0.1). */
  jitter?: number;
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

export function startPollerWith(opts: PollerOptions): PollerHandle {
  const env = opts.env ?? process.env;
  const store = opts.store;
  const now = opts.now ?? Date.now;
  const random = opts.random ?? Math.random;
  // Every probe lands in the stored probe series, whichever process runs the poll role.
  const probe = instrumentProbe(opts.probe ?? createDefaultProbe(process.env));
  const claimHolder = newClaimHolder('poll');
  const stdioProbe = opts.stdioProbe ?? createStdioProbe();
  const resolve = opts.resolve ?? resolveAllAddresses;
  const limiter = createLimiter(opts.concurrency ?? concurrencyFromEnv(env));
  const jitter = opts.jitter ?? 0.1;
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

  function refreshBalancers(t: number): void {
    refreshSchedule(
      schedule,
      store.sqlite.prepare('SELECT id, interval_ms AS intervalMs FROM balancers').all() as Array<{
        id: string;
        intervalMs: number;
      }>,
      t,
    );
    refreshSchedule(
      stdioSchedule,
      store.sqlite.prepare('SELECT id, interval_ms AS intervalMs FROM stdio_targets').all() as Array<{
        id: string;
        intervalMs: number;
      }>,
      t,
    );
    startedPolling = true;
    lastRefresh = t;
  }

  function refreshSchedule(
    entries: Map<string, Scheduled>,
    rows: ReadonlyArray<{ id: string; intervalMs: number }>,
    t: number,
  ): void {
    const seen = new Set<string>();
    for (const r of rows) {
      seen.add(r.id);
      const entry = entries.get(r.id);
      if (entry) entry.intervalMs = r.intervalMs;
      else {
        // At start-up the fleet is spread over one interval; a subject registered later is probed at once.
        const offset = startedPolling ? 0 : Math.floor(random() * r.intervalMs);
        entries.set(r.id, { id: r.id, intervalMs: r.intervalMs, dueAt: t + offset, running: null });
      }
    }
    for (const id of entries.keys()) if (!seen.has(id)) entries.delete(id);
  }

  function startStdioCycle(entry: Scheduled, t: number): void {
    const dueAt = entry.dueAt;
    const spread = (random() - 0.5) * jitter * entry.intervalMs;
    entry.dueAt = Math.max(t, dueAt + entry.intervalMs + spread);
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
    const spread = (random() - 0.5) * jitter * entry.intervalMs;
    entry.dueAt = Math.max(t, dueAt + entry.intervalMs + spread);
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

  function tick(): void {
    tickTimer = null;
    if (state !== 'polling') return;
    const t = now();
    try {
      if (t - lastRefresh >= refreshMs) refreshBalancers(t);
    } catch (err) {
      lastError = err instanceof Error ? err.message : String(err);
      log(`reading the schedule failed: ${lastError}`);
    }
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
    tickTimer = setTimeout(tick, Math.max(0, Math.min(next - now(), refreshMs)));
  }

  function onLease(): void {
    leaseTimer = null;
    if (state === 'stopping' || state === 'stopped') return;
    const t = now();
    try {
      if (state === 'polling') {
        if (!renewLease(store, holderId, leaseTtlMs, t, lastCycleAt)) {
          log('lost the poller lease to another poller; pausing');
          state = 'waiting';
          if (tickTimer) clearTimeout(tickTimer);
          tickTimer = null;
        }
      } else {
        const attempt = acquireLease(store, holderId, leaseTtlMs, t);
        if (attempt.acquired) {
          heldBy = null;
          lastHolderSeen = null;
          state = 'polling';
          checkpointer ??= startCheckpointer(store, 1_000, log);
          flusher ??= startMetricFlusher(store, 1_000, log);
          log(`holding the poller lease as ${holderId}`);
          tick();
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
    leaseTimer = setTimeout(onLease, leaseRenewMs);
  }

  // On a hard exit (the web server's own signal handling calls process.exit) the lease is released
  // synchronously; an unfinished cycle simply never writes.
  const releaseOnExit = () => {
    if (state === 'polling') {
      try {
        releaseLease(store, holderId);
      } catch {
        // The database may already be closed; the lease then expires on its own.
      }
    }
  };
  process.once('exit', releaseOnExit);

  onLease();

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
        if (wasPolling || readLease(store)?.holder === holderId) {
          try {
            releaseLease(store, holderId);
          } catch (err) {
            log(`could not release the lease: ${err instanceof Error ? err.message : String(err)}`);
          }
        }
        await checkpointer?.stop();
        checkpointer = null;
        flusher?.stop();
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
        cyclesRunning: [...schedule.values(), ...stdioSchedule.values()].filter((e) => e.running).length,
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
