// A modern stdio server whose DiscoverResult comes after the discover's deadline: on a pipe the request is
// still open, so that answer is modern evidence. Before the legacy verdict is final it settles the era;
// after it, the verdict stands and the transport keeps the answer for the host's era cache.
import { execFile } from 'node:child_process';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { probeNode } from '@/lib/probe/probe-node';
import { StdioTransport } from '@/lib/probe/stdio-transport';
import { DEFAULT_PROBE_OPTIONS } from '@/lib/probe/types';
import { cliEntry, isAlive, makeTempDir, methodsOf, peerScript, readRecord } from '../host-check/fixtures';

const tmp = makeTempDir('late-discover');
const open: StdioTransport[] = [];
const pids: number[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
});
afterAll(() => {
  for (const pid of pids) if (pid > 0 && isAlive(pid)) process.kill(pid, 'SIGKILL');
  tmp.remove();
});

function runProbeCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cliEntry, 'probe', ...args], { timeout: 100_000 }, (err, stdout, stderr) => {
      const code = err && typeof err.code === 'number' ? err.code : err ? -1 : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('a DiscoverResult after the discover deadline', () => {
  it('erawatch probe --stdio --allow-legacy --timeout-ms 200: a discover answered after the initialize ends modern, without notifications/initialized', async () => {
    const record = tmp.file('cli.jsonl');
    const { code, stdout } = await runProbeCli([
      '--stdio',
      '--allow-legacy',
      '--timeout-ms',
      '200',
      // The late answer is awaited within the initialize's deadline; a wide one costs nothing when it comes.
      '--legacy-timeout-ms',
      '10000',
      '--json',
      '--',
      process.execPath,
      peerScript('late-discover-stdio'),
      // The discover is answered only after the initialize: late past its deadline on any machine.
      '--answer-discover-after',
      'initialize',
      '--name',
      'slow-current',
      '--record',
      record,
    ]);
    const seen = readRecord(record);
    pids.push(...seen.map((r) => r.pid));
    expect(code).toBe(0);
    const out = JSON.parse(stdout) as {
      verdict: string;
      evidence: Array<{ step: string; outcome: string; requestId: string }>;
    };
    expect(out).toMatchObject({
      verdict: 'modern',
      reason: 'discover_result',
      negotiatedVersion: '2026-07-28',
      serverInfo: { name: 'slow-current', version: '1.0.0' },
      initializeSent: true,
    });
    expect(out.evidence.map((e) => [e.step, e.outcome])).toEqual([
      ['discover', 'timeout'],
      ['initialize', 'result'],
      ['discover-late', 'result'],
    ]);
    expect(out.evidence[2]?.requestId).toBe(out.evidence[0]?.requestId);
    // `<eof>` shows the server read everything the probe wrote before it was ended.
    expect(seen.map((r) => r.method)).toEqual(['server/discover', 'initialize', '<eof>']);
  });

  it('the legacy result is discarded: no legacy revision in the served set, serverInfo from the DiscoverResult', async () => {
    const record = tmp.file('direct.jsonl');
    const t = StdioTransport.launch({
      command: process.execPath,
      args: [peerScript('late-discover-stdio'), '--answer-discover-after', 'initialize', '--record', record],
    });
    open.push(t);
    const v = await probeNode(
      { url: 'stdio:slow', allowLegacy: true },
      { ...DEFAULT_PROBE_OPTIONS, timeoutMs: 200, legacyProbeTimeoutMs: 10_000 },
      { transport: t },
    );
    expect(v).toMatchObject({
      verdict: 'modern',
      supported: ['2026-07-28'],
      servedEras: 'modern-only',
      serverInfo: { name: 'erawatch-peer-late-discover' },
    });
    expect(v.evidence[1]?.detail).toContain('result discarded');
    await t.close();
    expect(methodsOf(record)).toEqual(['server/discover', 'initialize', '<eof>']);
  });

  it('the real v2 SDK server against a 100 ms discover deadline ends modern, as it does with time to spare', async () => {
    const record = tmp.file('v2-sdk.jsonl');
    const t = StdioTransport.launch({
      command: process.execPath,
      args: [peerScript('v2-stdio'), '--record', record],
    });
    open.push(t);
    const v = await probeNode(
      { url: 'stdio:v2', allowLegacy: true },
      { ...DEFAULT_PROBE_OPTIONS, timeoutMs: 100, legacyProbeTimeoutMs: 10_000 },
      { transport: t },
    );
    expect(v).toMatchObject({
      verdict: 'modern',
      reason: 'discover_result',
      negotiatedVersion: '2026-07-28',
    });
    // A Node process with the SDK rarely starts within 100 ms; when it did, there is no late step.
    const steps = v.evidence.map((e) => e.step);
    expect([['discover'], ['discover', 'initialize', 'discover-late']]).toContainEqual(steps);
    // Proof that the server read all it was sent: a last request it answers, behind anything earlier.
    const ping = await t.request(
      { jsonrpc: '2.0', id: 'last', method: 'ping', params: {} },
      { timeoutMs: 10_000, maxBodyBytes: 1 << 20 },
    );
    expect(ping.message?.id).toBe('last');
    expect(methodsOf(record)).not.toContain('notifications/initialized');
  });

  it('a late -32022 is modern too: the one retry with a new id negotiates, and the initialize result is discarded', async () => {
    const record = tmp.file('late-32022.jsonl');
    const t = StdioTransport.launch({
      command: process.execPath,
      args: [
        peerScript('late-discover-stdio'),
        '--answer-discover-after',
        'initialize',
        '--late-answer',
        '32022',
        '--record',
        record,
      ],
    });
    open.push(t);
    const v = await probeNode(
      { url: 'stdio:late-32022', allowLegacy: true },
      {
        ...DEFAULT_PROBE_OPTIONS,
        modernVersions: ['2099-01-01', '2026-07-28'],
        timeoutMs: 200,
        legacyProbeTimeoutMs: 10_000,
      },
      { transport: t },
    );
    expect(v).toMatchObject({
      verdict: 'modern',
      reason: 'negotiated_after_32022',
      negotiatedVersion: '2026-07-28',
    });
    expect(v.evidence.map((e) => [e.step, e.outcome, e.rpcError?.code ?? null])).toEqual([
      ['discover', 'timeout', null],
      ['initialize', 'result', null],
      ['discover-late', 'rpc_error', -32022],
      ['discover-retry', 'result', null],
    ]);
    await t.close();
    expect(methodsOf(record)).toEqual(['server/discover', 'initialize', 'server/discover', '<eof>']);
  });

  it('a late -32601 is no modern evidence: the legacy verdict stands and the handshake completes', async () => {
    const record = tmp.file('late-32601.jsonl');
    const t = StdioTransport.launch({
      command: process.execPath,
      args: [
        peerScript('late-discover-stdio'),
        '--answer-discover-after',
        'initialize',
        '--late-answer',
        '32601',
        '--record',
        record,
      ],
    });
    open.push(t);
    const v = await probeNode(
      { url: 'stdio:late-32601', allowLegacy: true },
      { ...DEFAULT_PROBE_OPTIONS, timeoutMs: 200, legacyProbeTimeoutMs: 10_000 },
      { transport: t },
    );
    expect(v).toMatchObject({ verdict: 'legacy', reason: 'legacy_positive_evidence' });
    expect(v.evidence.map((e) => [e.step, e.outcome, e.rpcError?.code ?? null])).toEqual([
      ['discover', 'timeout', null],
      ['initialize', 'result', null],
      ['discover-late', 'rpc_error', -32601],
    ]);
    await t.close();
    expect(methodsOf(record)).toEqual([
      'server/discover',
      'initialize',
      'notifications/initialized',
      '<eof>',
    ]);
  });

  it('after the legacy verdict is final the verdict stands, and the transport keeps the late answer', async () => {
    const record = tmp.file('after.jsonl');
    const t = StdioTransport.launch({
      command: process.execPath,
      args: [peerScript('late-discover-stdio'), '--hold-discover-until', 'tools/list', '--record', record],
    });
    open.push(t);
    const v = await probeNode(
      { url: 'stdio:held', allowLegacy: true },
      { ...DEFAULT_PROBE_OPTIONS, timeoutMs: 200, legacyProbeTimeoutMs: 2_000 },
      { transport: t },
    );
    expect(v).toMatchObject({ verdict: 'legacy', reason: 'legacy_positive_evidence', initializeSent: true });
    const discoverId = v.evidence[0]?.requestId ?? '';
    expect(t.lateAnswerNow(discoverId)).toBeNull();
    // The server answers the held discover just before this listing.
    const listed = await t.request(
      { jsonrpc: '2.0', id: 'list-1', method: 'tools/list', params: {} },
      { timeoutMs: 5_000, maxBodyBytes: 1 << 20 },
    );
    expect(listed.outcome).toBe('result');
    expect(t.lateAnswerNow(discoverId)).toMatchObject({
      outcome: 'result',
      message: { id: discoverId, result: { supportedVersions: ['2026-07-28'] } },
    });
    await t.close();
    expect(methodsOf(record)).toEqual([
      'server/discover',
      'initialize',
      'notifications/initialized',
      'tools/list',
      '<eof>',
    ]);
  });
});
