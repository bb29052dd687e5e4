// What a probed subject's state write needs to know, engine-independent: the shapes of a cycle's write and
// the rules that decide when a history span opens.
import { hash } from 'node:crypto';
import type { Verdict } from '@/lib/probe/types';
import type { BalancerAnalysis } from '@/lib/rollout/types';
import type { EventDraft } from './queries/events';
import { hourOf } from './rollup-key';
import type { NodeOrigin, SubjectKind } from './schema';

export const UNAVAILABLE_KEY = 'unavailable';

/** nodes.last_seen_at is refreshed at most this often, to keep a quiet fleet's writes small. */
export const LAST_SEEN_RESOLUTION_MS = 5 * 60_000;

export interface PriorState {
  fingerprintKey: string;
  verdictDigest: string | null;
  lastAvailableKey: string | null;
  fingerprintSince: number;
  probes: number;
  failures: number;
  consecutiveFailures: number;
  lastSeenAt: number;
  /** When the subject was last probed in the region (its ticks row); null when that row is missing. */
  probedAt: number | null;
}

export interface NewNode {
  id: string;
  key: string;
  origin: NodeOrigin;
  url: string;
  address: string | null;
  servedBy: string | null;
  /** Its display name (nodes.name); null or absent when none is known. */
  name?: string | null;
}

export interface NodeResult {
  nodeId: string;
  /** The node's rollup seq; null for a node created this cycle or before seqs existed. */
  seq: number | null;
  verdict: Verdict;
  /** The fingerprint key, or null when unavailable. */
  fingerprintKey: string | null;
  prior: PriorState | null;
}

export interface CycleWrite {
  /** The region the nodes were probed from. */
  region: string;
  balancerId: string;
  at: number;
  newNodes: NewNode[];
  /** Known nodes whose display name changed this cycle (a new node's is in `newNodes`). */
  renamed?: Array<{ nodeId: string; name: string | null }>;
  results: NodeResult[];
  /** The balancer's analysis to store: this region's combined with the others' (see storeRegionAnalysis). */
  analysis: BalancerAnalysis;
  /**
   * Whether the combined analysis says what the stored one says (lib/rollout/digest.ts's analysisDigest of both): then only its time
   * and cycle count are written, and the analysis and snapshot JSON stay as they are.
   */
  analysisUnchanged?: boolean;
  /** The digest of `analysis` (lib/rollout/digest.ts), computed by the cycle. */
  analysisDigest: string;
  events: EventDraft[];
}

/** A region's latest own analysis of a balancer, as stored beside the other regions'. */
export interface StoredRegionState {
  region: string;
  analysis: BalancerAnalysis;
  analyzedAt: number;
}

/**
 * A digest of the verdict without its timings, request ids and the catalog's bookkeeping: equal digests mean
 * the same answer, and the verdict row is left as it is. The bookkeeping is whether this probe listed the
 * catalog or carried the last listing (the `catalog` evidence step is there only on a listing probe), when it
 * was listed, and a listing that failed while no full catalog is known (the probes between listings carry
 * none). The catalog's answer itself (names, tool digests, its digest and lifetime) is in the digest.
 */
export function verdictDigest(v: Verdict): string {
  const c = v.catalog;
  const stable = {
    ...v,
    probedAt: 0,
    durationMs: 0,
    evidence: v.evidence.flatMap((e) => (e.step === 'catalog' ? [] : [{ ...e, elapsedMs: 0, requestId: 0 }])),
    catalog: c?.digest
      ? { names: c.names, toolDigests: c.toolDigests, digest: c.digest, ttlMs: c.ttlMs }
      : null,
  };
  // One-shot hashing: no Hash object per probe.
  return hash('sha1', JSON.stringify(stable), 'base64url');
}

/** Whether this result starts a new history span, and whether that span is a real fingerprint change. */
export function classifyTransition(
  prior: Pick<PriorState, 'fingerprintKey' | 'lastAvailableKey'> | null,
  fingerprintKey: string | null,
): { newSpan: boolean; isChange: boolean } {
  const key = fingerprintKey ?? UNAVAILABLE_KEY;
  const newSpan = prior === null || prior.fingerprintKey !== key;
  const isChange =
    fingerprintKey !== null &&
    prior !== null &&
    prior.lastAvailableKey !== null &&
    prior.lastAvailableKey !== key;
  return { newSpan, isChange };
}

export type SubjectPrior = Omit<PriorState, 'lastSeenAt' | 'probedAt'>;

/**
 * The hour a node's probe folds into its hourly rollup, or null. A probe writes only its minute slot; the first
 * probe in a later hour than the node's previous one sums that previous hour's minute slots (still in the ring,
 * which holds six hours) into the hour's row. Readers take the last hours from the ring itself (see
 * getRollups), so an hour not folded yet is never missing.
 */
export function hourToFold(priorProbedAt: number | null | undefined, probedAt: number): number | null {
  if (priorProbedAt === null || priorProbedAt === undefined) return null;
  const hour = hourOf(priorProbedAt);
  return hour < hourOf(probedAt) ? hour : null;
}

/** One probed subject's row key: the node's or the target's id, in one region. */
export interface SubjectRef {
  kind: SubjectKind;
  id: string;
  region: string;
}

/** One probe of a stdio target (its prior state is read inside the write). */
export interface StdioWrite {
  region: string;
  targetId: string;
  verdict: Verdict;
  fingerprintKey: string | null;
}

/** What the one subject writer takes: a balancer's cycle (its nodes) or one stdio target's probe. */
export type ProbeWrite = ({ kind: 'node' } & CycleWrite) | ({ kind: 'stdio' } & StdioWrite);

/** What one probe of a subject writes, decided once for both engines. */
export interface SubjectWritePlan {
  /** Close the open span with its counters (a new span starts). */
  closeSpan: { endedAt: number; probes: number; failures: number } | null;
  /** A history span to open. */
  openSpan: {
    fingerprintKey: string;
    clientEra: string;
    reason: string;
    negotiatedVersion: string | null;
    servedEras: string;
    isChange: boolean;
    startedAt: number;
  } | null;
  /** The verdict row, when the verdict changed beyond its timings (null: a quiet probe leaves it alone). */
  state: {
    verdict: Verdict;
    verdictDigest: string;
    fingerprintKey: string;
    lastAvailableKey: string | null;
    clientEra: string;
    reason: string;
    fingerprintSince: number;
  } | null;
  /** The narrow row every probe updates. */
  ticks: {
    probedAt: number;
    durationMs: number;
    probes: number;
    failures: number;
    consecutiveFailures: number;
  };
}

/**
 * The rules of a subject's state write: a history span opens only when its fingerprint changes (counters
 * otherwise), and the verdict row is rewritten only when the answer changed; every probe updates the ticks.
 */
export function planSubjectWrite(
  v: Verdict,
  fingerprintKey: string | null,
  prior: SubjectPrior | null,
): SubjectWritePlan {
  const at = v.probedAt;
  const failed = v.verdict === 'unavailable';
  const key = fingerprintKey ?? UNAVAILABLE_KEY;
  const { newSpan, isChange } = classifyTransition(prior, fingerprintKey);
  const base =
    newSpan || !prior ? { probes: 0, failures: 0, since: at } : { ...prior, since: prior.fingerprintSince };
  const ticks = {
    probedAt: at,
    durationMs: Math.round(v.durationMs),
    probes: base.probes + 1,
    failures: base.failures + (failed ? 1 : 0),
    consecutiveFailures: failed ? (prior?.consecutiveFailures ?? 0) + 1 : 0,
  };
  const digest = verdictDigest(v);
  const quiet = !newSpan && prior?.verdictDigest === digest;
  return {
    closeSpan: newSpan && prior ? { endedAt: at, probes: prior.probes, failures: prior.failures } : null,
    openSpan: newSpan
      ? {
          fingerprintKey: key,
          clientEra: v.verdict,
          reason: v.reason,
          negotiatedVersion: v.negotiatedVersion,
          servedEras: v.servedEras,
          isChange,
          startedAt: at,
        }
      : null,
    state: quiet
      ? null
      : {
          verdict: v,
          verdictDigest: digest,
          fingerprintKey: key,
          lastAvailableKey: fingerprintKey ?? prior?.lastAvailableKey ?? null,
          clientEra: v.verdict,
          reason: v.reason,
          fingerprintSince: base.since,
        },
    ticks,
  };
}
