// What a region's cycle adds to the cross-region verdict: its own analysis beside the other regions' latest
// ones (stale ones left out), combined and diffed against the last combined snapshot. Pure: the write
// transaction reads the rows and calls this, so two regions finishing at once still emit each event once.
import { diffSnapshots } from '@/lib/rollout/events';
import { combineRegions, type RegionResult } from '@/lib/rollout/regions';
import type { BalancerAnalysis, BalancerSnapshot, EventDraft } from '@/lib/rollout/types';

/** A region's result older than this many of the balancer's intervals no longer counts: its worker is gone. */
export const STALE_INTERVALS = 3;

/** Whether a worker of `region` probes a balancer that lists `regions` (null or empty: every region does). */
export function regionProbes(regions: readonly string[] | null, region: string): boolean {
  return regions === null || regions.length === 0 || regions.includes(region);
}

export interface StoredRegionResult {
  region: string;
  analysis: BalancerAnalysis;
  analyzedAt: number;
}

export interface CombineStep {
  balancerId: string;
  at: number;
  intervalMs: number;
  /** This cycle's region and its fresh analysis. */
  mine: RegionResult;
  /** The other regions' stored results for the balancer (this region's own row, if passed, is ignored). */
  stored: StoredRegionResult[];
  /** The balancer's `regions`, else the regions that have a poller now. */
  expectedRegions: string[];
  /** The combined snapshot of the last cycle of any region. */
  previous: BalancerSnapshot | null;
}

export function combineStep(step: CombineStep): { combined: BalancerAnalysis; events: EventDraft[] } {
  const staleBefore = step.at - STALE_INTERVALS * step.intervalMs;
  const others = step.stored.filter(
    (r) =>
      r.region !== step.mine.region &&
      r.analyzedAt >= staleBefore &&
      r.analysis.balancerId === step.balancerId,
  );
  const results: RegionResult[] = [
    step.mine,
    ...others.map((r) => ({ region: r.region, analysis: r.analysis })),
  ];
  const combined = combineRegions({
    balancerId: step.balancerId,
    at: step.at,
    results,
    expectedRegions: step.expectedRegions,
    previous: step.previous,
  });
  return { combined, events: diffSnapshots(step.previous, combined.snapshot, step.at) };
}
