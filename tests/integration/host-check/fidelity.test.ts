// host-check against the cases that break a naive host: a modern server whose DiscoverResult comes after the
// discover's deadline, twin entries of one command line, and broken servers that never got an initialize.
// What each process received is read from its record (ending in `<eof>` once it read all its input).
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadHostConfig } from '@/lib/host-check/config';
import { HostSession, runHostCheck } from '@/lib/host-check/session';
import { EraCache } from '@/lib/probe/era-cache';
import { isAlive, makeTempDir, methodsByPid, peerScript, readRecord } from './fixtures';

const tmp = makeTempDir('host-fidelity');
const records: string[] = [];
afterAll(() => {
  // runHostCheck stops what it launched; a survivor would be a defect, ended here by its pid.
  for (const file of records)
    for (const r of readRecord(file)) if (r.pid > 0 && isAlive(r.pid)) process.kill(r.pid, 'SIGKILL');
  tmp.remove();
});

function recordFile(name: string): string {
  const file = tmp.file(name);
  records.push(file);
  return file;
}

function stdioServer(
  name: string,
  script: Parameters<typeof peerScript>[0],
  args: string[],
  extra: Record<string, unknown> = {},
) {
  return { name, command: process.execPath, args: [peerScript(script), ...args], ...extra };
}

async function check(file: string, servers: unknown[], cache?: EraCache) {
  const config = await loadHostConfig(tmp.write(file, stringify({ collisionPolicy: 'prefix', servers })));
  return runHostCheck(config, cache ? { cache } : {});
}

const initializes = (methods: Array<string | null>) => methods.filter((m) => m === 'initialize').length;

describe('a late DiscoverResult', () => {
  it('an allowlisted server answering discover after the initialize, timeoutMs 200, joins as modern; notifications/initialized is never sent', async () => {
    const record = recordFile('late.jsonl');
    const report = await check('late.yaml', [
      // Answered only after the initialize: late past its deadline on any machine, with no timer race.
      stdioServer(
        'slow',
        'late-discover-stdio',
        ['--answer-discover-after', 'initialize', '--record', record],
        {
          allowLegacy: true,
          timeoutMs: 200,
          legacyProbeTimeoutMs: 10_000,
          retry: { attempts: 1 },
        },
      ),
    ]);
    expect(report.servers[0]).toMatchObject({
      available: true,
      era: 'modern',
      version: '2026-07-28',
      reason: 'discover_result',
      attempts: 1,
      launches: 1,
      initializeSent: true,
      tools: ['echo'],
    });
    expect(report.servers[0]?.verdicts[0]?.evidence.map((e) => [e.step, e.outcome])).toEqual([
      ['discover', 'timeout'],
      ['initialize', 'result'],
      ['discover-late', 'result'],
    ]);
    expect(report.ok).toBe(true);
    expect(methodsByPid(record).map((p) => p.methods)).toEqual([
      ['server/discover', 'initialize', 'tools/list', '<eof>'],
    ]);
  });

  it('one that comes after the legacy verdict contradicts the cached legacy era: a fresh process is re-probed and joins as modern', async () => {
    const record = recordFile('after.jsonl');
    const cache = new EraCache({ ttlMs: 60_000 });
    const report = await check(
      'after.yaml',
      [
        // Cold start: the first process answers discover only when the host lists its tools; later ones at once.
        stdioServer(
          'cold',
          'late-discover-stdio',
          ['--hold-discover-until', 'tools/list', '--warm-file', tmp.file('cold.warm'), '--record', record],
          { allowLegacy: true, timeoutMs: 1_000, legacyProbeTimeoutMs: 4_000, retry: { attempts: 1 } },
        ),
      ],
      cache,
    );
    const [cold] = report.servers;
    expect(cold).toMatchObject({
      available: true,
      era: 'modern',
      version: '2026-07-28',
      reason: 'discover_result',
      launches: 2,
      tools: ['echo'],
    });
    expect(cold?.verdicts.map((v) => v.verdict)).toEqual(['legacy', 'modern']);
    expect(cold?.notes).toEqual([
      'cached legacy era contradicted by a late DiscoverResult to server/discover: process relaunched and re-probed',
    ]);
    expect(cache.recentDiscards()).toContainEqual(expect.objectContaining({ reason: 'contradicted' }));
    const [first, second] = methodsByPid(record);
    expect(first?.methods).toEqual([
      'server/discover',
      'initialize',
      'notifications/initialized',
      'tools/list',
      '<eof>',
    ]);
    // The fresh process answers discover at once; a slow machine may still see it late, never legacy.
    expect(second?.methods[0]).toBe('server/discover');
    expect(second?.methods).not.toContain('notifications/initialized');
    expect(initializes(second?.methods ?? [])).toBeLessThanOrEqual(1);
    expect(second?.methods.slice(-2)).toEqual(['tools/list', '<eof>']);
    expect(cold?.pid).toBe(second?.pid);
  });
  it('a server that contradicts its legacy verdict on the fresh process too is left unavailable, era_contradicted', async () => {
    const record = recordFile('never-warm.jsonl');
    const report = await check('never-warm.yaml', [
      stdioServer(
        'never-warm',
        'late-discover-stdio',
        ['--hold-discover-until', 'tools/list', '--record', record],
        { allowLegacy: true, timeoutMs: 200, legacyProbeTimeoutMs: 3_000, retry: { attempts: 1 } },
      ),
    ]);
    expect(report.servers[0]).toMatchObject({
      available: false,
      era: 'unavailable',
      reason: 'era_contradicted',
      launches: 2,
      tools: [],
    });
    expect(report.servers[0]?.verdicts.map((v) => v.verdict)).toEqual(['legacy', 'legacy']);
    expect(report.ok).toBe(false);
    const perProcess = methodsByPid(record);
    expect(perProcess.map((p) => initializes(p.methods))).toEqual([1, 1]);
  });
});

describe('twin entries of one command line', () => {
  it('two modern twins are two peers: both available, each process discovered and listed once', async () => {
    const record = recordFile('twins-modern.jsonl');
    const args = ['--tools', 'search', '--record', record];
    // A wide deadline: a loaded machine must not turn a slow start into a retry.
    const twin = { timeoutMs: 20_000 };
    const report = await check('twins-modern.yaml', [
      stdioServer('left', 'v2-stdio', args, twin),
      stdioServer('right', 'v2-stdio', args, twin),
    ]);
    expect(report.servers.map((s) => [s.name, s.available, s.era, s.reason, s.launches])).toEqual([
      ['left', true, 'modern', 'discover_result', 1],
      ['right', true, 'modern', 'discover_result', 1],
    ]);
    expect(report.allAvailable).toBe(true);
    expect(report.tools.map((t) => [t.name, t.server])).toEqual([
      ['right/search', 'right'],
      ['search', 'left'],
    ]);
    const perProcess = methodsByPid(record);
    expect(perProcess).toHaveLength(2);
    for (const p of perProcess) expect(p.methods).toEqual(['server/discover', 'tools/list']);
    expect(new Set(report.servers.map((s) => s.pid))).toEqual(new Set(perProcess.map((p) => p.pid)));
  });

  it('a legacy and a modern twin (one command line mid-upgrade) both join with their own era; the legacy process gets exactly one initialize', async () => {
    const record = recordFile('twins-mixed.jsonl');
    const args = ['--claim', tmp.file('mixed.claim'), '--tools', 'fetch', '--record', record];
    const twin = { allowLegacy: true, timeoutMs: 20_000, retry: { attempts: 1 } };
    const report = await check('twins-mixed.yaml', [
      stdioServer('one', 'rolling-stdio', args, twin),
      stdioServer('two', 'rolling-stdio', args, twin),
    ]);
    expect(report.servers.map((s) => s.available)).toEqual([true, true]);
    expect(report.servers.map((s) => s.era).sort()).toEqual(['legacy', 'modern']);
    expect(report.allAvailable).toBe(true);
    const legacy = report.servers.find((s) => s.era === 'legacy');
    const modern = report.servers.find((s) => s.era === 'modern');
    expect(legacy).toMatchObject({
      version: '2025-11-25',
      initializeSent: true,
      launches: 1,
      tools: ['fetch'],
    });
    expect(modern).toMatchObject({
      version: '2026-07-28',
      initializeSent: false,
      launches: 1,
      tools: ['fetch'],
    });
    const perProcess = new Map(methodsByPid(record).map((p) => [p.pid, p.methods]));
    expect(perProcess.size).toBe(2);
    const legacySeen = perProcess.get(legacy?.pid ?? 0) ?? [];
    expect(initializes(legacySeen)).toBe(1);
    expect(legacySeen).toEqual(['server/discover', 'initialize', 'notifications/initialized', 'tools/list']);
    expect(perProcess.get(modern?.pid ?? 0)).toEqual(['server/discover', 'tools/list']);
  });
});

describe('one initialize per process', () => {
  it('an expired legacy era is probed again on a fresh process, never with a second initialize to the first', async () => {
    const record = recordFile('expired.jsonl');
    let now = 1_000;
    const cache = new EraCache({ ttlMs: 60_000 }, () => now);
    const config = await loadHostConfig(
      tmp.write(
        'expired.yaml',
        stringify({
          collisionPolicy: 'prefix',
          servers: [
            stdioServer('archive', 'v1-stdio', ['--tools', 'fetch', '--record', record], {
              allowLegacy: true,
              timeoutMs: 20_000,
              retry: { attempts: 1 },
            }),
          ],
        }),
      ),
    );
    const session = new HostSession(config, { cache });
    try {
      await session.discoverAll();
      now += 61_000;
      await session.listAll();
      const report = session.report();
      expect(report.servers[0]).toMatchObject({
        available: true,
        era: 'legacy',
        launches: 2,
        tools: ['fetch'],
        notes: ['process already initialized: relaunched for a fresh probe'],
      });
      expect(cache.recentDiscards()).toContainEqual(expect.objectContaining({ reason: 'expired' }));
    } finally {
      await session.close();
    }
    const perProcess = methodsByPid(record);
    expect(perProcess.map((p) => initializes(p.methods))).toEqual([1, 1]);
    expect(perProcess[1]?.methods).toEqual([
      'server/discover',
      'initialize',
      'notifications/initialized',
      'tools/list',
    ]);
  });
});

describe('initializeSent tells the truth', () => {
  it.each([
    ['a server that exits at start', 'exit', 'process_exited'],
    ['a server that prints a banner on stdout', 'banner', 'invalid_json'],
  ])('%s, allowlisted, was never sent initialize', async (_label, fault, reason) => {
    const record = recordFile(`fault-${fault}.lines`);
    const report = await check(`fault-${fault}.yaml`, [
      stdioServer('broken', 'fault-stdio', ['--fault', fault, '--record', record], {
        allowLegacy: true,
        timeoutMs: 20_000,
        retry: { attempts: 1 },
      }),
    ]);
    expect(report.servers[0]).toMatchObject({ available: false, reason, initializeSent: false });
    const steps = report.servers[0]?.verdicts[0]?.evidence ?? [];
    expect(steps.map((e) => [e.step, e.outcome])).toEqual([
      ['discover', reason],
      ['initialize', reason],
    ]);
  });
});
