// The poll role: claims due units (a balancer or stdio target in this worker's region) from the store in
// batches, runs their cycles under one global concurrency cap, renews the claims while they run and hands each
// unit back due at its next phase slot, so any number of workers share the fleet. Retention is maintain's.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Store } from '@/db';
import {
  runCycle,
  runExclusive,
  CycleAbandonedError,
  CycleFencedError,
  type CycleResult,
  type Fence,
} from './cycle';
import { holderGoneOnThisHost } from './lease';
import { listScheduledSubjects } from '@/db/queries/subjects';
import {
  claimDueUnits,
  heartbeatPollWorker,
  nextDueAt,
  releaseAllUnits,
  releaseUnit,
  releaseUnitsAtExit,
  removePollWorker,
  renewUnits,
  syncUnits,
  unitFenceHolds,
  unitHoldersOnHost,
  type ClaimedUnit,
  type UnitClaimant,
  type UnitKind,
} from '@/db/queries/units';
import { startCheckpointer, type Checkpointer } from '@/db/checkpoints';
import { createLimiter, type Limiter } from './limiter';
import { closeDefaultProbe, createDefaultProbe, resolveAllAddresses } from './probe';
import { instrumentProbe } from '@/lib/metrics/probe';
import {
  recordCycleFailed,
  recordCycleFenced,
  startMetricFlusher,
  type MetricFlusher,
} from '@/lib/metrics/stored';
import { balancerSubject } from './claim-names';
import { newClaimHolder, withSubjectClaim } from './claim';
import { renewHolderClaims } from '@/db/queries/claims';
import { regionProbes } from './regions';
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
  /** The region this worker polls (default ERAWATCH_REGION or `default`). */
  region?: string;
  /** How long a unit claim lasts without renewal (default ERAWATCH_POLL_LEASE_TTL_MS or 15 s). */
  leaseTtlMs?: number;
  leaseRenewMs?: number;
  /** Most units this worker holds at once (default: the concurrency). */
  maxUnits?: number;
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
  region: string;
  /** Units whose cycles run here now (each under a claim in the store). */
  unitsHeld: number;
  /** Cycles whose results were refused because another worker took their unit over. */
  cyclesFenced: number;
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
const CLAIM_BATCH = 64;

function leaseTtlFromEnv(env: Record<string, string | undefined>): number {
  const raw = env.ERAWATCH_POLL_LEASE_TTL_MS;
  if (raw === undefined || raw.trim() === '') return 15_000;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1_000 || n > 15_000) {
    throw new RangeError(`ERAWATCH_POLL_LEASE_TTL_MS must be an integer from 1000 to 15000, got '${raw}'`);
  }
  return n;
}

interface Scheduled {
  id: string;
  intervalMs: number;
  /** Where in each interval this subject's cycles start (see assignPhases). */
  phaseMs: number;
}

interface Held {
  unit: ClaimedUnit;
  running: Promise<void>;
  /** Another worker took the unit over: whatever the cycle still does, it writes nothing. */
  lost: boolean;
  /** The cycle has asked the limiter for its first probe (until then it still reads and plans). */
  probing: boolean;
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

const unitKey = (kind: UnitKind, id: string) => `${kind === 'balancer' ? 'b' : 's'}:${id}`;

export function startPollerWith(opts: PollerOptions): PollerHandle {
  const env = opts.env ?? process.env;
  const store = opts.store;
  const now = opts.now ?? Date.now;
  // Every probe lands in the stored probe series, whichever process runs the poll role.
  const probe = instrumentProbe(opts.probe ?? createDefaultProbe(process.env));
  const claimHolder = newClaimHolder('poll');
  const stdioProbe = opts.stdioProbe ?? createStdioProbe();
  const resolve = opts.resolve ?? resolveAllAddresses;
  const concurrency = opts.concurrency ?? concurrencyFromEnv(env);
  const limiter = createLimiter(concurrency);
  // Probes per finished cycle, on average: what a unit claimed next is expected to ask of the limiter. Until a
  // cycle has finished, a unit is taken to fill the limiter on its own, so a start claims one unit at a time.
  const perUnit = { cycles: 0, probes: 0 };
  const expectedProbes = () => (perUnit.cycles === 0 ? concurrency : perUnit.probes / perUnit.cycles);
  const maxUnits = opts.maxUnits ?? concurrency;
  const leaseTtlMs = opts.leaseTtlMs ?? leaseTtlFromEnv(env);
  const leaseRenewMs = opts.leaseRenewMs ?? Math.max(100, Math.floor(leaseTtlMs / 3));
  const refreshMs = opts.refreshMs ?? 5_000;
  const stopGraceMs = opts.stopGraceMs ?? 10_000;
  const holderId = opts.holderId ?? `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const region = opts.region ?? (env.ERAWATCH_REGION?.trim() || 'default');
  const me: UnitClaimant = { holder: holderId, pid: process.pid, hostname: os.hostname(), region };
  const log = opts.log ?? ((line: string) => process.stdout.write(`[poller] ${line}\n`));

  let state: PollerStatus['state'] = 'waiting';
  const abort = new AbortController();
  const schedule = new Map<string, Scheduled>();
  const stdioSchedule = new Map<string, Scheduled>();
  const held = new Map<string, Held>();
  let startedPolling = false;
  let tickTimer: NodeJS.Timeout | null = null;
  let ticking: Promise<void> | null = null;
  /** Asked to tick while one ran: tick again once it ends. */
  let wakeAgain = false;
  /** The last tick left due units unclaimed because this worker's probes are all taken: wake when they free. */
  let waitingForCapacity = false;
  let renewTimer: NodeJS.Timeout | null = null;
  let lastRefresh = -Infinity;
  let lastCycleAt: number | null = null;
  let lastError: string | null = null;
  const checkpointer: Checkpointer | null = startCheckpointer(store, 1_000, log);
  const flusher: MetricFlusher = startMetricFlusher(store, 1_000, log);
  const counters = { completed: 0, failed: 0, abandoned: 0, fenced: 0, probes: 0 };
  const lags = new Float64Array(LAG_WINDOW);
  let lagCount = 0;

  const recordLag = (lagMs: number) => {
    lags[lagCount % LAG_WINDOW] = lagMs;
    lagCount += 1;
    opts.onProbeStart?.(lagMs);
  };
  const stoppingOrStopped = () => state === 'stopping' || state === 'stopped';
  const noteError = (what: string, err: unknown) => {
    lastError = err instanceof Error ? err.message : String(err);
    log(`${what} failed: ${lastError}`);
  };

  async function refreshSubjects(t: number): Promise<void> {
    const { balancers, stdioTargets: stdio } = await listScheduledSubjects(store);
    // Balancers and stdio targets share the probe cap, so they share one spread; every worker computes the
    // same phases from the same list.
    const phases = assignPhases([
      ...balancers.map((r) => ({ key: `b:${r.id}`, intervalMs: r.intervalMs })),
      ...stdio.map((r) => ({ key: `s:${r.id}`, intervalMs: r.intervalMs })),
    ]);
    const fill = (
      entries: Map<string, Scheduled>,
      rows: ReadonlyArray<{ id: string; intervalMs: number }>,
      p: string,
    ) => {
      entries.clear();
      for (const r of rows)
        entries.set(r.id, { id: r.id, intervalMs: r.intervalMs, phaseMs: phases.get(`${p}:${r.id}`) ?? 0 });
    };
    // A subject that lists regions gets units only in those: other regions' workers never claim it.
    fill(
      schedule,
      balancers.filter((b) => regionProbes(b.regions, region)),
      'b',
    );
    fill(
      stdioSchedule,
      stdio.filter((t) => regionProbes(t.regions, region)),
      's',
    );
    // A unit new to the store waits for its phase when the poll role starts; one registered later is due now.
    const dueOf = (e: Scheduled) => (startedPolling ? t : nextSlot(t, e.intervalMs, e.phaseMs));
    await syncUnits(store, region, [
      ...[...schedule.values()].map((e) => ({ kind: 'balancer' as const, unitId: e.id, dueAt: dueOf(e) })),
      ...[...stdioSchedule.values()].map((e) => ({ kind: 'stdio' as const, unitId: e.id, dueAt: dueOf(e) })),
    ]);
    startedPolling = true;
    lastRefresh = t;
  }

  /** Hands the unit back due at `dueAt` (no-op when it was taken over), logging a failure rather than throwing. */
  async function handBack(h: Held, dueAt: number, cycleAt: number | null): Promise<void> {
    try {
      await releaseUnit(store, me, h.unit, dueAt, cycleAt);
    } catch (err) {
      noteError(`handing back ${h.unit.kind} ${h.unit.unitId}`, err);
    }
  }

  function settle(
    h: Held,
    entry: Scheduled,
    at: number,
    outcome: Promise<{ at: number; probes: number } | null>,
  ) {
    return outcome
      .then(async (result) => {
        if (result === null) {
          // A probe-now holds the balancer in some process: try again shortly rather than probe beside it.
          await handBack(h, at + CLAIM_RETRY_MS, null);
          return;
        }
        counters.completed += 1;
        counters.probes += result.probes;
        perUnit.cycles += 1;
        perUnit.probes += result.probes;
        lastCycleAt = result.at;
        await handBack(h, followingDue(entry, h.unit.dueAt, at), result.at);
      })
      .catch(async (err: unknown) => {
        if (err instanceof CycleFencedError) {
          counters.fenced += 1;
          recordCycleFenced();
          log(`${err.message} (token ${h.unit.token}); nothing was written`);
        } else if (err instanceof CycleAbandonedError) {
          counters.abandoned += 1;
          // Stopping: leave it due as it was, so another worker takes it at once.
          await handBack(h, h.unit.dueAt, null);
        } else if (err instanceof Error && err.name === 'NotFoundError') {
          await handBack(h, at + refreshMs, null);
        } else {
          counters.failed += 1;
          recordCycleFailed();
          noteError(`cycle of ${h.unit.kind} ${h.unit.unitId}`, err);
          await handBack(h, followingDue(entry, h.unit.dueAt, at), null);
        }
      });
  }

  function startUnit(unit: ClaimedUnit, at: number): void {
    const key = unitKey(unit.kind, unit.unitId);
    const entry = unit.kind === 'balancer' ? schedule.get(unit.unitId) : stdioSchedule.get(unit.unitId);
    const h: Held = { unit, running: Promise.resolve(), lost: false, probing: false };
    held.set(key, h);
    const unitLimiter: Limiter = {
      run(task) {
        if (!h.probing) {
          h.probing = true;
          capacityChanged();
        }
        return limiter.run(task).finally(capacityChanged);
      },
      get active() {
        return limiter.active;
      },
      get waiting() {
        return limiter.waiting;
      },
    };
    const fence: Fence = (extend) =>
      h.lost
        ? Promise.resolve(false)
        : store.write((tx) =>
            unitFenceHolds(store, tx, unit, region, holderId, extend ? leaseTtlMs : undefined),
          );
    if (!entry) {
      // Registered after our last read of the schedule: hand it back for a worker that knows it.
      h.running = handBack(h, at, null).finally(() => held.delete(key));
      lastRefresh = -Infinity;
      return;
    }
    const cycle =
      unit.kind === 'balancer'
        ? withSubjectClaim(
            store,
            balancerSubject(unit.unitId),
            claimHolder,
            () =>
              runExclusive(unit.unitId, () =>
                runCycle(store, unit.unitId, {
                  probe,
                  resolve,
                  now,
                  env,
                  limiter: unitLimiter,
                  dueAt: unit.dueAt,
                  onProbeStart: recordLag,
                  signal: abort.signal,
                  fence,
                  region,
                }),
              ),
            // A stopped or dead holder's claim then blocks the unit's new holder no longer than its lease;
            // renew() extends all of this worker's claims with its units.
            { now, ttlMs: leaseTtlMs, renewMs: null },
          ).then((r) => {
            if (r) opts.onCycle?.(r);
            return r;
          })
        : runStdioCycle(store, unit.unitId, {
            probe: stdioProbe,
            now,
            limiter: unitLimiter,
            dueAt: unit.dueAt,
            onProbeStart: recordLag,
            signal: abort.signal,
            fence,
          }).then((r) => {
            opts.onStdioCycle?.(r);
            return { at: r.at, probes: 1 };
          });
    h.running = settle(h, entry, at, cycle).finally(() => {
      held.delete(key);
      wake();
    });
  }

  /**
   * How many more units to claim now: none while probes wait for the limiter or a claimed unit is still
   * planning its probes, else as many as the idle probe slots are expected to serve (at least one). A worker
   * short of CPU or store thus holds only what it is finishing, and leaves the rest due for other workers.
   */
  function claimRoom(): number {
    if (limiter.waiting > 0) return 0;
    const planning = [...held.values()].filter((h) => !h.probing).length;
    const expected = Math.max(1, expectedProbes());
    const room = concurrency - limiter.active - planning * expected;
    return room <= 0 ? 0 : Math.max(1, Math.floor(room / expected));
  }

  function capacityChanged(): void {
    if (waitingForCapacity && claimRoom() > 0) {
      waitingForCapacity = false;
      wake();
    }
  }

  /** Claims what is due (up to the free capacity), starts it, and sleeps until the next unit falls due. */
  async function tick(): Promise<void> {
    if (stoppingOrStopped()) return;
    let sleepMs = refreshMs;
    try {
      const t = now();
      if (t - lastRefresh >= refreshMs) await refreshSubjects(t);
      if (state === 'waiting') {
        state = 'polling';
        log(`polling region ${region} as ${holderId}`);
      }
      const here = await unitHoldersOnHost(store, me.hostname, holderId, now());
      const goneHolders = here
        .filter((h) => holderGoneOnThisHost({ hostname: me.hostname, pid: h.pid }))
        .map((h) => h.holder);
      const free = Math.max(0, maxUnits - held.size);
      const room = claimRoom();
      const limit = Math.min(CLAIM_BATCH, free, room);
      const claim = await claimDueUnits(store, me, {
        limit,
        ttlMs: leaseTtlMs,
        now: now(),
        goneHolders,
      });
      if (stoppingOrStopped()) {
        for (const unit of claim.units) await releaseUnit(store, me, unit, unit.dueAt, null);
        return;
      }
      for (const unit of claim.units) startUnit(unit, claim.at);
      if (claim.units.length === limit && limit > 0) sleepMs = 0;
      else {
        // Due times are in the store's clock; expired leases of others are looked at every renewal period.
        const due = await nextDueAt(store, region, now());
        sleepMs = Math.min(sleepMs, leaseRenewMs, due === null ? Infinity : Math.max(0, due - claim.at));
        if (free === 0) sleepMs = Math.max(sleepMs, CLAIM_RETRY_MS);
        else if (room > 0 && due !== null && due <= claim.at) {
          // What is due but was not claimed is locked by a write still open (or another worker's claim).
          sleepMs = Math.max(sleepMs, CLAIM_RETRY_MS);
        } else if (room === 0 && due !== null && due <= claim.at) {
          // Due work left for later: a freed probe slot or a finished cycle wakes the next tick.
          waitingForCapacity = true;
          sleepMs = leaseRenewMs;
        }
      }
    } catch (err) {
      noteError('claiming units', err);
      sleepMs = CLAIM_RETRY_MS;
    }
    if (wakeAgain) {
      wakeAgain = false;
      sleepMs = 0;
    }
    if (!stoppingOrStopped()) tickTimer = setTimeout(wake, Math.min(sleepMs, refreshMs));
  }

  /** Runs a tick now; while one is running, it runs again as soon as that one ends. */
  function wake(): void {
    if (stoppingOrStopped()) return;
    if (ticking) {
      wakeAgain = true;
      return;
    }
    if (tickTimer) clearTimeout(tickTimer);
    tickTimer = null;
    ticking = tick().finally(() => {
      ticking = null;
    });
  }

  let renewing: Promise<void> = Promise.resolve();
  const renewSoon = () => {
    renewTimer = setTimeout(() => {
      renewing = renew();
    }, leaseRenewMs);
  };

  async function renew(): Promise<void> {
    renewTimer = null;
    if (stoppingOrStopped()) return;
    try {
      const mine = [...held.values()].filter((h) => !h.lost);
      // One transaction on the lease connection: the units, the subject claims of their cycles, the presence.
      const lost = await store.lease(async () => {
        const gone = await renewUnits(
          store,
          me,
          mine.map((h) => h.unit),
          leaseTtlMs,
          now(),
        );
        await renewHolderClaims(store, claimHolder, leaseTtlMs, now());
        await heartbeatPollWorker(store, me, leaseTtlMs, now(), held.size, lastCycleAt);
        return gone;
      });
      for (const unit of lost) {
        const h = held.get(unitKey(unit.kind, unit.unitId));
        if (h) h.lost = true;
        log(`${unit.kind} ${unit.unitId} was taken over by another worker (our token ${unit.token})`);
      }
    } catch (err) {
      noteError('renewing unit claims', err);
    }
    if (!stoppingOrStopped()) renewSoon();
  }

  // On a hard exit (the web server's own signal handling calls process.exit) the units are handed back
  // synchronously where the engine allows it; an unfinished cycle simply never writes.
  const releaseOnExit = () => releaseUnitsAtExit(store, holderId);
  process.once('exit', releaseOnExit);

  void heartbeatPollWorker(store, me, leaseTtlMs, now(), 0, null).catch((err: unknown) =>
    noteError('registering the poll worker', err),
  );
  renewSoon();
  wake();

  let stopping: Promise<void> | null = null;
  const handle: PollerHandle = {
    stop() {
      stopping ??= (async () => {
        state = 'stopping';
        process.removeListener('exit', releaseOnExit);
        if (tickTimer) clearTimeout(tickTimer);
        if (renewTimer) clearTimeout(renewTimer);
        await ticking;
        // A renewal under way would otherwise write the presence row back after it is removed.
        await renewing;
        const inFlight = [...held.values()].map((h) => h.running);
        if (inFlight.length > 0) {
          let timer: NodeJS.Timeout | undefined;
          const grace = new Promise<void>((r) => {
            timer = setTimeout(r, stopGraceMs);
          });
          await Promise.race([Promise.all(inFlight), grace]);
          clearTimeout(timer);
          abort.abort();
          // An abandoned probe ends on the abort (a stdio one ends its process); wait (bounded) for it.
          await Promise.race([
            Promise.allSettled(inFlight),
            new Promise<void>((r) => setTimeout(r, 5_000).unref()),
          ]);
        }
        abort.abort();
        try {
          await releaseAllUnits(store, holderId);
          await removePollWorker(store, holderId);
        } catch (err) {
          log(`could not hand back the units: ${err instanceof Error ? err.message : String(err)}`);
        }
        await checkpointer?.stop();
        await flusher.stop();
        if (!opts.probe) await closeDefaultProbe();
        state = 'stopped';
      })();
      return stopping;
    },
    status() {
      const t = now();
      const running = [...held.values()];
      return {
        state,
        holderId,
        region,
        unitsHeld: running.length,
        cyclesFenced: counters.fenced,
        balancers: schedule.size,
        stdioTargets: stdioSchedule.size,
        cyclesCompleted: counters.completed,
        cyclesFailed: counters.failed,
        cyclesAbandoned: counters.abandoned,
        cyclesRunning: running.length,
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
