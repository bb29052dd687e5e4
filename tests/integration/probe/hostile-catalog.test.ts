// A catalog a server shapes to hurt: schemas nested far past the call stack's depth, and a tools/list answer
// whose id is itself nested that deep. The catalog is digested or fails; the verdict never changes.
import type { ServerResponse } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { closeSharedProbeAgents, DEFAULT_PROBE_OPTIONS, probeNode, type ProbeOptions } from '@/lib/probe';
import { discoverResult, rpcOf, sendJson, startFaultPeer, type FaultPeer } from '@/tests/support/fault-peer';

const LOOPBACK = { egress: { allowLoopback: true, allowPrivate: true } };
const FAST: ProbeOptions = { ...DEFAULT_PROBE_OPTIONS, timeoutMs: 5_000, legacyProbeTimeoutMs: 2_000 };
const DEPTH = 10_000;

/** `{"a":{"a":…{}…}}` nested `depth` levels, built as text: JSON.stringify itself would overflow. */
function nestedText(depth: number): string {
  return `${'{"a":'.repeat(depth)}{}${'}'.repeat(depth)}`;
}

function sendText(res: ServerResponse, text: string): void {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const peers: FaultPeer[] = [];
afterAll(async () => {
  await Promise.all(peers.map((p) => p.close()));
  await closeSharedProbeAgents();
});

async function modernPeer(toolsList: (id: unknown, res: ServerResponse) => void): Promise<FaultPeer> {
  const p = await startFaultPeer((req, res) => {
    const { method, id } = rpcOf(req);
    if (method === 'server/discover') return sendJson(res, 200, discoverResult(id));
    if (method === 'tools/list') return toolsList(id, res);
    res.writeHead(202).end();
  });
  peers.push(p);
  return p;
}

describe('a hostile catalog', () => {
  it(`digests an inputSchema nested ${DEPTH} levels and keeps the modern verdict`, async () => {
    const p = await modernPeer((id, res) =>
      sendText(
        res,
        `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"tools":[{"name":"deep","inputSchema":${nestedText(DEPTH)}}]}}`,
      ),
    );
    const v = await probeNode({ url: p.url, catalog: { list: 'always' } }, FAST, LOOPBACK);
    expect(v).toMatchObject({
      verdict: 'modern',
      reason: 'discover_result',
      negotiatedVersion: '2026-07-28',
    });
    expect(v.catalog).toMatchObject({ status: 'listed', names: ['deep'] });
    expect(v.anomaly ?? null).toBeNull();
  });

  it('a tools/list answer with a deeply nested id fails the catalog, not the verdict', async () => {
    const p = await modernPeer((_id, res) =>
      sendText(res, `{"jsonrpc":"2.0","id":${nestedText(DEPTH)},"result":{"tools":[]}}`),
    );
    const v = await probeNode({ url: p.url, catalog: { list: 'always' } }, FAST, LOOPBACK);
    expect(v).toMatchObject({
      verdict: 'modern',
      reason: 'discover_result',
      negotiatedVersion: '2026-07-28',
    });
    expect(v.catalog).toMatchObject({ status: 'failed', reason: 'tools/list wrong_id' });
    expect(v.evidence.at(-1)).toMatchObject({ step: 'catalog', outcome: 'wrong_id' });
    expect(v.evidence.at(-1)?.detail).toContain('response id (an object)');
  });
});
