// The poll role, made of its parts: the schedule (what this region polls and when each unit is due), the claim
// loop (claims due units within the free probe slots), lease renewal (keeps the held units' leases and the
// worker's presence), the unit cycle (plan, probe, analyse, one fenced write, hand back) and status. Any
// number of workers share the fleet through the units' leases; retention is the maintain role's.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Store } from '@/db';
import { startCheckpointer, type Checkpointer } from '@/db/checkpoints';
import {
  releaseAllUnits,
  releaseUnitsAtExit,
  removePollWorker,
  type ClaimedUnit,
  type UnitClaimant,
  type UnitKind,
} from '@/db/queries/units';
import type { Settings } from '@/lib/settings';
import { ClaimLoop } from './claim-loop';
import {
  closeDefaultProbe,
  createDefaultProbe,
  defaultReverseNames,
  resolveAllAddresses,
} from './default-probe';
import { createPollerEvents, type PollerEvents } from './events';
import { LeaseKeeper } from './lease-renewal';
import { createLimiter } from './limiter';
import { Schedule } from './schedule';
import { PollerCounters, type PollerStatus } from './status';
import { createStdioProbe, type StdioProbeFn } from './stdio-cycle';
import type { Clock, ProbeFn, ResolveFn, ReverseFn } from './types';
import { handBackUnit, runUnitCycle, type HeldUnit, type UnitCycleDeps } from './unit-cycle';

export type { LagSummary, PollerStatus } from './status';

export interface PollerOptions {
  store: Store;
  /** The region, concurrency, lease TTL, egress and source address; and the variables `env:NAME` names. */
  settings: Settings;
  probe?: ProbeFn;
  /** Probes one stdio target (default: launch its command, probe, end the process). */
  stdioProbe?: StdioProbeFn;
  resolve?: ResolveFn;
  /** DNS nodes' reverse names (default: the system's, bounded and cached). */
  reverse?: ReverseFn;
  now?: Clock;
  leaseRenewMs?: number;
  /** Most units this worker holds at once (default: the concurrency). */
  maxUnits?: number;
  /** How often the balancer list is re-read (default 5 s). */
  refreshMs?: number;
  /** How long stop() lets running cycles finish before abandoning them (default 10 s). */
  stopGraceMs?: number;
  holderId?: string;
  log?: (line: string) => void;
}

export interface PollerHandle {
  stop(): Promise<void>;
  status(): PollerStatus;
  /** Looks for due units now (a cycle was asked of this region in this process). */
  wake(): void;
  /** What the role reports as it works (probes, cycles, failures): the metrics and benchmarks observe these. */
  readonly events: PollerEvents;
}

const unitKey = (kind: UnitKind, id: string) => `${kind === 'balancer' ? 'b' : 's'}:${id}`;

/** The role's timings and identity, from the settings and the options' overrides. */
function roleConfig(opts: PollerOptions) {
  const { settings } = opts;
  const leaseTtlMs = settings.pollLeaseTtlMs;
  const holderId = opts.holderId ?? `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const me: UnitClaimant = {
    holder: holderId,
    pid: process.pid,
    hostname: os.hostname(),
    region: settings.region,
  };
  return {
    now: opts.now ?? Date.now,
    concurrency: settings.pollerConcurrency,
    leaseTtlMs,
    leaseRenewMs: opts.leaseRenewMs ?? Math.max(100, Math.floor(leaseTtlMs / 3)),
    refreshMs: opts.refreshMs ?? 5_000,
    stopGraceMs: opts.stopGraceMs ?? 10_000,
    holderId,
    me,
    log: opts.log ?? ((line: string) => process.stdout.write(`[poller] ${line}\n`)),
  };
}

export function startPollerWith(opts: PollerOptions): PollerHandle {
  const { store, settings } = opts;
  const { now, concurrency, leaseTtlMs, leaseRenewMs, refreshMs, stopGraceMs, holderId, me, log } =
    roleConfig(opts);
  const events = createPollerEvents();
  const counters = new PollerCounters();
  const limiter = createLimiter(concurrency);
  const abort = new AbortController();
  const held = new Map<string, HeldUnit>();
  const schedule = new Schedule(store, me.region);
  let state: PollerStatus['state'] = 'waiting';
  const noteError = (what: string, err: unknown) => {
    counters.lastError = err instanceof Error ? err.message : String(err);
    log(`${what} failed: ${counters.lastError}`);
  };
  const checkpointer: Checkpointer | null = startCheckpointer(store, 1_000, log);

  const leases = new LeaseKeeper({
    store,
    me,
    ttlMs: leaseTtlMs,
    renewMs: leaseRenewMs,
    now,
    held: () => held.values(),
    presence: () => ({ unitsHeld: held.size, lastCycleAt: counters.lastCycleAt }),
    onLost: (unit) =>
      log(`${unit.kind} ${unit.unitId} was taken over by another worker (our token ${unit.token})`),
    onError: noteError,
  });

  const probers = {
    probe: opts.probe ?? createDefaultProbe(settings),
    stdioProbe: opts.stdioProbe ?? createStdioProbe(settings.environment),
    resolve: opts.resolve ?? resolveAllAddresses,
    reverse: opts.reverse ?? defaultReverseNames,
    variables: settings.environment,
  };
  const cycleDeps: UnitCycleDeps = {
    ...{ store, me, now, limiter, leases, leaseTtlMs, refreshMs, events, counters, log, ...probers },
    signal: abort.signal,
    capacityChanged: () => loop.capacityChanged(),
  };

  const startUnit = unitStarter({ held, schedule, cycleDeps, wake: () => loop.wake() });

  const loop = new ClaimLoop({
    store,
    me,
    schedule,
    limiter,
    concurrency,
    maxUnits: opts.maxUnits ?? concurrency,
    leaseTtlMs,
    leaseRenewMs,
    refreshMs,
    now,
    held: () => ({ count: held.size, planning: [...held.values()].filter((h) => !h.probing).length }),
    probesPerCycle: () => (counters.completed === 0 ? null : counters.probes / counters.completed),
    startUnit,
    onPolling: () => {
      if (state === 'waiting') {
        state = 'polling';
        log(`polling region ${me.region} as ${holderId}`);
      }
    },
    onError: noteError,
  });

  // On a hard exit (the web server's own signal handling calls process.exit) the units are handed back
  // synchronously where the engine allows it; an unfinished cycle simply never writes.
  const releaseOnExit = () => releaseUnitsAtExit(store, holderId);
  process.once('exit', releaseOnExit);
  leases.start();
  loop.start();

  let stopping: Promise<void> | null = null;
  const stop = async () => {
    state = 'stopping';
    process.removeListener('exit', releaseOnExit);
    await loop.stop();
    await leases.stop();
    await finishInFlight(
      [...held.values()].map((h) => h.running),
      stopGraceMs,
      abort,
    );
    await handBackAll(store, holderId, log);
    await checkpointer?.stop();
    if (!opts.probe) await closeDefaultProbe();
    state = 'stopped';
  };
  return {
    events,
    wake: () => loop.wake(),
    stop: () => (stopping ??= stop()),
    status: () => statusOf({ state, holderId, me, held, counters, schedule, now }),
  };
}

/** Hands back every unit the worker holds and removes its presence; a failure is logged, not thrown. */
async function handBackAll(store: Store, holderId: string, log: (line: string) => void): Promise<void> {
  try {
    await releaseAllUnits(store, holderId);
    await removePollWorker(store, holderId);
  } catch (err) {
    log(`could not hand back the units: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Lets the cycles in flight finish within the grace, then abandons the rest (the abort stops their probes; a
 * stdio one ends its process) and waits, bounded, for them to settle.
 */
async function finishInFlight(
  inFlight: Promise<void>[],
  graceMs: number,
  abort: AbortController,
): Promise<void> {
  if (inFlight.length > 0) {
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((r) => {
      timer = setTimeout(r, graceMs);
    });
    await Promise.race([Promise.all(inFlight), grace]);
    clearTimeout(timer);
    abort.abort();
    await Promise.race([
      Promise.allSettled(inFlight),
      new Promise<void>((r) => setTimeout(r, 5_000).unref()),
    ]);
  }
  abort.abort();
}

/** The role's status from its parts. */
function statusOf(p: {
  state: PollerStatus['state'];
  holderId: string;
  me: UnitClaimant;
  held: ReadonlyMap<string, HeldUnit>;
  counters: PollerCounters;
  schedule: Schedule;
  now: Clock;
}): PollerStatus {
  const { counters } = p;
  const running = p.held.size;
  return {
    state: p.state,
    holderId: p.holderId,
    region: p.me.region,
    unitsHeld: running,
    cyclesFenced: counters.fenced,
    balancers: p.schedule.balancerCount,
    stdioTargets: p.schedule.stdioCount,
    cyclesCompleted: counters.completed,
    cyclesFailed: counters.failed,
    cyclesAbandoned: counters.abandoned,
    cyclesRunning: running,
    probes: counters.probes,
    lastCycleAt: counters.lastCycleAt,
    lastCycleAgeMs: counters.lastCycleAt === null ? null : p.now() - counters.lastCycleAt,
    lastError: counters.lastError,
    lag: counters.lag(),
  };
}

/** Starts a claimed unit's cycle, held until it ends; a unit the schedule does not know yet is handed back. */
function unitStarter(p: {
  held: Map<string, HeldUnit>;
  schedule: Schedule;
  cycleDeps: UnitCycleDeps;
  wake: () => void;
}): (unit: ClaimedUnit, claimedAt: number, sentAt: number) => void {
  const { held, schedule, cycleDeps } = p;
  return (unit, claimedAt, sentAt) => {
    const key = unitKey(unit.kind, unit.unitId);
    const h: HeldUnit = {
      unit,
      lost: false,
      // The lease runs from the store's time of the claim, which is no earlier than when it was sent.
      leasedAt: sentAt,
      running: Promise.resolve(),
      probing: false,
    };
    held.set(key, h);
    const done = () => {
      held.delete(key);
      p.wake();
    };
    const entry = schedule.entry(unit.kind, unit.unitId);
    if (!entry) {
      // Registered (or asked for) after our last read of the schedule: hand it back and read the schedule.
      h.running = handBackUnit(cycleDeps, unit, claimedAt, { attempted: false, stored: null }).finally(done);
      schedule.expire();
      return;
    }
    h.running = runUnitCycle(h, entry, claimedAt, cycleDeps).finally(done);
  };
}
