// The probe over stdio against real SDK servers and broken programs: the same three outcome classes, the
// same allowlist and five-point evidence as over HTTP, and a broken process is never mistaken for legacy.
import { existsSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { probeNode } from '@/lib/probe/probe-node';
import { StdioTransport, type StdioTransportOptions } from '@/lib/probe/stdio-transport';
import { DEFAULT_PROBE_OPTIONS, type ProbeOptions } from '@/lib/probe/types';
import {
  isAlive,
  makeTempDir,
  methodsOf,
  peerScript,
  readRecord,
  waitForRecord,
} from '../host-check/fixtures';
import { pollUntil } from '../../support/wait';

const tmp = makeTempDir('stdio-probe');
const open: StdioTransport[] = [];

function launch(script: Parameters<typeof peerScript>[0], args: string[], opts: StdioTransportOptions = {}) {
  const t = StdioTransport.launch({ command: process.execPath, args: [peerScript(script), ...args] }, opts);
  open.push(t);
  return t;
}

// Deadlines a loaded machine always meets, Node start-up included: a test that wants a timeout sets its own
// against a peer that never answers.
const options: ProbeOptions = { ...DEFAULT_PROBE_OPTIONS, timeoutMs: 30_000, legacyProbeTimeoutMs: 30_000 };

afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
});
afterAll(() => tmp.remove());

describe('stdio probe against real SDK servers', () => {
  it('a current v2 server answers server/discover: modern, no initialize', async () => {
    const record = tmp.file('v2.jsonl');
    const t = launch('v2-stdio', ['--name', 'current', '--record', record]);
    const v = await probeNode({ url: 'stdio:current', allowLegacy: true }, options, { transport: t });
    expect(v).toMatchObject({
      verdict: 'modern',
      reason: 'discover_result',
      negotiatedVersion: '2026-07-28',
      serverInfo: { name: 'current', version: '2.4.0' },
      initializeSent: false,
    });
    expect(v.evidence[0]).toMatchObject({ step: 'discover', outcome: 'result', httpStatus: null });
    expect(methodsOf(record)).toEqual(['server/discover']);
  });

  it('the v1 archive, allowlisted, joins as legacy after one initialize with all five checks passed', async () => {
    const record = tmp.file('v1-allow.jsonl');
    const t = launch('v1-stdio', ['--name', 'archive', '--record', record]);
    const v = await probeNode({ url: 'stdio:archive', allowLegacy: true }, options, { transport: t });
    expect(v).toMatchObject({
      verdict: 'legacy',
      reason: 'legacy_positive_evidence',
      negotiatedVersion: '2025-11-25',
      initializeSent: true,
    });
    expect(v.evidence[0]).toMatchObject({
      step: 'discover',
      outcome: 'rpc_error',
      rpcError: { code: -32601 },
    });
    expect(v.evidence[1]?.checks?.every((c) => c.passed)).toBe(true);
    const seen = await waitForRecord(record, 3);
    expect(seen.map((r) => r.method)).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
  });

  it('a legacy server answers tools/list before any handshake, which is why discovery comes first', async () => {
    const t = launch('v1-stdio', []);
    const listed = await t.request(
      { jsonrpc: '2.0', id: 'list-first', method: 'tools/list', params: {} },
      { timeoutMs: 30_000, maxBodyBytes: 1 << 20 },
    );
    // An ambiguous success: it says nothing about the era. server/discover draws the boundary.
    expect(listed.outcome).toBe('result');
    const v = await probeNode({ url: 'stdio:archive' }, options, { transport: t });
    expect(v).toMatchObject({ verdict: 'unavailable', reason: 'ambiguous_not_allowlisted' });
  });

  it('the v1 archive without allowLegacy: -32601 is not legacy evidence, so unavailable and never initialize', async () => {
    const record = tmp.file('v1-deny.jsonl');
    const t = launch('v1-stdio', ['--record', record]);
    const v = await probeNode({ url: 'stdio:archive' }, options, { transport: t });
    expect(v).toMatchObject({
      verdict: 'unavailable',
      reason: 'ambiguous_not_allowlisted',
      initializeSent: false,
    });
    expect(methodsOf(record)).toEqual(['server/discover']);
  });

  it('an allowlisted modern server answering -32022 stays modern, negotiated from data.supported with a new id', async () => {
    const record = tmp.file('v2-32022.jsonl');
    const t = launch('v2-stdio', ['--legacy', 'reject', '--record', record]);
    const v = await probeNode(
      { url: 'stdio:upgraded-archive', allowLegacy: true },
      { ...options, modernVersions: ['2099-01-01', '2026-07-28'] },
      { transport: t },
    );
    expect(v).toMatchObject({
      verdict: 'modern',
      reason: 'negotiated_after_32022',
      negotiatedVersion: '2026-07-28',
      initializeSent: false,
    });
    expect(v.evidence.map((e) => [e.step, e.protocolVersion, e.rpcError?.code ?? null])).toEqual([
      ['discover', '2099-01-01', -32022],
      ['discover-retry', '2026-07-28', null],
    ]);
    const seen = readRecord(record);
    expect(seen.map((r) => r.method)).toEqual(['server/discover', 'server/discover']);
    expect(seen[0]?.id).not.toEqual(seen[1]?.id);
  });
});

describe('stdio probe against broken programs', () => {
  it.each([
    ['stdout garbage', ['--fault', 'garbage'], false, 'invalid_json'],
    ['stdout garbage, allowlisted', ['--fault', 'garbage'], true, 'invalid_json'],
    ['a banner then JSON that is not JSON-RPC', ['--fault', 'banner'], true, 'invalid_json'],
    ['a process that exits at once', ['--fault', 'exit'], false, 'process_exited'],
    ['a process that exits at once, allowlisted', ['--fault', 'exit'], true, 'process_exited'],
  ])('%s is broken, not legacy', async (_label, args, allowLegacy, reason) => {
    const t = launch('fault-stdio', args);
    const v = await probeNode({ url: 'stdio:fault', allowLegacy }, options, { transport: t });
    expect(v.verdict).toBe('unavailable');
    expect(v.reason).toBe(reason);
    expect(v.evidence[0]?.outcome).toBe(reason);
    if (reason === 'process_exited') expect(v.evidence[0]?.detail).toContain('status 3');
  });

  it('JSON that is not JSON-RPC is not_jsonrpc', async () => {
    const t = StdioTransport.launch({
      command: process.execPath,
      args: [
        '-e',
        'process.stdin.on("data", () => process.stdout.write(JSON.stringify({ hello: 1 }) + "\\n"))',
      ],
    });
    open.push(t);
    const v = await probeNode({ url: 'stdio:json', allowLegacy: false }, options, { transport: t });
    expect(v).toMatchObject({ verdict: 'unavailable', reason: 'not_jsonrpc' });
  });

  it('a command that cannot be started is spawn_failed', async () => {
    const t = StdioTransport.launch({ command: tmp.file('no-such-server'), args: [] });
    open.push(t);
    const v = await probeNode({ url: 'stdio:missing' }, options, { transport: t });
    expect(v).toMatchObject({ verdict: 'unavailable', reason: 'spawn_failed', initializeSent: false });
    expect(v.evidence[0]?.detail).toContain('ENOENT');
  });

  it('stderr chatter is a log, not an error: a chatty v2 server is modern and its log is kept', async () => {
    const lines: string[] = [];
    const t = launch('v2-stdio', ['--chatter', '--name', 'chatty'], { onStderr: (l) => lines.push(l) });
    const v = await probeNode({ url: 'stdio:chatty' }, options, { transport: t });
    expect(v).toMatchObject({ verdict: 'modern', reason: 'discover_result' });
    expect(lines.some((l) => l.includes('chatty starting'))).toBe(true);
    expect(t.stderrTail().length).toBeGreaterThan(0);
  });

  it('silence is a timeout; an allowlisted silent server gets one initialize whose deadline kills the process', async () => {
    const record = tmp.file('silent.jsonl');
    const ready = tmp.file('silent.ready');
    const t = launch('fault-stdio', ['--fault', 'silent', '--record', record, '--ready', ready]);
    const pid = t.pid ?? 0;
    // The deadlines start once the process reads its stdin, so each request reaches it before its kill.
    await pollUntil('the silent server reading its stdin', 60_000, () => existsSync(ready), { everyMs: 20 });
    const v = await probeNode(
      { url: 'stdio:silent', allowLegacy: true },
      { ...options, timeoutMs: 1_000, legacyProbeTimeoutMs: 1_000 },
      { transport: t },
    );
    expect(v).toMatchObject({ verdict: 'unavailable', reason: 'timeout', initializeSent: true });
    expect(v.evidence.map((e) => [e.step, e.outcome])).toEqual([
      ['discover', 'timeout'],
      ['initialize', 'timeout'],
    ]);
    expect(v.evidence[1]?.detail).toContain('process killed');
    const exit = await t.exited();
    expect(exit.signal).toBe('SIGKILL');
    expect(isAlive(pid)).toBe(false);
    // The killed process got the discover and the one initialize, never notifications/initialized.
    expect(methodsOf(record)).toEqual(['server/discover', 'initialize']);
  });

  it('a silent server that is not allowlisted times out and keeps running (a slow start is not a fault to kill)', async () => {
    const t = launch('fault-stdio', ['--fault', 'silent']);
    const v = await probeNode({ url: 'stdio:silent' }, { ...options, timeoutMs: 300 }, { transport: t });
    expect(v).toMatchObject({ verdict: 'unavailable', reason: 'timeout', initializeSent: false });
    expect(t.running).toBe(true);
  });
});

describe('stdio transport framing', () => {
  let t: StdioTransport;
  beforeAll(() => {
    // The first request is answered only once a second one arrived, i.e. after its deadline fired.
    t = launch('v2-stdio', ['--hold-until-requests', '2']);
  });

  it('ignores the late answer to a timed-out request and settles the next one by its own id', async () => {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const send = { timeoutMs: 200, maxBodyBytes: 1 << 20 };
    const first = await t.request(
      { jsonrpc: '2.0', id: 'a', method: 'server/discover', params: { _meta: meta } },
      send,
    );
    expect(first.outcome).toBe('timeout');
    const second = await t.request(
      { jsonrpc: '2.0', id: 'b', method: 'server/discover', params: { _meta: meta } },
      { ...send, timeoutMs: 30_000 },
    );
    expect(second.outcome).toBe('result');
    expect(second.message?.id).toBe('b');
    await expect(
      t.request({ jsonrpc: '2.0', id: 'a', method: 'tools/list', params: {} }, send),
    ).rejects.toThrow('already used');
  });
});
