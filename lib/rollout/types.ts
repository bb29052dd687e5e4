// The rollout analysis contract's inputs and events. The analysis itself (what the poller persists, the API
// and the UI read) is declared once, as zod schemas, in ./analysis.ts; its types are re-exported here.
// Client-safe: no Node imports.
import type { ServedEra, Verdict } from '@/lib/probe/types';
import type { AvailableEra, BalancerSnapshot } from './analysis';

export {
  AnalysisFields,
  AvailableEra,
  BALANCER_STATES,
  BalancerAnalysis,
  BalancerSnapshot,
  CacheHazard,
  CatalogDiff,
  Counts,
  DISPLAY_STATUSES,
  Fingerprint,
  FlappingNode,
  GateResult,
  GateSnapshot,
  NodeSnapshot,
  PartitionGroup,
  RegionGroup,
  RegionSummary,
  SEVERITIES,
  SNAPSHOT_VERSION,
  UnavailableNode,
  UnavailableSample,
  WINDOW_STATUSES,
  WindowProgress,
  WindowSnapshot,
  type BalancerState,
  type DisplayStatus,
  type Severity,
  type WindowStatus,
} from './analysis';

export interface NodeObservation {
  nodeId: string;
  /** The node's display name, when it has one; the gate's reasons name a node by it, else by its URL. */
  name?: string | null;
  verdict: Verdict;
  /** Epoch ms of this node's recent fingerprint changes, from history. */
  recentChanges: number[];
}

export interface SampleObservation {
  verdict: Verdict;
  /** Attributed via a response header, when known. */
  nodeId: string | null;
}

/** Every field given must match; at least one is required. */
export interface RolloutTarget {
  era?: AvailableEra;
  negotiatedVersion?: string;
  servedEras?: ServedEra;
  supportedIncludes?: string;
  fingerprintKey?: string;
}

export interface RolloutWindowInput {
  id: string;
  target: RolloutTarget;
  openedAt: number;
  deadline: number;
}

export interface CycleOptions {
  /** A node flaps when its fingerprint changed more than this many times inside the flap window. */
  flapThreshold?: number;
  flapWindowMs?: number;
}

export interface CycleInput {
  balancerId: string;
  at: number;
  nodes: NodeObservation[];
  samples: SampleObservation[];
  window: RolloutWindowInput | null;
  gateRevisions: string[];
  options?: CycleOptions;
  /**
   * The snapshot persisted after the previous cycle. It carries what one cycle cannot know: a node's
   * last known era across an outage, the last settled uniform/non-uniform state, windows already stuck.
   */
  previous?: BalancerSnapshot | null;
}

export const EVENT_TYPES = [
  'balancer.diverged',
  'balancer.converged',
  'balancer.severity_changed',
  'balancer.region_split',
  'balancer.region_converged',
  'node.unavailable',
  'node.auth_gated',
  'node.recovered',
  'node.era_changed',
  'node.catalog_changed',
  'node.flapping',
  'rollout.stuck',
  'gate.opened',
  'gate.closed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface EventDraft {
  type: EventType;
  balancerId: string;
  nodeId: string | null;
  at: number;
  data: Record<string, unknown>;
}
