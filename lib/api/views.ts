// Shapes stored rows into API responses: redacts secrets, drops internal columns.
import type { Balancer, BalancerListItem, StoredBalancerAnalysis } from '@/db/queries/balancers';
import { BalancerAnalysisView } from '@/lib/schemas/balancer-analysis';
import { redactAuth, redactHeaders } from '@/lib/schemas/balancer-view';

export function balancerView(b: Balancer | BalancerListItem) {
  return { ...b, headers: redactHeaders(b.headers), auth: redactAuth(b.auth) };
}

/** The stored analysis in the documented shape; an analysis in an older or unknown shape reads as none. */
export function analysisView(stored: StoredBalancerAnalysis | null): BalancerAnalysisView | null {
  if (!stored || typeof stored.analysis !== 'object' || stored.analysis === null) return null;
  const a = stored.analysis as Record<string, unknown>;
  const parsed = BalancerAnalysisView.safeParse({
    status: a.state,
    severity: a.severity,
    displayStatus: a.displayStatus,
    degraded: a.isDegraded,
    analyzedAt: a.at,
    since: stored.since,
    partition: a.partition,
    degradedNodes: a.degraded,
    unavailableSamples: a.unavailableSamples,
    flapping: a.flapping,
    cacheHazard: a.cacheHazard,
    rolling: a.rolling,
    window: a.window,
    counts: a.counts,
    regionSplit: a.regionSplit ?? false,
    regions: Array.isArray(a.regions)
      ? (a.regions as Array<Record<string, unknown>>).map((r) => ({
          region: r.region,
          analyzedAt: r.at,
          status: r.state,
          severity: r.severity,
          displayStatus: r.displayStatus,
          keys: r.keys,
          degraded: r.isDegraded,
          counts: r.counts,
        }))
      : [],
    regionPartition: a.regionPartition ?? [],
    missingRegions: a.missingRegions ?? [],
  });
  return parsed.success ? parsed.data : null;
}
