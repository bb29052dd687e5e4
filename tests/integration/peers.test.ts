import { afterAll, describe, expect, it } from 'vitest';
import { PEER_KINDS, startPeers, type RunningPeer } from '@/lib/peers/spawn';

const discover = {
  jsonrpc: '2.0',
  id: 1,
  method: 'server/discover',
  params: {
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'erawatch-test', version: '0' },
    },
  },
};

describe('real SDK peers', () => {
  let peers: RunningPeer[] = [];
  afterAll(async () => {
    await Promise.all(peers.map((p) => p.stop()));
  });

  it('start on loopback and answer server/discover as their SDK does', async () => {
    peers = await startPeers(PEER_KINDS.map((kind) => ({ kind })));
    const statuses: Record<string, number> = {};
    for (const peer of peers) {
      const res = await fetch(peer.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'server/discover',
        },
        body: JSON.stringify(discover),
      });
      await res.text();
      statuses[peer.kind] = res.status;
    }
    expect(statuses).toEqual({
      'v2-dual': 200,
      'v2-modern': 200,
      'v1-stateful': 400,
      'v1-stateless': 400,
      everything: 400,
    });
  });
});
