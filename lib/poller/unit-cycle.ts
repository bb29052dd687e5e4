// The unit cycle: one claimed unit's turn, from claim to hand-back. A balancer's cycle plans, probes, analyses
// and writes once (balancer-cycle.ts); a stdio target's launches, probes and writes (stdio-cycle.ts). Either way
// the write is fenced by the unit's token, no probe starts once the lease may have lapsed, and the unit goes
// back due at its next phase slot (or at once when a cycle was asked of it meanwhile). Which cycle a unit's kind
// runs is chosen in one place, SUBJECT_CYCLES.
import type { Store } from '@/db';
import {
  releaseUnit,
  unitFenceHolds,
  type ClaimedUnit,
  type UnitClaimant,
  type UnitKind,
  type UnitTurn,
} from '@/db/queries/units';
import type { Env } from '@/lib/settings';
import {
  runCycle,
  CycleAbandonedError,
  CycleFencedError,
  type CycleDeps,
  type Fence,
} from './balancer-cycle';
import type { PollerEvents } from './events';
import type { LeaseKeeper, LeasedUnit } from './lease-renewal';
import type { Limiter } from './limiter';
import { followingDue, type Scheduled } from './schedule';
import { runStdioCycle, type StdioProbeFn } from './stdio-cycle';
import type { PollerCounters } from './status';
import type { Clock, ProbeFn, ResolveFn, ReverseFn } from './types';

/** A unit this worker holds while its cycle runs. */
export interface HeldUnit extends LeasedUnit {
  running: Promise<void>;
  /** The cycle has asked the limiter for its first probe (until then it still reads and plans). */
  probing: boolean;
}

export interface UnitCycleDeps {
  store: Store;
  me: UnitClaimant;
  probe: ProbeFn;
  stdioProbe: StdioProbeFn;
  resolve: ResolveFn;
  /** DNS nodes' reverse names; none looked up without it. */
  reverse?: ReverseFn;
  now: Clock;
  variables: Env;
  limiter: Limiter;
  leases: LeaseKeeper;
  leaseTtlMs: number;
  refreshMs: number;
  signal: AbortSignal;
  events: PollerEvents;
  counters: PollerCounters;
  /** Called when the cycle first asks for a probe slot, and whenever a probe ends. */
  capacityChanged: () => void;
  log: (line: string) => void;
}

/** The cycle's probes stopped because its lease may have lapsed: it writes nothing, like a fenced one. */
class LeaseLapsedError extends Error {
  override readonly name = 'LeaseLapsedError';
}

/** What one subject's cycle reports to the unit's turn. */
interface SubjectOutcome {
  at: number;
  probes: number;
  /** False when nothing was stored (a stdio target's command changed while it was probed). */
  stored: boolean;
}

/** What every subject kind's cycle is given: the unit's limiter, fence, region and clock. */
type CommonCycleDeps = Omit<CycleDeps, 'probe' | 'resolve' | 'reverse' | 'variables'>;

/**
 * The one place a subject kind's cycle is chosen: its prober and how its results are reported. A new kind of
 * subject adds an entry here and nowhere else in the poll role.
 */
const SUBJECT_CYCLES: Record<
  UnitKind,
  (id: string, common: CommonCycleDeps, deps: UnitCycleDeps) => Promise<SubjectOutcome>
> = {
  balancer: async (id, common, deps) => {
    const r = await runCycle(deps.store, id, {
      ...common,
      probe: async (target, options) => {
        const verdict = await deps.probe(target, options);
        deps.events.emit('probe', verdict);
        return verdict;
      },
      resolve: deps.resolve,
      reverse: deps.reverse,
      variables: deps.variables,
    });
    deps.events.emit('cycle', r);
    return { at: r.at, probes: r.probes, stored: true };
  },
  stdio: async (id, common, deps) => {
    const r = await runStdioCycle(deps.store, id, { ...common, probe: deps.stdioProbe });
    deps.events.emit('probe', r.verdict);
    deps.events.emit('stdioCycle', r);
    return { at: r.at, probes: 1, stored: r.stored };
  },
};

/** The global limiter as the held unit's cycle sees it: no probe starts once its lease may have lapsed. */
function leasedLimiter(h: HeldUnit, deps: UnitCycleDeps): Limiter {
  const { unit } = h;
  return {
    run(task) {
      if (!h.probing) {
        h.probing = true;
        deps.capacityChanged();
      }
      return deps.limiter
        .run(() => {
          if (!deps.leases.mayProbe(h))
            throw new LeaseLapsedError(`the lease of ${unit.kind} ${unit.unitId} may have lapsed`);
          return task();
        })
        .finally(deps.capacityChanged);
    },
    get active() {
      return deps.limiter.active;
    },
    get waiting() {
      return deps.limiter.waiting;
    },
  };
}

/** The unit's fence: its token still holds (and, asked with `extend`, its lease is extended). */
function unitFence(h: HeldUnit, deps: UnitCycleDeps): Fence {
  const { store, me } = deps;
  return (extend) =>
    h.lost
      ? Promise.resolve(false)
      : store.write((tx) =>
          unitFenceHolds(store, tx, h.unit, me.region, me.holder, extend ? deps.leaseTtlMs : undefined),
        );
}

/** Runs the held unit's cycle and hands it back; never throws (failures are counted and logged). */
export async function runUnitCycle(
  h: HeldUnit,
  entry: Scheduled,
  claimedAt: number,
  deps: UnitCycleDeps,
): Promise<void> {
  const { unit } = h;
  const { now, events, counters } = deps;
  const common: CommonCycleDeps = {
    now,
    limiter: leasedLimiter(h, deps),
    dueAt: unit.dueAt,
    onProbeStart: (lagMs: number) => {
      counters.recordLag(lagMs);
      events.emit('probeStart', lagMs);
    },
    signal: deps.signal,
    fence: unitFence(h, deps),
    region: deps.me.region,
  };
  let result: SubjectOutcome;
  try {
    result = await SUBJECT_CYCLES[unit.kind](unit.unitId, common, deps);
  } catch (err) {
    await handBackAfterFailure(deps, unit, entry, claimedAt, err);
    return;
  }
  counters.completed += 1;
  counters.probes += result.probes;
  counters.lastCycleAt = result.at;
  await handBackUnit(deps, unit, followingDue(entry, unit.dueAt, claimedAt), {
    attempted: true,
    stored: result.stored ? { at: result.at, probes: result.probes } : null,
  });
}

/** A cycle that did not finish: count it, say why, and hand the unit back due when its kind of failure says. */
async function handBackAfterFailure(
  deps: UnitCycleDeps,
  unit: ClaimedUnit,
  entry: Scheduled,
  claimedAt: number,
  err: unknown,
): Promise<void> {
  const { counters, events } = deps;
  const handBack = (dueAt: number, turn: UnitTurn) => handBackUnit(deps, unit, dueAt, turn);
  if (err instanceof CycleFencedError || err instanceof LeaseLapsedError) {
    counters.fenced += 1;
    events.emit('cycleFenced', unit);
    deps.log(`${err.message} (token ${unit.token}); nothing was written`);
    // Taken over, or about to be: hand back only if still ours (the token decides), due as it was.
    await handBack(unit.dueAt, { attempted: false, stored: null });
  } else if (err instanceof CycleAbandonedError) {
    counters.abandoned += 1;
    // Stopping: leave it due as it was, so another worker takes it at once.
    await handBack(unit.dueAt, { attempted: false, stored: null });
  } else if (err instanceof Error && err.name === 'NotFoundError') {
    await handBack(claimedAt + deps.refreshMs, { attempted: true, stored: null });
  } else {
    counters.failed += 1;
    const message = err instanceof Error ? err.message : String(err);
    counters.lastError = message;
    events.emit('cycleFailed', unit, message);
    deps.log(`cycle of ${unit.kind} ${unit.unitId} failed: ${message}`);
    await handBack(followingDue(entry, unit.dueAt, claimedAt), { attempted: true, stored: null });
  }
}

/** Hands the unit back due at `dueAt` (no-op when it was taken over), logging a failure rather than throwing. */
export async function handBackUnit(
  deps: Pick<UnitCycleDeps, 'store' | 'me' | 'now' | 'counters' | 'log'>,
  unit: ClaimedUnit,
  dueAt: number,
  turn: UnitTurn,
): Promise<void> {
  try {
    await releaseUnit(deps.store, deps.me, unit, dueAt, turn, deps.now());
  } catch (err) {
    deps.counters.lastError = err instanceof Error ? err.message : String(err);
    deps.log(`handing back ${unit.kind} ${unit.unitId} failed: ${deps.counters.lastError}`);
  }
}
