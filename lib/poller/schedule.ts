// The schedule: which subjects (balancers, stdio targets) this region polls, where in its interval each one's
// cycles start, and when a unit is due again after a cycle. Every worker computes the same phases from the
// same list, so cycles are spread evenly and each unit is due once per interval.
import type { Store } from '@/db';
import { listScheduledSubjects } from '@/db/queries/subjects';
import { syncUnits, type UnitKind } from '@/db/queries/units';
import { regionProbes } from './regions';

export interface Scheduled {
  id: string;
  intervalMs: number;
  /** Where in each interval this subject's cycles start (see assignPhases). */
  phaseMs: number;
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

export class Schedule {
  private readonly balancers = new Map<string, Scheduled>();
  private readonly stdioTargets = new Map<string, Scheduled>();
  /** Whether the poll role has synced its units once: units new after that are due at once. */
  private started = false;
  lastRefresh = -Infinity;

  constructor(
    private readonly store: Store,
    readonly region: string,
  ) {}

  get balancerCount(): number {
    return this.balancers.size;
  }

  get stdioCount(): number {
    return this.stdioTargets.size;
  }

  entry(kind: UnitKind, id: string): Scheduled | undefined {
    return kind === 'balancer' ? this.balancers.get(id) : this.stdioTargets.get(id);
  }

  /** Reads the region's next refresh at once (a unit the schedule did not know came up). */
  expire(): void {
    this.lastRefresh = -Infinity;
  }

  due(t: number, refreshMs: number): boolean {
    return t - this.lastRefresh >= refreshMs;
  }

  /** Reads the subjects, assigns phases and makes the region's unit rows match (missing ones inserted). */
  async refresh(t: number): Promise<void> {
    const { balancers, stdioTargets } = await listScheduledSubjects(this.store);
    // Balancers and stdio targets share the probe cap, so they share one spread.
    const phases = assignPhases([
      ...balancers.map((r) => ({ key: `b:${r.id}`, intervalMs: r.intervalMs })),
      ...stdioTargets.map((r) => ({ key: `s:${r.id}`, intervalMs: r.intervalMs })),
    ]);
    // A subject that lists regions gets units only in those: other regions' workers never claim it.
    const entries = (
      rows: ReadonlyArray<{ id: string; intervalMs: number; regions: string[] | null }>,
      p: string,
    ) =>
      rows
        .filter((r) => regionProbes(r.regions, this.region))
        .map((r) => ({ id: r.id, intervalMs: r.intervalMs, phaseMs: phases.get(`${p}:${r.id}`) ?? 0 }));
    const mine = { balancer: entries(balancers, 'b'), stdio: entries(stdioTargets, 's') };
    // A unit new to the store waits for its phase when the poll role starts; one registered later is due now.
    const dueOf = (e: Scheduled) => (this.started ? t : nextSlot(t, e.intervalMs, e.phaseMs));
    await syncUnits(this.store, this.region, [
      ...mine.balancer.map((e) => ({ kind: 'balancer' as const, unitId: e.id, dueAt: dueOf(e) })),
      ...mine.stdio.map((e) => ({ kind: 'stdio' as const, unitId: e.id, dueAt: dueOf(e) })),
    ]);
    // The schedule shows what the store has: only now that the region's units are in it.
    for (const [map, list] of [
      [this.balancers, mine.balancer],
      [this.stdioTargets, mine.stdio],
    ] as const) {
      map.clear();
      for (const e of list) map.set(e.id, e);
    }
    this.started = true;
    this.lastRefresh = t;
  }
}
