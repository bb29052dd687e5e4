// Probe-now, shared by POST /balancers/{id}/probe and the gate's fresh=true: the web process never probes. It
// asks for a cycle of the balancer's poll unit in every region that must probe it; a worker of each region
// (this process's own poller too, if it runs one of that region) runs the cycle, fenced like any other, and
// the answer is read from what those cycles stored.
import type { BalancerAnalysisView } from '@/lib/schemas/balancer-analysis';
import type { Store } from '@/db/index';
import { readBalancerAnalysis } from '@/db/queries/balancers';
import { analysisResponseOf } from '@/lib/schemas/balancer-analysis';
import { latestEventSeq, listEventsAfter, type StoredEvent } from '@/db/queries/events';
import { localPoller } from '@/lib/poller';
import { describeOutcome, requestBalancerCycles, type CycleRequestOutcome } from '@/lib/poller/requests';
import type { Settings } from '@/lib/settings';
import { HttpProblem } from './problem';

/** How long POST /probe waits for the cycles it asked for (the gate waits ERAWATCH_GATE_FRESH_WAIT_MS). */
export const PROBE_NOW_WAIT_MS = 60_000;

/** Asks the regions' workers for a cycle now and waits for their answers (see requestBalancerCycles). */
export function askForCycles(
  store: Store,
  balancerId: string,
  settings: Pick<Settings, 'region'>,
  waitMs: number,
): Promise<CycleRequestOutcome> {
  return requestBalancerCycles(store, balancerId, {
    waitMs,
    // This process's own poller, when it polls that region, looks for the asked unit at once.
    wake: (region) => {
      const local = localPoller();
      if (local && local.status().region === region) local.wake();
    },
  });
}

export interface ProbeNowAnswer {
  balancerId: string;
  /** When the last of the cycles stored its results. */
  at: number;
  /** How long the answer took, asking included. */
  durationMs: number;
  probes: number;
  analysis: BalancerAnalysisView | null;
  /** The balancer's events stored since the ask. */
  events: StoredEvent[];
  /** Each region's cycle: when it stored and how many probes it made. */
  regions: Array<{ region: string; at: number | null; probes: number }>;
}

export async function probeBalancerNow(
  store: Store,
  balancerId: string,
  settings: Settings,
  waitMs = PROBE_NOW_WAIT_MS,
): Promise<ProbeNowAnswer> {
  const started = Date.now();
  const mark = await latestEventSeq(store, balancerId);
  const outcome = await askForCycles(store, balancerId, settings, waitMs);
  if (outcome.kind === 'no_worker') throw new HttpProblem(503, 'no_poll_worker', describeOutcome(outcome));
  if (outcome.kind === 'timeout')
    throw new HttpProblem(
      504,
      'probe_timeout',
      `${describeOutcome(outcome)}; it runs on and stores its result`,
    );
  if (outcome.failed.length > 0) {
    throw new HttpProblem(
      502,
      'probe_failed',
      `the cycle of region ${outcome.failed.join(', ')} stored nothing (its worker's log has the details)`,
    );
  }
  const stored = await readBalancerAnalysis(store, balancerId);
  const regions = outcome.regions.map((r) => ({
    region: r.region,
    at: r.lastCycleAt,
    probes: r.lastCycleProbes,
  }));
  return {
    balancerId,
    at: Math.max(...regions.map((r) => r.at ?? 0)),
    durationMs: Date.now() - started,
    probes: regions.reduce((n, r) => n + r.probes, 0),
    analysis: stored && analysisResponseOf(stored),
    events: await listEventsAfter(store, balancerId, mark),
    regions,
  };
}
