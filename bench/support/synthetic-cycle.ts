// Stored cycles of made-up nodes, written through the poller's own cycle writer (writeProbes with the analysis
// lib/rollout computes): how the UI benchmark, the 1,000-node browser tests and the node list tests fill a
// store with large balancers without probing anything. Nodes are modern, legacy or down (a timeout).
import type { Store } from '@/db/index';
import { writeProbes } from '@/db/queries/subjects';
import type { PriorState } from '@/db/subject-state';
import type { Verdict } from '@/lib/probe/types';
import { analyzeCycle, keyedFingerprintOf } from '@/lib/rollout';
import { analysisDigest } from '@/lib/rollout/digest';

export type SyntheticKind = 'modern' | 'legacy' | 'down';

export interface SyntheticNode {
  url: string;
  kind: SyntheticKind;
  /** The probe's duration (the matrix's latency). */
  durationMs: number;
  /** Request ids of its evidence start here (`erawatch-<seq>`). */
  seq: number;
  /** The serverInfo name its answers carry. */
  serverName: string;
}

function discover(seq: number, httpStatus: number | null, outcome: 'result' | 'rpc_error' | 'timeout') {
  return {
    step: 'discover' as const,
    method: 'server/discover',
    protocolVersion: '2026-07-28',
    requestId: `erawatch-${seq}`,
    httpStatus,
    contentType: httpStatus === null ? null : 'application/json',
    outcome,
    rpcError:
      outcome === 'rpc_error' ? { code: -32000, message: 'Bad Request: No valid session ID provided' } : null,
    elapsedMs: outcome === 'timeout' ? 5_000 : 3,
    ...(outcome === 'timeout' ? { detail: 'no response within 5000 ms' } : {}),
  };
}

const LEGACY_INITIALIZE = {
  step: 'initialize' as const,
  method: 'initialize',
  protocolVersion: '2025-11-25',
  httpStatus: 200,
  contentType: 'text/event-stream',
  outcome: 'result' as const,
  rpcError: null,
  elapsedMs: 4,
  checks: (
    ['id_match', 'single_result', 'protocol_version', 'capabilities_object', 'server_info'] as const
  ).map((name) => ({ name, passed: true })),
  sessionIssued: true,
};

/** The verdict a real probe of such a node gives, with its evidence. */
export function syntheticVerdict(n: SyntheticNode, at: number): Verdict {
  const base = {
    url: n.url,
    probedAt: at,
    durationMs: n.durationMs,
    address: '127.0.0.1',
    servedBy: null,
    anomaly: null,
    cache: null,
    initializeSent: false,
  };
  if (n.kind === 'modern') {
    return {
      ...base,
      verdict: 'modern',
      reason: 'discover_result',
      negotiatedVersion: '2026-07-28',
      supported: ['2026-07-28'],
      servedEras: 'modern-only',
      serverInfo: { name: n.serverName, version: '2.4.0' },
      cache: { ttlMs: 300_000, cacheScope: 'public' },
      evidence: [discover(n.seq, 200, 'result')],
    };
  }
  if (n.kind === 'legacy') {
    return {
      ...base,
      verdict: 'legacy',
      reason: 'legacy_positive_evidence',
      negotiatedVersion: '2025-11-25',
      supported: ['2025-11-25'],
      servedEras: 'legacy-only',
      serverInfo: { name: n.serverName, version: '1.32.2' },
      initializeSent: true,
      evidence: [
        discover(n.seq, 400, 'rpc_error'),
        { ...LEGACY_INITIALIZE, requestId: `erawatch-${n.seq + 1}` },
      ],
    };
  }
  return {
    ...base,
    verdict: 'unavailable',
    reason: 'timeout',
    negotiatedVersion: null,
    supported: [],
    servedEras: 'unknown',
    serverInfo: null,
    evidence: [discover(n.seq, null, 'timeout')],
  };
}

export interface CycleResult {
  nodeId: string;
  /** The node's rollup seq; null for a node this cycle creates (the writer assigns it). */
  seq: number | null;
  verdict: Verdict;
  /** The node's state before this cycle, when it has one. */
  prior?: PriorState | null;
}

export interface CycleInput {
  balancerId: string;
  at: number;
  region?: string;
  /** Nodes this cycle creates (listed nodes, by URL). */
  newNodes: Array<{ id: string; url: string; address?: string }>;
  results: CycleResult[];
  gateRevisions?: string[];
}

/** Stores one cycle: the nodes it creates, each node's verdict and the balancer's analysis of them. */
export async function writeSyntheticCycle(store: Store, c: CycleInput): Promise<void> {
  const results = c.results.map((r) => ({
    nodeId: r.nodeId,
    seq: r.seq,
    verdict: r.verdict,
    fingerprintKey: keyedFingerprintOf(r.verdict)?.key ?? null,
    prior: r.prior ?? null,
  }));
  const analysis = analyzeCycle({
    balancerId: c.balancerId,
    at: c.at,
    nodes: results.map((r) => ({ nodeId: r.nodeId, verdict: r.verdict, recentChanges: [] })),
    samples: [],
    window: null,
    gateRevisions: c.gateRevisions ?? ['2026-07-28'],
  });
  await writeProbes(store, {
    kind: 'node',
    region: c.region ?? 'default',
    balancerId: c.balancerId,
    at: c.at,
    newNodes: c.newNodes.map((n) => ({
      id: n.id,
      key: `listed:${n.url}`,
      origin: 'listed' as const,
      url: n.url,
      address: n.address ?? '127.0.0.1',
      servedBy: null,
    })),
    results,
    analysis,
    analysisDigest: analysisDigest(analysis),
    events: [],
  });
}
