// `erawatch probe` as an operator runs it: the real bin script (tsx, no build step) against real peers.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeers, type RunningPeer } from '@/lib/peers/spawn';
import { discoverResult, sendJson, startFaultPeer, type FaultPeer } from '@/tests/support/fault-peer';
import {
  isAlive,
  makeTempDir,
  methodsByPid,
  methodsOf,
  peerScript,
  readRecord,
} from '../host-check/fixtures';

const BIN = path.resolve(__dirname, '../../../bin/erawatch.mjs');

function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, 'probe', ...args], { timeout: 100_000 }, (err, stdout, stderr) => {
      const code = err && typeof err.code === 'number' ? err.code : err ? -1 : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

let dual: RunningPeer;
let legacy: RunningPeer;
let authPeer: FaultPeer;

beforeAll(async () => {
  [dual, legacy] = (await startPeers([{ kind: 'v2-dual' }, { kind: 'v1-stateless' }])) as [
    RunningPeer,
    RunningPeer,
  ];
  authPeer = await startFaultPeer((req, res) => {
    if (req.headers['x-api-key'] !== 'k1') return sendJson(res, 401, { error: 'no key' });
    sendJson(res, 200, discoverResult(req.body?.id));
  });
});

afterAll(async () => {
  await Promise.all([dual?.stop(), legacy?.stop(), authPeer?.close()]);
});

describe('erawatch probe', () => {
  it('prints exactly one JSON object in the documented shape and exits 0 for modern', async () => {
    const { code, stdout } = await runCli([dual.url, '--json', '--audit-legacy']);
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const out = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    expect(Object.keys(out).sort()).toEqual(
      [
        'url',
        'verdict',
        'reason',
        'negotiatedVersion',
        'supported',
        'servedEras',
        'serverInfo',
        'cache',
        'initializeSent',
        'evidence',
      ].sort(),
    );
    expect(out).toMatchObject({
      url: dual.url,
      verdict: 'modern',
      reason: 'discover_result',
      negotiatedVersion: '2026-07-28',
      servedEras: 'dual-era',
      cache: { ttlMs: 0, cacheScope: 'private' },
      initializeSent: true,
    });
    const evidence = out.evidence as Array<Record<string, unknown>>;
    expect(Object.keys(evidence[0] ?? {}).sort()).toEqual(
      ['step', 'protocolVersion', 'requestId', 'httpStatus', 'outcome', 'rpcError', 'elapsedMs'].sort(),
    );
    expect(evidence.map((e) => e.step)).toEqual(['discover', 'audit', 'audit', 'audit', 'audit']);
  });

  it('--catalog lists the tools after the verdict and puts the catalog in the JSON', async () => {
    const { code, stdout } = await runCli([dual.url, '--json', '--catalog']);
    expect(code).toBe(0);
    const out = JSON.parse(stdout) as {
      catalog?: Record<string, unknown>;
      evidence: Array<{ step: string }>;
    };
    expect(out.catalog).toMatchObject({ status: 'listed', names: ['echo'], ttlMs: 0, cacheScope: 'private' });
    expect(out.evidence.map((e) => e.step)).toEqual(['discover', 'catalog']);
    const text = await runCli([dual.url, '--catalog']);
    expect(text.stdout).toMatch(/^ {2}tools: echo \(cat_[0-9a-f]{16}, ttlMs 0\)$/m);
    const without = JSON.parse((await runCli([dual.url, '--json'])).stdout) as Record<string, unknown>;
    expect(without).not.toHaveProperty('catalog');
  });

  it('exits 1 for unavailable and 0 once the operator allows legacy', async () => {
    const refused = await runCli([legacy.url, '--json']);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({
      verdict: 'unavailable',
      reason: 'ambiguous_not_allowlisted',
      initializeSent: false,
    });
    const allowed = await runCli([legacy.url, '--allow-legacy', '--legacy-timeout-ms', '4000']);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toContain('legacy (2025-11-25), reason legacy_positive_evidence');
  });

  it('sends --header values', async () => {
    const without = await runCli([authPeer.url, '--json']);
    expect(JSON.parse(without.stdout)).toMatchObject({ verdict: 'unavailable', reason: 'auth_required' });
    const withKey = await runCli([authPeer.url, '--json', '--header', 'X-Api-Key: k1']);
    expect(withKey.code).toBe(0);
    expect(JSON.parse(withKey.stdout)).toMatchObject({ verdict: 'modern' });
  });

  it.each([
    [[], 'missing <url>'],
    [['http://a/mcp', 'http://b/mcp'], 'expected one <url>'],
    [['ftp://example.test/mcp'], 'scheme ftp:'],
    [['http://127.0.0.1:1/mcp', '--timeout-ms', '0'], '--timeout-ms must be between'],
    [['http://127.0.0.1:1/mcp', '--legacy-timeout-ms', 'soon'], '--legacy-timeout-ms must be a whole number'],
    [['http://127.0.0.1:1/mcp', '--header', 'no-colon'], "--header must look like 'Name: value'"],
    [['http://127.0.0.1:1/mcp', '--header', 'Mcp-Method: x'], 'cannot set Mcp-Method'],
    [['http://127.0.0.1:1/mcp', '--frobnicate'], "Unknown option '--frobnicate'"],
    [['--stdio'], '--stdio needs a command after --'],
    [['--stdio', '--'], '--stdio needs a command after --'],
    [['--stdio', 'http://127.0.0.1:1/mcp', '--', 'node'], '--stdio takes no <url>'],
    [['--stdio', '--header', 'X-Api-Key: k1', '--', 'node'], '--header applies to HTTP targets'],
    [['--', 'node', 'server.mjs'], 'a command after -- needs --stdio'],
  ])('bad usage %j exits 2 with a one-line error', async (args, message) => {
    const { code, stdout, stderr } = await runCli(args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain(message);
  });
});

describe('erawatch probe --stdio', () => {
  const tmp = makeTempDir('probe-cli-stdio');
  const pids: number[] = [];
  const stdio = (script: Parameters<typeof peerScript>[0], record: string, extra: string[] = []) => [
    '--',
    process.execPath,
    peerScript(script),
    ...extra,
    '--record',
    tmp.file(record),
  ];

  afterAll(() => {
    // Every launched peer must be gone already; end any survivor by its pid before removing the files.
    for (const pid of pids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    tmp.remove();
  });

  // The default deadlines include the launched server's start-up, which a loaded machine can stretch past
  // 5 s; every stdio case here expects an answer, so deadlines a loaded machine always meets.
  const WIDE = ['--timeout-ms', '30000', '--legacy-timeout-ms', '30000'];

  const pidsOf = (record: string) => {
    const seen = readRecord(tmp.file(record));
    pids.push(...seen.map((r) => r.pid).filter((p) => Number.isInteger(p) && p > 0));
    return seen;
  };

  it('a v2 server: the same JSON shape, url stdio:<command line>, exit 0, and the process is gone', async () => {
    const { code, stdout } = await runCli([
      '--stdio',
      '--json',
      ...WIDE,
      ...stdio('v2-stdio', 'v2.jsonl', ['--name', 'cur']),
    ]);
    expect(code).toBe(0);
    const out = JSON.parse(stdout) as Record<string, unknown>;
    expect(Object.keys(out).sort()).toEqual(
      [
        'url',
        'verdict',
        'reason',
        'negotiatedVersion',
        'supported',
        'servedEras',
        'serverInfo',
        'cache',
        'initializeSent',
        'evidence',
      ].sort(),
    );
    expect(out).toMatchObject({
      url: `stdio:${process.execPath} ${peerScript('v2-stdio')} --name cur --record ${tmp.file('v2.jsonl')}`,
      verdict: 'modern',
      reason: 'discover_result',
      negotiatedVersion: '2026-07-28',
      serverInfo: { name: 'cur', version: '2.4.0' },
      initializeSent: false,
    });
    const seen = pidsOf('v2.jsonl');
    expect(seen.length).toBeGreaterThan(0);
    for (const r of seen) expect(isAlive(r.pid)).toBe(false);
  });

  it('a v1 server is unavailable (exit 1) unless --allow-legacy, then legacy (exit 0)', async () => {
    const strict = await runCli(['--stdio', '--json', ...WIDE, ...stdio('v1-stdio', 'v1-strict.jsonl')]);
    expect(strict.code).toBe(1);
    expect(JSON.parse(strict.stdout)).toMatchObject({
      verdict: 'unavailable',
      reason: 'ambiguous_not_allowlisted',
    });
    expect(methodsOf(tmp.file('v1-strict.jsonl'))).not.toContain('initialize');
    const allowed = await runCli([
      '--stdio',
      '--allow-legacy',
      '--json',
      ...WIDE,
      ...stdio('v1-stdio', 'v1-allow.jsonl'),
    ]);
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.stdout)).toMatchObject({
      verdict: 'legacy',
      reason: 'legacy_positive_evidence',
      initializeSent: true,
    });
    for (const r of [...pidsOf('v1-strict.jsonl'), ...pidsOf('v1-allow.jsonl')])
      expect(isAlive(r.pid)).toBe(false);
  });

  it('garbage on stdout is broken, not legacy, even with --allow-legacy; text output names the target', async () => {
    const { code, stdout } = await runCli([
      '--stdio',
      '--allow-legacy',
      ...WIDE,
      ...stdio('fault-stdio', 'garbage.jsonl', ['--fault', 'garbage']),
    ]);
    expect(code).toBe(1);
    expect(stdout.split('\n')[0]).toBe(
      `stdio:${process.execPath} ${peerScript('fault-stdio')} --fault garbage --record ${tmp.file('garbage.jsonl')}: unavailable, reason invalid_json`,
    );
    pidsOf('garbage.jsonl');
  });
});

describe('erawatch probe --stdio against a dual-era SDK server', () => {
  const tmp = makeTempDir('probe-cli-dual');
  afterAll(() => tmp.remove());
  const WIDE = ['--timeout-ms', '30000', '--legacy-timeout-ms', '30000'];

  it('--audit-legacy --catalog reads it dual-era and lists its tools; text output says stdio, not HTTP', async () => {
    const command = ['--', process.execPath, peerScript('v2-stdio'), '--record', tmp.file('dual.jsonl')];
    const json = await runCli(['--stdio', '--json', '--audit-legacy', '--catalog', ...WIDE, ...command]);
    expect(json.code).toBe(0);
    const out = JSON.parse(json.stdout) as {
      servedEras: string;
      catalog: { status: string; names: string[] };
    };
    expect(out).toMatchObject({ verdict: 'modern', servedEras: 'dual-era' });
    // Listed as a modern request on the probed process (ttlMs and cacheScope are modern fields); the audit's
    // initialize went to a process of its own, so neither pinned the other's era.
    expect(out.catalog).toMatchObject({ status: 'listed', names: ['echo'], ttlMs: 0, cacheScope: 'private' });
    const [probed, audited] = methodsByPid(tmp.file('dual.jsonl'));
    expect(probed?.methods).toEqual(['server/discover', 'tools/list']);
    expect(audited?.methods.length).toBeGreaterThan(0);
    expect(audited?.methods.every((m) => m === 'initialize')).toBe(true);
    const text = await runCli(['--stdio', ...WIDE, ...command]);
    expect(text.stdout).toContain('discover 2026-07-28');
    expect(text.stdout).toMatch(/: stdio result/);
    expect(text.stdout).not.toContain('HTTP -');
  });
});
