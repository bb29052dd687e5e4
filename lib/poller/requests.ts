// Asking for a cycle now (probe-now, the fresh gate): the web process never probes. It records the ask on the
// balancer's poll unit in each region that must answer (the unit is then due at once), and the worker that holds
// or claims the unit runs the cycle, fenced like any other, and marks the ask stored in that cycle's write. The
// asker waits, within its bound, until every region's unit has answered, and reads what was stored.
import type { Store } from '@/db';
import { getBalancer } from '@/db/queries/balancers';
import { listPollWorkers, readUnitAnswers, requestUnitCycles, type UnitAnswer } from '@/db/queries/units';
import { holderGoneOnThisHost } from './lease';

export type CycleRequestOutcome =
  /** Every needed region's cycle ran; `failed` lists those whose cycle stored nothing. */
  | { kind: 'answered'; regions: UnitAnswer[]; failed: string[] }
  /** Some region did not answer within the wait; its cycle runs on and stores its result. */
  | { kind: 'timeout'; pending: string[]; waitMs: number }
  /** No live poll worker runs in these regions (`null`: none runs anywhere): nothing was asked. */
  | { kind: 'no_worker'; regions: string[] | null };

export interface CycleRequestOptions {
  waitMs: number;
  /** How often the asker looks at the units while it waits. */
  pollMs?: number;
  now?: () => number;
  /** Called with each region asked, so a poller of that region in this process claims its unit at once. */
  wake?: (region: string) => void;
}

/** The regions whose poll workers are alive now (a worker of this host whose pid is gone is not). */
export async function liveWorkerRegions(store: Store, now: number): Promise<Set<string>> {
  const workers = await listPollWorkers(store, now);
  return new Set(
    workers.filter((w) => !holderGoneOnThisHost({ hostname: w.hostname, pid: w.pid })).map((w) => w.region),
  );
}

/**
 * Asks every region that must probe the balancer (its `regions`, else every region with a live poll worker)
 * for a cycle now, and waits until each has answered or `waitMs` has passed.
 */
export async function requestBalancerCycles(
  store: Store,
  balancerId: string,
  opts: CycleRequestOptions,
): Promise<CycleRequestOutcome> {
  const now = opts.now ?? Date.now;
  const balancer = await getBalancer(store, balancerId);
  const live = await liveWorkerRegions(store, now());
  const needed = balancer.regions ?? [...live].sort();
  if (needed.length === 0) return { kind: 'no_worker', regions: null };
  const missing = needed.filter((r) => !live.has(r));
  if (missing.length > 0) return { kind: 'no_worker', regions: missing };

  const asked = await requestUnitCycles(store, 'balancer', balancerId, needed, now());
  for (const region of needed) opts.wake?.(region);
  const deadline = now() + opts.waitMs;
  const pollMs = opts.pollMs ?? 100;
  for (;;) {
    const answers = await readUnitAnswers(store, 'balancer', balancerId, needed);
    const byRegion = new Map(answers.map((a) => [a.region, a]));
    const pending = needed.filter((r) => (byRegion.get(r)?.answeredSeq ?? 0) < (asked.get(r) ?? Infinity));
    if (pending.length === 0) {
      const failed = needed.filter((r) => (byRegion.get(r)?.storedSeq ?? 0) < (asked.get(r) ?? Infinity));
      return { kind: 'answered', regions: answers, failed };
    }
    if (now() >= deadline) return { kind: 'timeout', pending, waitMs: opts.waitMs };
    await new Promise((r) => setTimeout(r, Math.min(pollMs, Math.max(1, deadline - now()))));
  }
}

/** The reasons a fresh answer could not be had, for the gate and probe-now. */
export function describeOutcome(outcome: Exclude<CycleRequestOutcome, { kind: 'answered' }>): string {
  if (outcome.kind === 'no_worker') {
    return outcome.regions === null
      ? 'no poll worker is running: no region can probe the balancer'
      : `no poll worker of region ${outcome.regions.join(', ')} is running: its nodes cannot be probed from there`;
  }
  return `the fresh probe did not finish within ${outcome.waitMs} ms (waiting for region ${outcome.pending.join(', ')})`;
}
