// The rollout analysis contract. The poller persists BalancerSnapshot and EventDraft, the API and the UI
// read BalancerAnalysis, so extend these shapes, do not rename them. Client-safe: no Node imports.
import type { ServedEra, ToolCatalog, Verdict } from '@/lib/probe/types';

export type AvailableEra = 'modern' | 'legacy';

/** The comparable part of a verdict. `supported` is normalised: distinct, newest first. */
export interface Fingerprint {
  era: AvailableEra;
  negotiatedVersion: string | null;
  supported: string[];
  servedEras: ServedEra;
  serverName: string | null;
  serverVersion: string | null;
  /** The tool catalog's digest; null when not listed (catalog off, or never listed in full). */
  catalogDigest?: string | null;
}

export interface NodeObservation {
  nodeId: string;
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

export const BALANCER_STATES = ['uniform', 'non-uniform', 'unknown'] as const;
export type BalancerState = (typeof BALANCER_STATES)[number];

/** `region-split`: every region is uniform but they disagree (one public URL, different answers by region). */
export const SEVERITIES = ['era-split', 'drift', 'region-split'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** One fingerprint and who presented it this cycle. */
export interface PartitionGroup {
  key: string;
  fingerprint: Fingerprint;
  /** Nodes probed directly, sorted. */
  nodeIds: string[];
  sampleCount: number;
  /** Distinct nodes that samples in this group were attributed to, sorted. */
  sampleNodeIds: string[];
  /** The group's tool names (sorted), when its catalog was listed. */
  toolNames?: string[] | null;
  /** Tools this group adds, lacks, or has in another form (description, schema) against the largest group. */
  catalogDiff?: CatalogDiff | null;
  /** The regions whose probes presented this fingerprint, sorted; set by the cross-region analysis. */
  regions?: string[];
}

export interface CatalogDiff {
  adds: string[];
  lacks: string[];
  changed: string[];
}

export interface UnavailableNode {
  nodeId: string;
  url: string;
  reason: string;
  anomaly: string | null;
  /** Refused at the door (401/403 or no token): not down, and its era cannot be judged. Absent in analyses stored before. */
  authGated?: boolean;
  /** The region that probed it, when the analysis spans regions. */
  region?: string;
}

export interface UnavailableSample {
  nodeId: string | null;
  url: string;
  reason: string;
  authGated?: boolean;
}

export interface FlappingNode {
  nodeId: string;
  /** Fingerprint changes inside the flap window. */
  changes: number;
}

export interface CacheHazard {
  /** Largest ttlMs among this cycle's nodes and samples; how long a client may keep a stale era. */
  maxTtlMs: number | null;
  /** Available samples this cycle (the denominator of `contradictingShare`). */
  availableSamples: number;
  /** Available samples whose era or negotiated version contradicts what a client cached from the first one. */
  contradictingSamples: number;
  /** contradictingSamples / availableSamples; null with fewer than 2 available samples. */
  contradictingShare: number | null;
  /** Available samples whose fingerprint differs from the first one's at all (drift included). */
  differingSamples: number;
  /** Largest catalog ttlMs among nodes when their catalogs differ: how long a client may call missing tools. */
  catalogTtlMs?: number | null;
}

export interface GateResult {
  revision: string;
  ready: boolean;
  reasons: string[];
}

export const WINDOW_STATUSES = ['scheduled', 'open', 'complete', 'stuck'] as const;
export type WindowStatus = (typeof WINDOW_STATUSES)[number];

export interface WindowProgress {
  windowId: string;
  status: WindowStatus;
  onTarget: number;
  total: number;
  unit: 'nodes' | 'samples';
  /** e.g. "6 of 10 nodes on 2026-07-28". */
  label: string;
  /** e.g. "2026-07-28" or "modern · dual-era". */
  targetLabel: string;
  deadline: number;
  /** Past the deadline and not uniform on target (latched for the window). */
  stuck: boolean;
}

/** One status for the UI; the tuple order is the precedence, highest first. */
export const DISPLAY_STATUSES = [
  'stuck',
  'rolling',
  'era-split',
  'drift',
  'region-split',
  'down',
  'auth-gated',
  'flapping',
  'degraded',
  'uniform',
  'unknown',
] as const;
export type DisplayStatus = (typeof DISPLAY_STATUSES)[number];

export interface BalancerAnalysis {
  balancerId: string;
  at: number;
  state: BalancerState;
  /** Set only when state is non-uniform. */
  severity: Severity | null;
  /** Largest group first. */
  partition: PartitionGroup[];
  /** Unavailable nodes with their reasons: reported beside the state, never counted as divergence. */
  degraded: UnavailableNode[];
  unavailableSamples: UnavailableSample[];
  /**
   * Available samples that joined no group: their answer was assembled from several requests the balancer
   * may have routed to different nodes (e.g. discover on one, initialize on another), and no node presents it.
   */
  unplacedSamples?: number;
  /** What differs between the groups when non-uniform, e.g. "catalog differs"; empty otherwise. */
  reasons?: string[];
  isDegraded: boolean;
  flapping: FlappingNode[];
  cacheHazard: CacheHazard;
  gates: GateResult[];
  window: WindowProgress | null;
  /** Non-uniform inside an open rollout window: expected, shown as progress. */
  rolling: boolean;
  /** True while rolling: divergence alerts should be held, events still recorded. */
  holdAlerts: boolean;
  displayStatus: DisplayStatus;
  counts: { nodes: number; availableNodes: number; samples: number; availableSamples: number };
  /** Each region's own verdict, by region name; absent in analyses stored before regions. */
  regions?: RegionSummary[];
  /** Regions grouped by the fingerprints they saw, largest group first; one group when they agree. */
  regionPartition?: RegionGroup[];
  /** The regions disagree: the same public URL gives different fingerprints from different regions. */
  regionSplit?: boolean;
  /** Regions the balancer must be probed from that have no result yet (or only a stale one). */
  missingRegions?: string[];
  snapshot: BalancerSnapshot;
}

/** One region's verdict on a balancer, as the cross-region analysis saw it. */
export interface RegionSummary {
  region: string;
  at: number;
  state: BalancerState;
  severity: Severity | null;
  displayStatus: DisplayStatus;
  /** The fingerprint keys this region saw, largest group first. */
  keys: string[];
  isDegraded: boolean;
  counts: { nodes: number; availableNodes: number; samples: number; availableSamples: number };
}

/** Regions that saw the same set of fingerprints. */
export interface RegionGroup {
  keys: string[];
  regions: string[];
}

export interface NodeSnapshot {
  nodeId: string;
  /** The region that probed it, when the snapshot spans regions (the same node once per region). */
  region?: string;
  available: boolean;
  /** The unavailable reason, or null when available. */
  reason: string | null;
  /** Current fingerprint when available; the last known one while unavailable (null if never seen). */
  fingerprintKey: string | null;
  era: AvailableEra | null;
  servedEras: ServedEra | null;
  /** The last catalog listed in full (kept across outages and cadence), for the next cycle to carry and diff. */
  catalog?: ToolCatalog | null;
  /**
   * With no full catalog yet: the settled key of the last listing that failed, so the next try waits for the
   * cadence (or a changed verdict) instead of coming every cycle.
   */
  catalogFailedKey?: string;
}

export interface GateSnapshot {
  revision: string;
  ready: boolean;
  reasons: string[];
}

export interface WindowSnapshot {
  id: string;
  status: WindowStatus;
  label: string;
  deadline: number;
}

export const SNAPSHOT_VERSION = 1;

/** The persistable part of an analysis, enough to diff the next cycle. JSON-safe; arrays sorted. */
export interface BalancerSnapshot {
  version: typeof SNAPSHOT_VERSION;
  balancerId: string;
  at: number;
  state: BalancerState;
  severity: Severity | null;
  /** Last determined uniform/non-uniform state, carried across `unknown` cycles. */
  settledState: 'uniform' | 'non-uniform' | null;
  displayStatus: DisplayStatus;
  rolling: boolean;
  window: WindowSnapshot | null;
  nodes: NodeSnapshot[];
  flapping: string[];
  gates: GateSnapshot[];
  /** Windows already flagged stuck, oldest first, bounded. */
  stuckWindows: string[];
  /** Cycles analysed so far, this one included (the catalog cadence counts them). */
  cycle?: number;
  /** Last determined region split (true) or agreement (false), carried across cycles that cannot tell. */
  regionSplit?: boolean | null;
  /** The region groups behind `regionSplit`, for the events that report it. */
  regionPartition?: RegionGroup[];
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
