// Verdict fixtures shaped like what the probe reports for the real SDK servers.
import type { Verdict } from '@/lib/probe/types';
import type { CycleInput, NodeObservation, SampleObservation } from '@/lib/rollout';

export const T0 = Date.UTC(2026, 7, 1, 12, 0, 0);
export const MODERN = '2026-07-28';
export const LEGACY = '2025-11-25';

function baseVerdict(url: string): Verdict {
  return {
    url,
    verdict: 'modern',
    reason: 'discover_result',
    negotiatedVersion: MODERN,
    supported: [MODERN],
    servedEras: 'modern-only',
    serverInfo: { name: 'fleet-server', version: '2.4.0' },
    cache: { ttlMs: 0, cacheScope: 'private' },
    initializeSent: false,
    anomaly: null,
    evidence: [],
    probedAt: T0,
    durationMs: 12,
    address: '127.0.0.1',
    servedBy: null,
  };
}

export function modernVerdict(over: Partial<Verdict> = {}): Verdict {
  return { ...baseVerdict('http://127.0.0.1:4001/mcp'), ...over };
}

/** A v2 node whose legacy side was seen by the audit. */
export function dualVerdict(over: Partial<Verdict> = {}): Verdict {
  return modernVerdict({ supported: [MODERN, LEGACY], servedEras: 'dual-era', ...over });
}

export function legacyVerdict(over: Partial<Verdict> = {}): Verdict {
  return {
    ...baseVerdict('http://127.0.0.1:4002/mcp'),
    verdict: 'legacy',
    reason: 'legacy_positive_evidence',
    negotiatedVersion: LEGACY,
    supported: [LEGACY],
    servedEras: 'legacy-only',
    serverInfo: { name: 'fleet-server', version: '1.32.2' },
    cache: null,
    initializeSent: true,
    ...over,
  };
}

export function unavailableVerdict(reason = 'timeout', over: Partial<Verdict> = {}): Verdict {
  return {
    ...baseVerdict('http://127.0.0.1:4003/mcp'),
    verdict: 'unavailable',
    reason,
    negotiatedVersion: null,
    supported: [],
    servedEras: 'unknown',
    serverInfo: null,
    cache: null,
    ...over,
  };
}

export function node(nodeId: string, verdict: Verdict, recentChanges: number[] = []): NodeObservation {
  return { nodeId, verdict: { ...verdict, url: `http://127.0.0.1/${nodeId}` }, recentChanges };
}

export function sample(verdict: Verdict, nodeId: string | null = null): SampleObservation {
  return { verdict, nodeId };
}

export function cycleInput(over: Partial<CycleInput> = {}): CycleInput {
  return {
    balancerId: 'bal-1',
    at: T0,
    nodes: [],
    samples: [],
    window: null,
    gateRevisions: [],
    ...over,
  };
}

/** A legacy sample whose discover and initialize both came back from one attributed node. */
export function oneNodeLegacy(servedBy: string, over: Partial<Verdict> = {}): Verdict {
  const step = (step: 'discover' | 'initialize', method: string) => ({
    step,
    method,
    protocolVersion: step === 'discover' ? MODERN : LEGACY,
    requestId: `${step}-1`,
    httpStatus: 400,
    contentType: 'application/json',
    outcome: 'rpc_error' as const,
    rpcError: null,
    elapsedMs: 1,
    servedBy,
  });
  return legacyVerdict({
    servedBy,
    evidence: [step('discover', 'server/discover'), step('initialize', 'initialize')],
    ...over,
  });
}
