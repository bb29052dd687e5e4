// The fleet overview's rows, counts, ordering and filtering: pure functions over what the API returns.
import type { z } from 'zod';
import type { BalancerView } from '@/lib/schemas/balancer-view';
import type { StoredAnalysisView } from '@/lib/schemas/balancer-analysis';
import type { BalancerProgressView } from '@/lib/schemas/progress';
import { isFleetStatus, statusRank, type FleetStatus } from './presentation';

export const GATE_REVISION = '2026-07-28';

export interface EraMix {
  modern: number;
  legacy: number;
  /** Down or unreachable. */
  unavailable: number;
  /** Refused at the door (401/403, or no token): not down, but their era cannot be judged. */
  authGated: number;
}

/** The part of a balancer list item the overview reads; `analysis` is the latest BalancerAnalysis, if any. */
export interface FleetSource {
  id: string;
  name: string;
  publicUrl: string;
  summary?: z.output<typeof BalancerView>['summary'];
  analysis?: StoredAnalysisView | null;
}

export interface FleetRow {
  id: string;
  name: string;
  publicUrl: string;
  status: FleetStatus;
  /** Non-uniform by the analysis (era-split or drift), whatever the display status says (rolling, stuck). */
  nonUniform: boolean;
  degraded: boolean;
  mix: EraMix;
  /** Ready to advertise GATE_REVISION; null before the first cycle. */
  gateReady: boolean | null;
  /** When the current divergence began (the latest `balancer.diverged`), for non-uniform rows when known. */
  nonUniformSince: number | null;
  /** "6 of 10 nodes on 2026-07-28" while a rollout window is open. */
  progress: string | null;
  /** Progress toward the window's target (or the largest group) with its trend; absent before a first cycle. */
  progressMeasure?: BalancerProgressView | null;
  lastProbeAt: number | null;
}

/** Nodes per client era from the partition and the unavailable list; samples when no node is probed directly. */
export function eraMixOf(analysis: StoredAnalysisView): EraMix {
  const mix: EraMix = { modern: 0, legacy: 0, unavailable: 0, authGated: 0 };
  const bySamples = analysis.counts.nodes === 0;
  for (const group of analysis.partition) {
    mix[group.fingerprint.era] += bySamples ? group.sampleCount : group.nodeIds.length;
  }
  const down = bySamples ? analysis.unavailableSamples : analysis.degradedNodes;
  mix.authGated = down.filter((d) => d.authGated).length;
  mix.unavailable = down.length - mix.authGated;
  return mix;
}

export function gateOf(analysis: StoredAnalysisView, revision: string = GATE_REVISION): boolean | null {
  const gate = analysis.gates.find((g) => g.revision === revision) ?? analysis.gates[0];
  return gate ? gate.ready : null;
}

export function toFleetRow(source: FleetSource): FleetRow {
  const a = source.analysis ?? null;
  if (a) {
    return {
      id: source.id,
      name: source.name,
      publicUrl: source.publicUrl,
      status: a.displayStatus,
      nonUniform: a.status === 'non-uniform',
      degraded: a.degraded,
      mix: eraMixOf(a),
      gateReady: gateOf(a),
      progress: a.window ? a.window.label : null,
      lastProbeAt: a.analyzedAt,
      nonUniformSince: null,
    };
  }
  const s = source.summary ?? null;
  const named = s ? s.displayStatus : null;
  const status: FleetStatus = isFleetStatus(named) ? named : 'pending';
  return {
    id: source.id,
    name: source.name,
    publicUrl: source.publicUrl,
    status,
    nonUniform: s?.status === 'non-uniform',
    degraded: s?.degraded ?? false,
    mix: { modern: 0, legacy: 0, unavailable: 0, authGated: 0 },
    gateReady: null,
    progress: null,
    lastProbeAt: s?.analyzedAt ?? null,
    nonUniformSince: null,
  };
}

/** Non-uniform first (by status precedence), then by name. */
export function sortFleet(rows: FleetRow[]): FleetRow[] {
  return [...rows].sort(
    (a, b) =>
      Number(b.nonUniform) - Number(a.nonUniform) ||
      statusRank(a.status) - statusRank(b.status) ||
      a.name.localeCompare(b.name),
  );
}

export interface FleetFilter {
  /** Case-insensitive substring of the name or public URL. */
  search: string;
  /** One status, `non-uniform`, or `all`. */
  status: FleetStatus | 'non-uniform' | 'all';
}

export function filterFleet(rows: FleetRow[], filter: FleetFilter): FleetRow[] {
  const needle = filter.search.trim().toLowerCase();
  return rows.filter((r) => {
    if (filter.status === 'non-uniform' && !r.nonUniform) return false;
    if (filter.status !== 'all' && filter.status !== 'non-uniform' && r.status !== filter.status)
      return false;
    if (needle === '') return true;
    return r.name.toLowerCase().includes(needle) || r.publicUrl.toLowerCase().includes(needle);
  });
}

export interface FleetCounts {
  total: number;
  nonUniform: number;
  degraded: number;
  byStatus: Partial<Record<FleetStatus, number>>;
}

export function countFleet(rows: FleetRow[]): FleetCounts {
  const counts: FleetCounts = { total: rows.length, nonUniform: 0, degraded: 0, byStatus: {} };
  for (const r of rows) {
    if (r.nonUniform) counts.nonUniform += 1;
    if (r.degraded) counts.degraded += 1;
    counts.byStatus[r.status] = (counts.byStatus[r.status] ?? 0) + 1;
  }
  return counts;
}

/** "12 s ago", "4 min ago", "3 h ago", "2 d ago"; "in 30 s" for a future time; "never" for null. */
export function formatAge(at: number | null, now: number): string {
  if (at === null) return 'never';
  const future = at - now > 500;
  const s = Math.round(Math.abs(now - at) / 1000);
  let text: string;
  if (s < 60) text = `${s} s`;
  else if (s < 3600) text = `${Math.floor(s / 60)} min`;
  else if (s < 48 * 3600) text = `${Math.floor(s / 3600)} h`;
  else text = `${Math.floor(s / 86_400)} d`;
  return future ? `in ${text}` : `${text} ago`;
}

/** "for 12 s", "for 4 min", "for 3 h", "for 2 d": how long a condition has held. */
export function formatSince(at: number, now: number): string {
  return `for ${formatAge(Math.min(at, now), now).replace(/ ago$/, '')}`;
}

export function formatMix(mix: EraMix): string {
  const parts: string[] = [];
  if (mix.modern > 0) parts.push(`${mix.modern} modern`);
  if (mix.legacy > 0) parts.push(`${mix.legacy} legacy`);
  if (mix.unavailable > 0) parts.push(`${mix.unavailable} unavailable`);
  if (mix.authGated > 0) parts.push(`${mix.authGated} auth-gated`);
  return parts.length === 0 ? 'no nodes yet' : parts.join(' · ');
}
