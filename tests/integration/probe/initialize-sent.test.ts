// `initializeSent` means the initialize bytes reached the peer, for every outcome of the one legacy probe:
// each case compares the flag with what the peer itself received (its record, or the requests it parsed).
import { readFileSync, existsSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { closeSharedProbeAgents, DEFAULT_PROBE_OPTIONS, probeNode, type ProbeOptions } from '@/lib/probe';
import { StdioTransport } from '@/lib/probe/stdio-transport';
import {
  rpcError,
  rpcOf,
  sendJson,
  startFaultPeer,
  type FaultHandler,
  type FaultPeer,
} from '@/tests/support/fault-peer';
import { makeTempDir, peerScript } from '../host-check/fixtures';

const OPTIONS: ProbeOptions = { ...DEFAULT_PROBE_OPTIONS, timeoutMs: 1_500, legacyProbeTimeoutMs: 1_500 };
const tmp = makeTempDir('initialize-sent');
const transports: StdioTransport[] = [];
const peers: FaultPeer[] = [];

afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.close()));
});
afterAll(async () => {
  await Promise.all(peers.map((p) => p.close()));
  await closeSharedProbeAgents();
  tmp.remove();
});

/** Lines the peer read on stdin that were an initialize request (fault-stdio records raw lines, the SDK peers JSON). */
function initializesReceived(record: string): number {
  if (!existsSync(record)) return 0;
  return readFileSync(record, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"method":"initialize"')).length;
}

describe('stdio', () => {
  it.each([
    { name: 'a command that cannot be started', args: null, outcome: 'spawn_failed', sent: false },
    {
      name: 'a server that exits at start',
      args: ['--fault', 'exit'],
      outcome: 'process_exited',
      sent: false,
    },
    { name: 'a banner on stdout', args: ['--fault', 'banner'], outcome: 'invalid_json', sent: false },
    { name: 'garbage on stdout', args: ['--fault', 'garbage'], outcome: 'invalid_json', sent: false },
    { name: 'a silent server', args: ['--fault', 'silent'], outcome: 'timeout', sent: true },
  ])('$name: initialize outcome $outcome, initializeSent $sent', async (c) => {
    const record = tmp.file(`stdio-${c.outcome}-${String(c.sent)}-${c.args?.[1] ?? 'none'}.lines`);
    const t = StdioTransport.launch(
      c.args
        ? { command: process.execPath, args: [peerScript('fault-stdio'), ...c.args, '--record', record] }
        : { command: tmp.file('no-such-server'), args: [] },
    );
    transports.push(t);
    // Wide deadlines where an answer is due, so a loaded machine cannot turn a fault into a timeout; the
    // silent server's deadlines leave its process time to start and read what it was sent.
    const deadlines = c.sent
      ? { timeoutMs: 1_500, legacyProbeTimeoutMs: 6_000 }
      : { timeoutMs: 15_000, legacyProbeTimeoutMs: 15_000 };
    const v = await probeNode(
      { url: 'stdio:case', allowLegacy: true },
      { ...OPTIONS, ...deadlines },
      {
        transport: t,
      },
    );
    expect(v.evidence.find((e) => e.step === 'initialize')?.outcome).toBe(c.outcome);
    expect(v.initializeSent).toBe(c.sent);
    await t.close();
    expect(initializesReceived(record)).toBe(c.sent ? 1 : 0);
  });

  it('the v1 archive answered the initialize: sent, and received once', async () => {
    const record = tmp.file('stdio-v1.jsonl');
    const t = StdioTransport.launch({
      command: process.execPath,
      args: [peerScript('v1-stdio'), '--record', record],
    });
    transports.push(t);
    const v = await probeNode(
      { url: 'stdio:v1', allowLegacy: true },
      { ...OPTIONS, timeoutMs: 15_000, legacyProbeTimeoutMs: 15_000 },
      { transport: t },
    );
    expect(v).toMatchObject({ verdict: 'legacy', initializeSent: true });
    await t.close();
    expect(initializesReceived(record)).toBe(1);
  });
});

const legacyDiscover: FaultHandler = (req, res) => {
  sendJson(res, 404, rpcError(rpcOf(req).id, -32601, 'Method not found'));
};

/** A legacy-looking discover answer, then `initialize` handled by `onInitialize`. */
function withInitialize(onInitialize: FaultHandler): FaultHandler {
  return (req, res) =>
    rpcOf(req).method === 'initialize' ? onInitialize(req, res) : legacyDiscover(req, res);
}

describe('HTTP', () => {
  it.each([
    {
      name: 'reset after reading it',
      handler: withInitialize((_q, res) => res.socket?.resetAndDestroy()),
      outcome: 'reset',
    },
    {
      name: 'closed after reading it',
      handler: withInitialize((_q, res) => res.socket?.destroy()),
      outcome: 'closed',
    },
    {
      name: 'a 502 page',
      handler: withInitialize((_q, res) =>
        res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>502</h1>'),
      ),
      outcome: 'http_5xx',
    },
    { name: 'never answered', handler: withInitialize(() => undefined), outcome: 'timeout' },
  ])('an initialize that was $name reached the node: initializeSent true', async (c) => {
    const p = await startFaultPeer(c.handler);
    peers.push(p);
    const v = await probeNode({ url: p.url, allowLegacy: true }, OPTIONS, {
      egress: { allowLoopback: true, allowPrivate: true },
    });
    expect(v.evidence.map((e) => [e.step, e.outcome])).toEqual([
      ['discover', 'rpc_error'],
      ['initialize', c.outcome],
    ]);
    expect(v.initializeSent).toBe(true);
    expect(p.received.filter((r) => rpcOf(r).method === 'initialize')).toHaveLength(1);
  });

  it('TLS to a plain-HTTP node fails before any request is written: initializeSent false', async () => {
    const p = await startFaultPeer(legacyDiscover);
    peers.push(p);
    const v = await probeNode({ url: p.url.replace('http:', 'https:'), allowLegacy: true }, OPTIONS, {
      egress: { allowLoopback: true, allowPrivate: true },
    });
    expect(v.evidence.map((e) => [e.step, e.outcome])).toEqual([
      ['discover', 'tls_error'],
      ['initialize', 'tls_error'],
    ]);
    expect(v.initializeSent).toBe(false);
    expect(p.received).toHaveLength(0);
  });

  it('a closed port refuses the connection: initializeSent false', async () => {
    const p = await startFaultPeer(legacyDiscover);
    const url = p.url;
    await p.close();
    const v = await probeNode({ url, allowLegacy: true }, OPTIONS, {
      egress: { allowLoopback: true, allowPrivate: true },
    });
    expect(v.evidence.map((e) => e.outcome)).toEqual(['refused', 'refused']);
    expect(v.initializeSent).toBe(false);
  });
});
