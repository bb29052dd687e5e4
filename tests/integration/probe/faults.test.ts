// The probe against small misbehaving servers on loopback: each fault has its verdict and reason, the
// deadline and the byte cap hold, and nothing ambiguous ever earns an initialize without allowLegacy.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgressAgent, EgressRefusedError } from '@/lib/net/egress';
import {
  closeSharedProbeAgents,
  createProbeAgent,
  DEFAULT_PROBE_OPTIONS,
  probeNode,
  type ProbeOptions,
  type Verdict,
} from '@/lib/probe';
import {
  discoverResult,
  initializeResult,
  legacyHandler,
  rpcError,
  rpcOf,
  sendJson,
  sendSse,
  startFaultPeer,
  type FaultHandler,
  type FaultPeer,
} from '@/tests/support/fault-peer';

const LOOPBACK = { egress: { allowLoopback: true, allowPrivate: true } };
const FAST: ProbeOptions = { ...DEFAULT_PROBE_OPTIONS, timeoutMs: 1_500, legacyProbeTimeoutMs: 1_000 };

const peers: FaultPeer[] = [];
async function peer(handler: FaultHandler, host?: string): Promise<FaultPeer> {
  const p = await startFaultPeer(handler, host);
  peers.push(p);
  return p;
}

afterAll(async () => {
  await Promise.all(peers.map((p) => p.close()));
  await closeSharedProbeAgents();
});

const sseEvent = (message: unknown) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

function onDiscover(answer: (id: unknown, res: ServerResponse) => void): FaultHandler {
  return (req, res) => {
    const { method, id } = rpcOf(req);
    if (method === 'server/discover') return answer(id, res);
    if (method === 'initialize') return sendJson(res, 200, initializeResult(id));
    res.writeHead(202).end();
  };
}

/** Writes `total` bytes of JSON-looking filler as fast as the client reads, stopping when it goes away. */
function hugeBody(total: number): FaultHandler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    let closed = false;
    res.on('close', () => {
      closed = true;
    });
    const pump = (): void => {
      while (!closed && sent < total) {
        sent += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
      if (!closed) res.end();
    };
    pump();
  };
}

function drip(): FaultHandler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const timer = setInterval(() => res.write('{'), 1_000);
    res.on('close', () => clearInterval(timer));
  };
}

interface FaultCase {
  name: string;
  handler: FaultHandler;
  allowLegacy?: boolean;
  auditLegacy?: boolean;
  verdict: Verdict['verdict'];
  reason: string;
  outcomes: string[];
  initializeSent: boolean;
  rpcCode?: number;
  servedEras?: Verdict['servedEras'];
  supported?: string[];
  anomaly?: boolean;
}

const CASES: FaultCase[] = [
  {
    name: 'never answers',
    handler: () => undefined,
    verdict: 'unavailable',
    reason: 'timeout',
    outcomes: ['timeout'],
    initializeSent: false,
  },
  {
    name: 'never answers, allowLegacy: the one initialize also times out',
    handler: () => undefined,
    allowLegacy: true,
    verdict: 'unavailable',
    reason: 'timeout',
    outcomes: ['timeout', 'timeout'],
    initializeSent: true,
  },
  {
    name: 'accepts then closes',
    handler: (_req, res) => res.socket?.destroy(),
    verdict: 'unavailable',
    reason: 'closed',
    outcomes: ['closed'],
    initializeSent: false,
  },
  {
    name: 'resets the connection',
    handler: (_req, res) => res.socket?.resetAndDestroy(),
    verdict: 'unavailable',
    reason: 'reset',
    outcomes: ['reset'],
    initializeSent: false,
  },
  {
    name: 'empty 200',
    handler: (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(),
    verdict: 'unavailable',
    reason: 'empty',
    outcomes: ['empty'],
    initializeSent: false,
  },
  {
    name: 'HTML 502',
    handler: (_req, res) =>
      res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>Bad Gateway</body></html>'),
    verdict: 'unavailable',
    reason: 'http_5xx',
    outcomes: ['http_5xx'],
    initializeSent: false,
  },
  {
    name: 'invalid JSON',
    handler: (_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0",'),
    verdict: 'unavailable',
    reason: 'invalid_json',
    outcomes: ['invalid_json'],
    initializeSent: false,
  },
  {
    name: 'wrong id',
    handler: onDiscover((_id, res) => sendJson(res, 200, discoverResult('someone-else'))),
    verdict: 'unavailable',
    reason: 'wrong_id',
    outcomes: ['wrong_id'],
    initializeSent: false,
  },
  {
    name: '401',
    handler: (_req, res) => {
      res.setHeader('www-authenticate', 'Bearer');
      sendJson(res, 401, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Unauthorized' } });
    },
    verdict: 'unavailable',
    reason: 'auth_required',
    outcomes: ['auth_required'],
    initializeSent: false,
  },
  {
    name: '-32601 as a 404 JSON body',
    handler: onDiscover((id, res) => sendJson(res, 404, rpcError(id, -32601, 'Method not found'))),
    verdict: 'unavailable',
    reason: 'ambiguous_not_allowlisted',
    outcomes: ['rpc_error'],
    rpcCode: -32601,
    initializeSent: false,
  },
  {
    name: '-32601 inside a 200 SSE stream, with a priming event',
    handler: onDiscover((id, res) =>
      sendSse(res, 200, [
        'id: prime\ndata:\n\n',
        `event: message\ndata: ${JSON.stringify(rpcError(id, -32601, 'Method not found'))}\n\n`,
      ]),
    ),
    verdict: 'unavailable',
    reason: 'ambiguous_not_allowlisted',
    outcomes: ['rpc_error'],
    rpcCode: -32601,
    initializeSent: false,
  },
  {
    name: '-32601 with allowLegacy: eligible for the one legacy probe, which passes',
    handler: legacyHandler((id) => initializeResult(id)),
    allowLegacy: true,
    verdict: 'legacy',
    reason: 'legacy_positive_evidence',
    outcomes: ['rpc_error', 'result'],
    initializeSent: true,
    servedEras: 'legacy-only',
    supported: ['2025-11-25'],
  },
  {
    name: '-32022 with no mutual revision, even with allowLegacy',
    handler: onDiscover((id, res) =>
      sendJson(
        res,
        400,
        rpcError(id, -32022, 'Unsupported', { supported: ['2030-01-01'], requested: '2026-07-28' }),
      ),
    ),
    allowLegacy: true,
    auditLegacy: true,
    verdict: 'unavailable',
    reason: 'modern_incompatible',
    outcomes: ['rpc_error'],
    rpcCode: -32022,
    initializeSent: false,
    servedEras: 'modern-only',
    supported: ['2030-01-01'],
  },
  {
    name: '-32022 listing only handshake-era revisions: anomaly, served set from the list',
    handler: onDiscover((id, res) =>
      sendJson(
        res,
        400,
        rpcError(id, -32022, 'Unsupported', {
          supported: ['2025-06-18', '2025-11-25'],
          requested: '2026-07-28',
        }),
      ),
    ),
    allowLegacy: true,
    auditLegacy: true,
    verdict: 'unavailable',
    reason: 'modern_incompatible',
    outcomes: ['rpc_error'],
    rpcCode: -32022,
    initializeSent: false,
    servedEras: 'legacy-only',
    supported: ['2025-11-25', '2025-06-18'],
    anomaly: true,
  },
  {
    name: 'a DiscoverResult with no revision in common: no initialize, not even the audit',
    handler: onDiscover((id, res) => sendJson(res, 200, discoverResult(id, ['2030-01-01']))),
    allowLegacy: true,
    auditLegacy: true,
    verdict: 'unavailable',
    reason: 'modern_incompatible',
    outcomes: ['result'],
    initializeSent: false,
    servedEras: 'modern-only',
    supported: ['2030-01-01'],
  },
  {
    name: 'the audit stops at the first initialize that gets no answer',
    handler: (req, res) => {
      const { method, id } = rpcOf(req);
      if (method === 'server/discover') sendJson(res, 200, discoverResult(id));
    },
    auditLegacy: true,
    verdict: 'modern',
    reason: 'discover_result',
    outcomes: ['result', 'timeout'],
    initializeSent: true,
    servedEras: 'modern-only',
    supported: ['2026-07-28'],
  },
  {
    name: '-32020 is modern even with allowLegacy',
    handler: onDiscover((id, res) => sendJson(res, 400, rpcError(id, -32020, 'Header mismatch'))),
    allowLegacy: true,
    auditLegacy: true,
    verdict: 'modern',
    reason: 'modern_error_header_mismatch',
    outcomes: ['rpc_error'],
    rpcCode: -32020,
    initializeSent: false,
    servedEras: 'unknown',
    supported: [],
  },
  {
    name: '-32021 is modern even with allowLegacy',
    handler: onDiscover((id, res) =>
      sendJson(
        res,
        400,
        rpcError(id, -32021, 'Missing capability', { requiredCapabilities: { sampling: {} } }),
      ),
    ),
    allowLegacy: true,
    auditLegacy: true,
    verdict: 'modern',
    reason: 'modern_error_missing_capability',
    outcomes: ['rpc_error'],
    rpcCode: -32021,
    initializeSent: false,
    servedEras: 'modern-only',
    supported: ['2026-07-28'],
  },
  {
    name: 'a DiscoverResult missing supportedVersions is ambiguous',
    handler: onDiscover((id, res) => {
      const body = discoverResult(id);
      delete (body.result as Record<string, unknown>).supportedVersions;
      sendJson(res, 200, body);
    }),
    verdict: 'unavailable',
    reason: 'ambiguous_not_allowlisted',
    outcomes: ['result'],
    initializeSent: false,
  },
  {
    name: 'a DiscoverResult missing supportedVersions, allowLegacy: the legacy probe decides',
    handler: onDiscover((id, res) => {
      const body = discoverResult(id);
      delete (body.result as Record<string, unknown>).supportedVersions;
      sendJson(res, 200, body);
    }),
    allowLegacy: true,
    verdict: 'legacy',
    reason: 'legacy_positive_evidence',
    outcomes: ['result', 'result'],
    initializeSent: true,
  },
  ...(
    [
      ['id_match', (id: unknown) => initializeResult(`${String(id)}-not`)],
      [
        'single_result',
        (id: unknown) => ({ ...initializeResult(id), error: { code: -32603, message: 'and also an error' } }),
      ],
      ['protocol_version', (id: unknown) => initializeResult(id, { protocolVersion: '2099-01-01' })],
      ['capabilities_object', (id: unknown) => initializeResult(id, { capabilities: ['tools'] })],
      ['server_info', (id: unknown) => initializeResult(id, { serverInfo: { name: '', version: '1.0.0' } })],
    ] as const
  ).map(([check, init]): FaultCase => ({
    name: `initialize failing the ${check} check`,
    handler: legacyHandler(init),
    allowLegacy: true,
    verdict: 'unavailable',
    reason: `legacy_check_failed:${check}`,
    outcomes: [
      'rpc_error',
      check === 'id_match' ? 'wrong_id' : check === 'single_result' ? 'rpc_error' : 'result',
    ],
    initializeSent: true,
  })),
  {
    name: 'an initialize that exceeds legacyProbeTimeoutMs',
    handler: (req, res) => {
      const { method, id } = rpcOf(req);
      if (method === 'server/discover') sendJson(res, 404, rpcError(id, -32601, 'Method not found'));
    },
    allowLegacy: true,
    verdict: 'unavailable',
    reason: 'timeout',
    outcomes: ['rpc_error', 'timeout'],
    initializeSent: true,
  },
];

describe('probeNode against fault peers', () => {
  it.each(CASES)('$name', async (c) => {
    const p = await peer(c.handler);
    const v = await probeNode(
      { url: p.url, allowLegacy: c.allowLegacy, auditLegacy: c.auditLegacy },
      FAST,
      LOOPBACK,
    );
    expect({ verdict: v.verdict, reason: v.reason, initializeSent: v.initializeSent }).toEqual({
      verdict: c.verdict,
      reason: c.reason,
      initializeSent: c.initializeSent,
    });
    expect(v.evidence.map((e) => e.outcome)).toEqual(c.outcomes);
    if (c.rpcCode !== undefined) expect(v.evidence[0]?.rpcError?.code).toBe(c.rpcCode);
    if (c.servedEras) expect(v.servedEras).toBe(c.servedEras);
    if (c.supported) expect(v.supported).toEqual(c.supported);
    expect(v.anomaly !== null).toBe(c.anomaly ?? false);
    // Server side: an initialize arrived exactly when the verdict says one was sent.
    const initializes = p.received.filter((r) => rpcOf(r).method === 'initialize').length;
    expect(initializes > 0).toBe(c.initializeSent);
    if (c.reason.startsWith('legacy_check_failed:')) {
      const failed = v.evidence[1]?.checks?.find((check) => !check.passed);
      expect(failed?.name).toBe(c.reason.split(':')[1]);
      expect(p.received.some((r) => rpcOf(r).method === 'notifications/initialized')).toBe(false);
    }
  });

  it('stops reading a 100 MB body at the byte cap', async () => {
    const p = await peer(hugeBody(100 * 1024 * 1024));
    const heapBefore = process.memoryUsage().heapUsed;
    const v = await probeNode({ url: p.url }, { ...FAST, timeoutMs: 20_000 }, LOOPBACK);
    expect(v.reason).toBe('body_too_large');
    expect(v.evidence[0]?.detail).toContain(String(DEFAULT_PROBE_OPTIONS.maxBodyBytes));
    // The server got to write only a small part of the 100 MB before the probe hung up.
    expect(p.bytesWritten()).toBeLessThan(32 * 1024 * 1024);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(32 * 1024 * 1024);
  });

  it('holds one overall deadline against a body that drips one byte a second', async () => {
    const p = await peer(drip());
    const v = await probeNode({ url: p.url }, { ...FAST, timeoutMs: 1_200 }, LOOPBACK);
    expect(v.reason).toBe('timeout');
    expect(v.evidence[0]?.httpStatus).toBe(200);
    // A between-chunks timeout would never fire here; the overall deadline does.
    expect(v.durationMs).toBeLessThan(10_000);
  });

  it('never follows a redirect to another host', async () => {
    const elsewhere = await peer(
      onDiscover((id, res) => sendJson(res, 200, discoverResult(id))),
      '127.0.0.2',
    );
    const p = await peer((_req, res) => res.writeHead(307, { location: elsewhere.url }).end());
    const v = await probeNode({ url: p.url, allowLegacy: true }, FAST, LOOPBACK);
    expect(v.evidence[0]?.outcome).toBe('redirect_refused');
    expect(v.evidence[0]?.httpStatus).toBe(307);
    expect(elsewhere.received).toHaveLength(0);
  });

  it('sends discover with both headers and the _meta envelope, and retries -32022 once with a new id', async () => {
    const p = await peer((req, res) => {
      const { id } = rpcOf(req);
      const version = req.headers['mcp-protocol-version'];
      if (version === '2026-07-28') return sendJson(res, 200, discoverResult(id, ['2026-07-28']));
      sendJson(
        res,
        400,
        rpcError(id, -32022, `Unsupported protocol version: ${String(version)}`, {
          supported: ['2026-07-28'],
          requested: version,
        }),
      );
    });
    const options = { ...FAST, modernVersions: ['2099-01-01', '2026-07-28'] };
    const v = await probeNode({ url: p.url, allowLegacy: true }, options, LOOPBACK);
    expect(v).toMatchObject({
      verdict: 'modern',
      reason: 'negotiated_after_32022',
      negotiatedVersion: '2026-07-28',
      serverInfo: { name: 'fault-peer', version: '9.9.9' },
      cache: { ttlMs: 60_000, cacheScope: 'public' },
      initializeSent: false,
    });
    expect(p.received).toHaveLength(2);
    const [first, retry] = p.received;
    expect(first?.headers['mcp-method']).toBe('server/discover');
    expect(first?.headers.accept).toBe('application/json, text/event-stream');
    expect(first?.body?.params).toEqual({
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2099-01-01',
        'io.modelcontextprotocol/clientInfo': DEFAULT_PROBE_OPTIONS.clientInfo,
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    });
    expect(retry?.headers['mcp-protocol-version']).toBe('2026-07-28');
    expect(retry?.body?.id).not.toEqual(first?.body?.id);
    expect(v.evidence.map((e) => [e.step, e.requestId])).toEqual([
      ['discover', first?.body?.id],
      ['discover-retry', retry?.body?.id],
    ]);
  });

  it('ends the legacy session it opened: initialized notification and DELETE carry the session id', async () => {
    const p = await peer((req, res) => {
      const { method, id } = rpcOf(req);
      if (method === 'server/discover')
        return sendJson(res, 400, rpcError(null, -32000, 'Server not initialized'));
      if (method === 'initialize') {
        res.setHeader('mcp-session-id', 'sess-42');
        return sendSse(res, 200, [
          'data:\n\n',
          `event: message\ndata: ${JSON.stringify(initializeResult(id))}\n\n`,
        ]);
      }
      res.writeHead(req.httpMethod === 'DELETE' ? 200 : 202).end();
    });
    const v = await probeNode({ url: p.url, allowLegacy: true }, FAST, LOOPBACK);
    expect(v).toMatchObject({
      verdict: 'legacy',
      negotiatedVersion: '2025-11-25',
      reason: 'legacy_positive_evidence',
    });
    expect(v.evidence[1]?.sessionIssued).toBe(true);
    const after = p.received
      .slice(1)
      .map((r) => [r.httpMethod, rpcOf(r).method, r.headers['mcp-session-id']]);
    expect(after).toEqual([
      ['POST', 'initialize', undefined],
      ['POST', 'notifications/initialized', 'sess-42'],
      ['DELETE', null, 'sess-42'],
    ]);
    expect(p.received[2]?.headers['mcp-protocol-version']).toBe('2025-11-25');
  });

  it('an allowlisted target whose port is closed was never sent initialize', async () => {
    const closed = await peer((_req, res) => res.writeHead(202).end());
    const url = closed.url;
    await closed.close();
    const v = await probeNode({ url, allowLegacy: true }, FAST, LOOPBACK);
    expect(v).toMatchObject({ verdict: 'unavailable', reason: 'refused', initializeSent: false });
    expect(v.evidence.map((e) => [e.step, e.outcome])).toEqual([
      ['discover', 'refused'],
      ['initialize', 'refused'],
    ]);
  });

  it('keeps the connection after an SSE answer: three legacy probes use at most two sockets', async () => {
    const p = await peer((req, res) => {
      const { method, id } = rpcOf(req);
      if (method === 'server/discover')
        return sendJson(res, 400, rpcError(null, -32000, 'Server not initialized'));
      if (method === 'initialize') return sendSse(res, 200, [sseEvent(initializeResult(id))]);
      res.writeHead(202).end();
    });
    const agent = createProbeAgent(LOOPBACK.egress);
    try {
      for (let i = 0; i < 3; i++) {
        const v = await probeNode({ url: p.url, allowLegacy: true }, FAST, {
          ...LOOPBACK,
          dispatcher: agent,
        });
        expect(v.verdict).toBe('legacy');
      }
    } finally {
      await agent.close();
    }
    expect(p.received.map((r) => rpcOf(r).method)).toEqual([
      ...['server/discover', 'initialize', 'notifications/initialized'],
      ...['server/discover', 'initialize', 'notifications/initialized'],
      ...['server/discover', 'initialize', 'notifications/initialized'],
    ]);
    // The stream's end may trail our answer, so the notification can need a second socket; none is torn
    // down, so the count does not grow with the probes (cutting each stream made it one per probe).
    expect(p.connections()).toBeLessThanOrEqual(2);
  });

  it('settles at our SSE answer and closes a stream that goes on after it', async () => {
    let streamClosed: () => void = () => undefined;
    const closed = new Promise<void>((r) => (streamClosed = r));
    const p = await peer((req, res) => {
      const { method, id } = rpcOf(req);
      if (method === 'server/discover')
        return sendJson(res, 400, rpcError(null, -32000, 'Server not initialized'));
      if (method === 'initialize') {
        res.on('close', () => streamClosed());
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(sseEvent(initializeResult(id)));
        return; // never ended: only the client can close it
      }
      res.writeHead(202).end();
    });
    const v = await probeNode({ url: p.url, allowLegacy: true }, FAST, LOOPBACK);
    expect(v).toMatchObject({ verdict: 'legacy', reason: 'legacy_positive_evidence' });
    await closed;
  });

  it('sends static target headers (auth) on every request', async () => {
    const p = await peer(onDiscover((id, res) => sendJson(res, 200, discoverResult(id))));
    const v = await probeNode({ url: p.url, headers: { Authorization: 'Bearer t0ken' } }, FAST, LOOPBACK);
    expect(v.verdict).toBe('modern');
    expect(p.received[0]?.headers.authorization).toBe('Bearer t0ken');
  });
});

describe('probeNode egress', () => {
  let target: FaultPeer;
  beforeAll(async () => {
    target = await peer(onDiscover((id, res) => sendJson(res, 200, discoverResult(id))));
  });

  it('refuses loopback unless the policy allows it, and sends nothing', async () => {
    const before = target.received.length;
    const v = await probeNode({ url: target.url, allowLegacy: true }, FAST, {
      egress: { allowLoopback: false, allowPrivate: true },
    });
    expect(v).toMatchObject({ verdict: 'unavailable', reason: 'egress_refused', initializeSent: false });
    expect(v.evidence[0]?.detail).toContain('loopback');
    expect(target.received.length).toBe(before);
  });

  it.each([
    ['a link-local address from DNS', '169.254.10.1', 'link-local'],
    ['the metadata address from DNS', '169.254.169.254', 'metadata'],
  ])('refuses %s even when loopback is allowed', async (_label, address, word) => {
    const v = await probeNode({ url: `http://node-a.fleet.test:${target.port}/mcp` }, FAST, {
      ...LOOPBACK,
      lookup: async () => ({ address, family: 4 }),
    });
    expect(v.reason).toBe('egress_refused');
    expect(v.evidence[0]?.detail).toContain(word);
  });

  it('resolves through the injected lookup and keeps the name in the Host header', async () => {
    const before = target.received.length;
    const v = await probeNode({ url: `http://node-a.fleet.test:${target.port}/mcp` }, FAST, {
      ...LOOPBACK,
      lookup: async () => ({ address: '127.0.0.1', family: 4 }),
    });
    expect(v).toMatchObject({ verdict: 'modern', address: '127.0.0.1' });
    expect(target.received[before]?.headers.host).toBe(`node-a.fleet.test:${target.port}`);
  });

  it('connects to connectAddress while the Host header stays the URL host', async () => {
    const before = target.received.length;
    const v = await probeNode(
      { url: `http://balancer.fleet.test:${target.port}/mcp`, connectAddress: '127.0.0.1' },
      FAST,
      { ...LOOPBACK, lookup: async () => ({ address: '203.0.113.9', family: 4 }) },
    );
    expect(v).toMatchObject({ verdict: 'modern', address: '127.0.0.1' });
    expect(target.received[before]?.headers.host).toBe(`balancer.fleet.test:${target.port}`);
  });

  it.each([
    ['file:///etc/passwd', 'scheme file:'],
    ['http://user:pw@127.0.0.1/mcp', 'credentials'],
    ['not a url', 'not a valid URL'],
  ])('refuses %s before any connection', async (url, detail) => {
    const v = await probeNode({ url }, FAST, LOOPBACK);
    expect(v.reason).toBe('egress_refused');
    expect(v.evidence[0]?.detail).toContain(detail);
  });
});

describe('createEgressAgent (the guard webhooks reuse)', () => {
  it('refuses at connect time what the policy forbids, and connects what it allows', async () => {
    const target = await peer((_req, res) => res.writeHead(204).end());
    const strict = createEgressAgent({ allowLoopback: false, allowPrivate: false });
    const named = createEgressAgent(
      { allowLoopback: true, allowPrivate: false },
      { lookup: async () => ({ address: '127.0.0.1', family: 4 }) },
    );
    try {
      await expect(
        strict.request({
          origin: `http://127.0.0.1:${target.port}`,
          path: '/mcp',
          method: 'POST',
          body: '{}',
        }),
      ).rejects.toThrow(EgressRefusedError);
      expect(target.received).toHaveLength(0);
      const res = await named.request({
        origin: `http://hooks.fleet.test:${target.port}`,
        path: '/hook',
        method: 'POST',
        body: '{}',
      });
      await res.body.dump();
      expect(res.statusCode).toBe(204);
      expect(target.received[0]?.headers.host).toBe(`hooks.fleet.test:${target.port}`);
    } finally {
      await Promise.all([strict.close(), named.close()]);
    }
  });
});
