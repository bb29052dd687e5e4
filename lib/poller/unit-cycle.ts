// The unit cycle: one claimed unit's turn, from claim to hand-back. A balancer's cycle plans, probes, analyses
// and writes once (balancer-cycle.ts); a stdio target's launches, probes and writes (stdio-cycle.ts). Either way
// the write is fenced by the unit's token, no probe starts once the lease may have lapsed, and the unit goes
// back due at its next phase slot (or at once when a cycle was asked of it meanwhile).
import type { Store } from '@/db';
import {
  releaseUnit,
  unitFenceHolds,
  type ClaimedUnit,
  type UnitClaimant,
  type UnitTurn,
} from '@/db/queries/units';
import type { Env } from '@/lib/settings';
import { runCycle, CycleAbandonedError, CycleFencedError, type Fence } from './balancer-cycle';
import type { PollerEvents } from './events';
import type { LeaseKeeper, LeasedUnit } from './lease-renewal';
import type { Limiter } from './limiter';
import { followingDue, type Scheduled } from './schedule';
import { runStdioCycle, type StdioProbeFn } from './stdio-cycle';
import type { PollerCounters } from './status';
import type { Clock, ProbeFn, ResolveFn } from './types';

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

/** Runs the held unit's cycle and hands it back; never throws (failures are counted and logged). */
export async function runUnitCycle(
  h: HeldUnit,
  entry: Scheduled,
  claimedAt: number,
  deps: UnitCycleDeps,
): Promise<void> {
  const { unit } = h;
  const { store, me, now, events, counters } = deps;
  const limiter: Limiter = {
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
  const fence: Fence = (extend) =>
    h.lost
      ? Promise.resolve(false)
      : store.write((tx) =>
          unitFenceHolds(store, tx, unit, me.region, me.holder, extend ? deps.leaseTtlMs : undefined),
        );
  const common = {
    now,
    limiter,
    dueAt: unit.dueAt,
    onProbeStart: (lagMs: number) => {
      counters.recordLag(lagMs);
      events.emit('probeStart', lagMs);
    },
    signal: deps.signal,
    fence,
    region: me.region,
  };
  const handBack = (dueAt: number, turn: UnitTurn) => handBackUnit(deps, unit, dueAt, turn);
  try {
    const result =
      unit.kind === 'balancer'
        ? await runCycle(store, unit.unitId, {
            ...common,
            probe: async (target, options) => {
              const verdict = await deps.probe(target, options);
              events.emit('probe', verdict);
              return verdict;
            },
            resolve: deps.resolve,
            variables: deps.variables,
          }).then((r) => {
            events.emit('cycle', r);
            return { at: r.at, probes: r.probes, stored: true };
          })
        : await runStdioCycle(store, unit.unitId, { ...common, probe: deps.stdioProbe }).then((r) => {
            events.emit('probe', r.verdict);
            events.emit('stdioCycle', r);
            return { at: r.at, probes: 1, stored: r.stored };
          });
    counters.completed += 1;
    counters.probes += result.probes;
    counters.lastCycleAt = result.at;
    await handBack(followingDue(entry, unit.dueAt, claimedAt), {
      attempted: true,
      stored: result.stored ? { at: result.at, probes: result.probes } : null,
    });
  } catch (err) {
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
