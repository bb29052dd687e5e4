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
import { closeDefaultProbe, createDefaultProbe, resolveAllAddresses } from './default-probe';
import { createPollerEvents, type PollerEvents } from './events';
import { LeaseKeeper } from './lease-renewal';
import { createLimiter } from './limiter';
import { Schedule } from './schedule';
import { PollerCounters, type PollerStatus } from './status';
import { createStdioProbe, type StdioProbeFn } from './stdio-cycle';
import type { Clock, ProbeFn, ResolveFn } from './types';
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

export function startPollerWith(opts: PollerOptions): PollerHandle {
  const { store, settings } = opts;
  const now = opts.now ?? Date.now;
  const concurrency = settings.pollerConcurrency;
  const leaseTtlMs = settings.pollLeaseTtlMs;
  const leaseRenewMs = opts.leaseRenewMs ?? Math.max(100, Math.floor(leaseTtlMs / 3));
  const refreshMs = opts.refreshMs ?? 5_000;
  const stopGraceMs = opts.stopGraceMs ?? 10_000;
  const holderId = opts.holderId ?? `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const me: UnitClaimant = {
    holder: holderId,
    pid: process.pid,
    hostname: os.hostname(),
    region: settings.region,
  };
  const log = opts.log ?? ((line: string) => process.stdout.write(`[poller] ${line}\n`));
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

  const cycleDeps: UnitCycleDeps = {
    store,
    me,
    probe: opts.probe ?? createDefaultProbe(settings),
    stdioProbe: opts.stdioProbe ?? createStdioProbe(),
    resolve: opts.resolve ?? resolveAllAddresses,
    now,
    variables: settings.environment,
    limiter,
    leases,
    leaseTtlMs,
    refreshMs,
    signal: abort.signal,
    events,
    counters,
    capacityChanged: () => loop.capacityChanged(),
    log,
  };

  function startUnit(unit: ClaimedUnit, claimedAt: number, sentAt: number): void {
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
    const entry = schedule.entry(unit.kind, unit.unitId);
    if (!entry) {
      // Registered (or asked for) after our last read of the schedule: hand it back and read the schedule.
      h.running = handBackUnit(cycleDeps, unit, claimedAt, { attempted: false, stored: null }).finally(() => {
        held.delete(key);
        loop.wake();
      });
      schedule.expire();
      return;
    }
    h.running = runUnitCycle(h, entry, claimedAt, cycleDeps).finally(() => {
      held.delete(key);
      loop.wake();
    });
  }

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
  return {
    events,
    wake: () => loop.wake(),
    stop() {
      stopping ??= (async () => {
        state = 'stopping';
        process.removeListener('exit', releaseOnExit);
        await loop.stop();
        await leases.stop();
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
        if (!opts.probe) await closeDefaultProbe();
        state = 'stopped';
      })();
      return stopping;
    },
    status() {
      const running = held.size;
      return {
        state,
        holderId,
        region: me.region,
        unitsHeld: running,
        cyclesFenced: counters.fenced,
        balancers: schedule.balancerCount,
        stdioTargets: schedule.stdioCount,
        cyclesCompleted: counters.completed,
        cyclesFailed: counters.failed,
        cyclesAbandoned: counters.abandoned,
        cyclesRunning: running,
        probes: counters.probes,
        lastCycleAt: counters.lastCycleAt,
        lastCycleAgeMs: counters.lastCycleAt === null ? null : now() - counters.lastCycleAt,
        lastError: counters.lastError,
        lag: counters.lag(),
      };
    },
  };
}
