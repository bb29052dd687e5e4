// The probe over real TLS on loopback, with a CA and certificates made at test start: sessions resumed on a
// node's next connection, an idle connection the server closed retried once on a fresh (resumed) one, each
// certificate failure named, the certificate's expiry in the verdict, and the real SDK peers behind TLS
// giving the same verdicts as without.
import { createServer, type Server } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeers, type PeerKind, type RunningPeer } from '@/lib/peers/spawn';
import { createProbeAgent, DEFAULT_PROBE_OPTIONS, probeNode, type ProbeAgent } from '@/lib/probe';
import type { Verdict } from '@/lib/probe/types';
import { discoverResult } from '@/tests/support/fault-peer';
import { issueCert, makeCa, type LeafCert, type TestCa } from '@/tests/support/tls-certs';
import { startTlsTerminator, type TlsTerminator } from '@/tests/support/tls-terminator';

const LOOPBACK = { allowLoopback: true, allowPrivate: true };
const NAME = 'mcp.fleet.test';
const DAY = 86_400_000;

interface Seen {
  method: string;
  resumed: boolean;
  socket: number;
}

interface TlsPeer {
  port: number;
  seen: Seen[];
  server: Server;
}

let ca: TestCa;
let good: LeafCert;
const servers: Server[] = [];
const agents: ProbeAgent[] = [];

/**
 * An HTTPS MCP node answering every discover with a DiscoverResult; `onRequest` may act first (close the
 * connection, say) and return true to leave the request unanswered.
 */
async function startNode(
  cert: LeafCert,
  options: { keepAlive?: boolean; onRequest?: (socketRequests: number, req: Seen) => boolean } = {},
): Promise<TlsPeer> {
  const seen: Seen[] = [];
  const sockets = new Map<object, { id: number; requests: number }>();
  const server = createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
    const socket = req.socket as TLSSocket;
    let entry = sockets.get(socket);
    if (!entry) {
      entry = { id: sockets.size + 1, requests: 0 };
      sockets.set(socket, entry);
    }
    entry.requests += 1;
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const msg = JSON.parse(raw) as { id: string; method: string };
      const record = { method: msg.method, resumed: socket.isSessionReused(), socket: entry.id };
      seen.push(record);
      if (options.onRequest?.(entry.requests, record)) {
        socket.destroy();
        return;
      }
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (options.keepAlive === false) headers.connection = 'close';
      res.writeHead(200, headers).end(JSON.stringify(discoverResult(msg.id)));
    });
  });
  server.keepAliveTimeout = 60_000;
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { port: typeof address === 'object' && address ? address.port : 0, seen, server };
}

function agentWith(caPem: string | null): ProbeAgent {
  const agent = createProbeAgent(LOOPBACK, caPem === null ? {} : { tls: { ca: caPem } });
  agents.push(agent);
  return agent;
}

function probe(agent: ProbeAgent, port: number, extra: { allowLegacy?: boolean; name?: string } = {}) {
  return probeNode(
    {
      url: `https://${extra.name ?? NAME}:${port}/mcp`,
      connectAddress: '127.0.0.1',
      allowLegacy: extra.allowLegacy ?? false,
    },
    DEFAULT_PROBE_OPTIONS,
    { dispatcher: agent, egress: LOOPBACK },
  );
}

beforeAll(async () => {
  ca = await makeCa();
  good = await issueCert(ca, [NAME]);
});

afterAll(async () => {
  await Promise.all(agents.map((a) => a.close()));
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

describe('TLS sessions and kept connections', () => {
  it("resumes the node's TLS session on its second probe, and the certificate's expiry is in the verdict", async () => {
    // The server closes every connection after its answer, so each probe opens a new one.
    const node = await startNode(good, { keepAlive: false });
    const agent = agentWith(ca.cert);
    const first = await probe(agent, node.port);
    const second = await probe(agent, node.port);
    expect(first).toMatchObject({ verdict: 'modern', reason: 'discover_result' });
    expect(second).toMatchObject({ verdict: 'modern', reason: 'discover_result' });
    expect(node.seen.map((s) => [s.socket, s.resumed])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(agent.tlsCounters).toEqual({ handshakes: 2, resumed: 1, failed: 0 });
    expect(first.tls?.certificateExpiresAt).toBe(Math.floor(good.notAfter.getTime() / 1000) * 1000);
    // A resumed session still knows the certificate it was verified with.
    expect(second.tls).toEqual(first.tls);
  });

  it('keeps the connection between probes where the server keeps it', async () => {
    const node = await startNode(good);
    const agent = agentWith(ca.cert);
    for (let i = 0; i < 3; i++) expect((await probe(agent, node.port)).verdict).toBe('modern');
    expect(new Set(node.seen.map((s) => s.socket)).size).toBe(1);
    expect(agent.tlsCounters.handshakes).toBe(1);
  });

  it('retries once, on a fresh resumed connection, when the server closed the idle one: the verdict is the same', async () => {
    // The server drops a connection when its second request arrives, as one whose idle timer fired while
    // the request was on its way: the request got no byte of an answer.
    const node = await startNode(good, { onRequest: (n) => n === 2 });
    const agent = agentWith(ca.cert);
    const first = await probe(agent, node.port);
    const second = await probe(agent, node.port);
    expect(second.verdict).toBe(first.verdict);
    expect(second.reason).toBe(first.reason);
    expect(second.evidence.map((e) => [e.step, e.outcome])).toEqual([['discover', 'result']]);
    expect(node.seen.map((s) => [s.socket, s.resumed])).toEqual([
      [1, false],
      [1, false],
      [2, true],
    ]);
    expect(agent.tlsCounters).toEqual({ handshakes: 2, resumed: 1, failed: 0 });
  });

  it('never offers one name’s session or connection to another name on the same address', async () => {
    const both = await issueCert(ca, [NAME, 'other.fleet.test']);
    const node = await startNode(both);
    const agent = agentWith(ca.cert);
    await probe(agent, node.port);
    await probe(agent, node.port, { name: 'other.fleet.test' });
    expect(node.seen.map((s) => [s.socket, s.resumed])).toEqual([
      [1, false],
      [2, false],
    ]);
  });
});

describe('certificate failures', () => {
  const cases: Array<{
    name: string;
    reason: Verdict['reason'];
    setup: () => Promise<{ cert: LeafCert; caPem: string | null }>;
  }> = [
    {
      name: 'a certificate from a CA the operator did not give',
      reason: 'tls_untrusted',
      setup: async () => ({ cert: good, caPem: null }),
    },
    {
      name: 'a certificate from another private CA',
      reason: 'tls_untrusted',
      setup: async () => ({ cert: await issueCert(await makeCa('Other CA'), [NAME]), caPem: ca.cert }),
    },
    {
      name: 'an expired certificate',
      reason: 'tls_expired',
      setup: async () => ({
        cert: await issueCert(ca, [NAME], {
          notBefore: new Date(Date.now() - 10 * DAY),
          notAfter: new Date(Date.now() - DAY),
        }),
        caPem: ca.cert,
      }),
    },
    {
      name: 'a certificate naming another host',
      reason: 'tls_name_mismatch',
      setup: async () => ({ cert: await issueCert(ca, ['elsewhere.test']), caPem: ca.cert }),
    },
  ];

  it.each(cases)('$name: unavailable with $reason, nothing sent, never an era', async (c) => {
    const { cert, caPem } = await c.setup();
    const node = await startNode(cert);
    const agent = agentWith(caPem);
    // allowLegacy: a certificate failure is not an ambiguous answer, so no initialize follows either.
    const v = await probe(agent, node.port, { allowLegacy: true });
    expect(v).toMatchObject({ verdict: 'unavailable', reason: c.reason, initializeSent: false });
    expect(v.evidence.map((e) => [e.step, e.outcome])).toEqual([['discover', c.reason]]);
    expect(v.tls?.certificateExpiresAt).toBe(Math.floor(cert.notAfter.getTime() / 1000) * 1000);
    expect(node.seen).toEqual([]);
    expect(agent.tlsCounters).toMatchObject({ handshakes: 0, failed: 1 });
    // The failed connection's session is never offered again: the next probe checks afresh.
    expect((await probe(agent, node.port)).reason).toBe(c.reason);
    expect(agent.tlsCounters).toMatchObject({ handshakes: 0, resumed: 0, failed: 2 });
  });
});

describe('real SDK peers behind TLS', () => {
  const kinds: PeerKind[] = ['v2-dual', 'v2-modern', 'v1-stateful', 'v1-stateless', 'everything'];
  let peers: RunningPeer[] = [];
  const fronts = new Map<PeerKind, TlsTerminator>();

  beforeAll(async () => {
    peers = await startPeers(kinds.map((kind) => ({ kind })));
    const cert = await issueCert(ca, ['127.0.0.1']);
    for (const p of peers) {
      const url = new URL(p.url);
      fronts.set(p.kind, await startTlsTerminator({ host: '127.0.0.1', port: Number(url.port) }, cert));
    }
  }, 120_000);

  afterAll(async () => {
    await Promise.all([...fronts.values()].map((f) => f.close()));
    await Promise.all(peers.map((p) => p.stop()));
  });

  /** What a verdict concluded, without timings, ids or addresses. */
  function essence(v: Verdict) {
    return {
      verdict: v.verdict,
      reason: v.reason,
      negotiatedVersion: v.negotiatedVersion,
      supported: v.supported,
      servedEras: v.servedEras,
      serverInfo: v.serverInfo,
      initializeSent: v.initializeSent,
      steps: v.evidence.map((e) => [e.step, e.outcome, e.httpStatus]),
    };
  }

  it.each(kinds.flatMap((kind) => [false, true].map((legacy) => ({ kind, legacy }))))(
    '$kind (allowLegacy and auditLegacy $legacy): the same verdict over HTTPS as over HTTP',
    async ({ kind, legacy }) => {
      const peer = peers.find((p) => p.kind === kind);
      const front = fronts.get(kind);
      if (!peer || !front) throw new Error(`peer ${kind} did not start`);
      const agent = agentWith(ca.cert);
      const target = { allowLegacy: legacy, auditLegacy: legacy };
      const deps = { dispatcher: agent, egress: LOOPBACK };
      const plain = await probeNode({ url: peer.url, ...target }, DEFAULT_PROBE_OPTIONS, deps);
      const url = new URL(peer.url);
      const secure = await probeNode(
        { url: `https://127.0.0.1:${front.port}${url.pathname}`, ...target },
        DEFAULT_PROBE_OPTIONS,
        deps,
      );
      expect(essence(secure)).toEqual(essence(plain));
      expect(plain.tls).toBeUndefined();
      expect(secure.tls?.certificateExpiresAt).toEqual(expect.any(Number));
    },
  );
});
