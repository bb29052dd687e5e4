// Response shapes of the REST API as the dashboard reads them. Client-safe: types only.
import type { Verdict } from '@/lib/probe/types';
import type { BalancerAnalysis, RolloutTarget } from '@/lib/rollout/types';
import type { BalancerSettings } from '@/lib/schemas/balancer';

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface Balancer extends BalancerSettings {
  id: string;
  createdAt: number;
  updatedAt: number;
}

export interface BalancerSummary {
  status: string;
  severity: string | null;
  displayStatus?: string;
  degraded: boolean;
  analyzedAt: number;
}

/** The latest analysis as stored beside the balancer (the diffing snapshot stays server-side). */
export type StoredAnalysis = Omit<BalancerAnalysis, 'snapshot'>;

export interface BalancerListItem extends Balancer {
  summary: BalancerSummary | null;
}

export interface RolloutWindow {
  id: string;
  balancerId: string;
  target: RolloutTarget;
  deadline: number;
  openedAt: number;
  closedAt: number | null;
}

/** The dashboard's view of one balancer: settings (secrets redacted), latest analysis, open window. */
export interface BalancerDetail extends Balancer {
  analysis: StoredAnalysis | null;
  window: RolloutWindow | null;
}

export interface NodeState {
  verdict: Verdict;
  fingerprintKey: string;
  clientEra: string;
  reason: string;
  probedAt: number;
  durationMs: number;
  fingerprintSince: number;
  probes: number;
  failures: number;
  consecutiveFailures: number;
}

export interface NodeItem {
  id: string;
  balancerId: string;
  key: string;
  origin: 'listed' | 'dns' | 'sample';
  url: string;
  address: string | null;
  servedBy: string | null;
  createdAt: number;
  lastSeenAt: number;
  state: NodeState | null;
}

export type NodeDetail = NodeItem;

export interface NodeHistorySpan {
  id: number;
  nodeId: string;
  fingerprintKey: string;
  clientEra: string;
  reason: string;
  negotiatedVersion: string | null;
  servedEras: string;
  startedAt: number;
  endedAt: number | null;
  probes: number | null;
  failures: number | null;
}

export interface RollupItem {
  hourStart: number;
  probes: number;
  failures: number;
  p50Ms: number | null;
  p95Ms: number | null;
}

export interface EventItem {
  id: string;
  balancerId: string;
  nodeId: string | null;
  type: string;
  at: number;
  data: Record<string, unknown>;
}

/** The part of a verdict the node matrix draws: no evidence, so 1,000 rows stay small on every refresh. */
export type VerdictSummary = Pick<
  Verdict,
  'verdict' | 'reason' | 'negotiatedVersion' | 'supported' | 'servedEras' | 'durationMs'
>;

export interface NodeSummary {
  id: string;
  balancerId: string;
  origin: NodeItem['origin'];
  url: string;
  address: string | null;
  servedBy: string | null;
  state: {
    clientEra: string;
    reason: string;
    probedAt: number;
    verdict: VerdictSummary;
  } | null;
}
