// probeNode against the real MCP SDK servers (lib/peers) with allowLegacy and auditLegacy off and on: the
// verdicts match reference/mcp-wire.md, and what each server received is checked on the server side.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeers, type PeerKind, type RunningPeer } from '@/lib/peers/spawn';
import { closeSharedProbeAgents, DEFAULT_PROBE_OPTIONS, probeNode, type Verdict } from '@/lib/probe';

const LOOPBACK = { egress: { allowLoopback: true, allowPrivate: true } };
const ALL_LEGACY = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

let peers = new Map<PeerKind, RunningPeer>();

beforeAll(async () => {
  const started = await startPeers([
    { kind: 'v2-dual', name: 'peer-dual', version: '2.4.0-t' },
    { kind: 'v2-modern', name: 'peer-modern', version: '2.4.0-t' },
    { kind: 'v1-stateful', name: 'peer-v1-stateful', version: '1.32.2-t' },
    { kind: 'v1-stateless', name: 'peer-v1-stateless', version: '1.32.2-t' },
    { kind: 'everything' },
  ]);
  peers = new Map(started.map((p) => [p.kind, p]));
});

afterAll(async () => {
  await Promise.all([...peers.values()].map((p) => p.stop()));
  await closeSharedProbeAgents();
});

function peerOf(kind: PeerKind): RunningPeer {
  const p = peers.get(kind);
  if (!p) throw new Error(`peer ${kind} did not start`);
  return p;
}

interface Expected {
  verdict: Verdict['verdict'];
  reason: string;
  negotiatedVersion: string | null;
  supported: string[];
  servedEras: Verdict['servedEras'];
  initializeSent: boolean;
  serverName: string | null;
  steps: string[];
}

const MODERN_ONLY = { supported: ['2026-07-28'], servedEras: 'modern-only' as const };
const UNAVAILABLE = {
  verdict: 'unavailable' as const,
  reason: 'ambiguous_not_allowlisted',
  negotiatedVersion: null,
  supported: [],
  servedEras: 'unknown' as const,
  initializeSent: false,
  serverName: null,
  steps: ['discover'],
};

function expected(kind: PeerKind, allowLegacy: boolean, auditLegacy: boolean): Expected {
  switch (kind) {
    case 'v2-dual':
      // From the modern side a dual-era v2 server looks modern-only; only the audit's initialize shows more.
      return {
        verdict: 'modern',
        reason: 'discover_result',
        negotiatedVersion: '2026-07-28',
        ...(auditLegacy ? { supported: ['2026-07-28', ...ALL_LEGACY], servedEras: 'dual-era' } : MODERN_ONLY),
        initializeSent: auditLegacy,
        serverName: 'peer-dual',
        steps: auditLegacy ? ['discover', 'audit', 'audit', 'audit', 'audit'] : ['discover'],
      };
    case 'v2-modern':
      // The audit's first initialize gets -32022, a modern error, which stops every further initialize.
      return {
        verdict: 'modern',
        reason: 'discover_result',
        negotiatedVersion: '2026-07-28',
        ...MODERN_ONLY,
        initializeSent: auditLegacy,
        serverName: 'peer-modern',
        steps: auditLegacy ? ['discover', 'audit'] : ['discover'],
      };
    default: {
      if (!allowLegacy) return UNAVAILABLE;
      const name = kind === 'everything' ? 'mcp-servers/everything' : `peer-${kind}`;
      return {
        verdict: 'legacy',
        reason: 'legacy_positive_evidence',
        negotiatedVersion: '2025-11-25',
        supported: auditLegacy ? ALL_LEGACY : ['2025-11-25'],
        servedEras: 'legacy-only',
        initializeSent: true,
        serverName: name,
        steps: auditLegacy
          ? ['discover', 'initialize', 'audit', 'audit', 'audit']
          : ['discover', 'initialize'],
      };
    }
  }
}

const MATRIX = (['v2-dual', 'v2-modern', 'v1-stateful', 'v1-stateless', 'everything'] as const).flatMap(
  (kind) =>
    [false, true].flatMap((allowLegacy) =>
      [false, true].map((auditLegacy) => ({ kind, allowLegacy, auditLegacy })),
    ),
);

async function openSessions(peer: RunningPeer): Promise<number> {
  const res = await fetch(new URL('/sessions', peer.url), { signal: AbortSignal.timeout(5_000) });
  return ((await res.json()) as { open: number }).open;
}

describe('probeNode against real SDK peers', () => {
  it.each(MATRIX)(
    '$kind allowLegacy=$allowLegacy auditLegacy=$auditLegacy',
    async ({ kind, allowLegacy, auditLegacy }) => {
      const peer = peerOf(kind);
      const seenBefore = kind === 'everything' ? [] : await peer.received();
      const v = await probeNode({ url: peer.url, allowLegacy, auditLegacy }, DEFAULT_PROBE_OPTIONS, LOOPBACK);
      const want = expected(kind, allowLegacy, auditLegacy);
      expect({
        verdict: v.verdict,
        reason: v.reason,
        negotiatedVersion: v.negotiatedVersion,
        supported: v.supported,
        servedEras: v.servedEras,
        initializeSent: v.initializeSent,
        serverName: v.serverInfo?.name ?? null,
        steps: v.evidence.map((e) => e.step),
      }).toEqual(want);
      const ids = v.evidence.map((e) => e.requestId);
      expect(new Set(ids).size).toBe(ids.length);

      if (kind === 'everything') return;
      const seen = (await peer.received()).slice(seenBefore.length);
      if (kind === 'v2-dual') {
        // The v2 peer records the era of every request: legacy ones are exactly the audit's initializes.
        expect(seen.filter((r) => r.era === 'legacy')).toHaveLength(auditLegacy ? 4 : 0);
        return;
      }
      if (kind === 'v2-modern') {
        // legacy:'reject' answers the audit's initialize before building a server, so only discover is recorded.
        expect(seen).toEqual([{ era: 'modern', method: 'server/discover' }]);
        return;
      }
      const methods = seen.map((r) => r.method ?? r.httpMethod);
      if (!allowLegacy) {
        // A legacy peer without allowLegacy never receives initialize, whatever auditLegacy says.
        expect(methods).toEqual(['server/discover']);
        return;
      }
      expect(methods.filter((m) => m === 'initialize')).toHaveLength(auditLegacy ? 4 : 1);
      expect(methods[2]).toBe('notifications/initialized');
      if (kind === 'v1-stateful') {
        expect(methods.filter((m) => m === 'DELETE')).toHaveLength(auditLegacy ? 4 : 1);
        expect(await openSessions(peer)).toBe(0);
      }
    },
  );

  it('retries -32022 on a revision the real v2 server names, with a new request id', async () => {
    const peer = peerOf('v2-dual');
    const v = await probeNode(
      { url: peer.url, allowLegacy: true },
      { ...DEFAULT_PROBE_OPTIONS, modernVersions: ['2099-01-01', '2026-07-28'] },
      LOOPBACK,
    );
    expect(v).toMatchObject({
      verdict: 'modern',
      reason: 'negotiated_after_32022',
      negotiatedVersion: '2026-07-28',
      initializeSent: false,
      servedEras: 'modern-only',
    });
    const [first, retry] = v.evidence;
    expect(first).toMatchObject({ step: 'discover', protocolVersion: '2099-01-01', httpStatus: 400 });
    expect(first?.rpcError?.code).toBe(-32022);
    expect(retry).toMatchObject({ step: 'discover-retry', protocolVersion: '2026-07-28', outcome: 'result' });
    expect(retry?.requestId).not.toEqual(first?.requestId);
  });
});
