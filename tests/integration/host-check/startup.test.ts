// The agent-host startup of "When an old server is really old", with the three servers as real stdio
// processes, and each follow-up of the document.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadHostConfig } from '@/lib/host-check/config';
import { HostSession, runHostCheck, type HostSessionDeps } from '@/lib/host-check/session';
import { EraCache } from '@/lib/probe/era-cache';
import type { Verdict } from '@/lib/probe/types';
import { makeTempDir, methodsOf, peerScript, readRecord, waitForExit, waitForRecord } from './fixtures';

const tmp = makeTempDir('host-startup');
afterAll(() => tmp.remove());

const sessions: HostSession[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});

type ServerSpec = Record<string, unknown>;

// Deadlines a loaded machine always meets, Node and SDK start-up included; a server that must miss one is
// held by the peer itself (until a retry, or far past the deadline), so no timer race decides a verdict.
const WIDE = { timeoutMs: 30_000, legacyProbeTimeoutMs: 30_000 };

function stdioServer(
  name: string,
  script: Parameters<typeof peerScript>[0],
  args: string[],
  extra: ServerSpec = {},
) {
  return { name, command: process.execPath, args: [peerScript(script), ...args], ...WIDE, ...extra };
}

async function hostFile(name: string, body: Record<string, unknown>) {
  return loadHostConfig(tmp.write(name, stringify(body)));
}

async function openSession(name: string, body: Record<string, unknown>, deps: HostSessionDeps = {}) {
  const session = new HostSession(await hostFile(name, body), deps);
  sessions.push(session);
  return session;
}

describe('the three servers of the document', () => {
  it('current joins as modern, the archive as legacy, and the slow one as modern after a retry, never receiving initialize', async () => {
    const rec = {
      current: tmp.file('doc-current.jsonl'),
      archive: tmp.file('doc-archive.jsonl'),
      slow: tmp.file('doc-slow.jsonl'),
    };
    const config = await hostFile('doc.yaml', {
      collisionPolicy: 'prefix',
      servers: [
        stdioServer('current', 'v2-stdio', [
          '--name',
          'current',
          '--tools',
          'search',
          '--record',
          rec.current,
        ]),
        stdioServer(
          'archive',
          'v1-stdio',
          ['--name', 'archive', '--tools', 'fetch', '--record', rec.archive],
          {
            allowLegacy: true,
            retry: { attempts: 1 },
          },
        ),
        stdioServer(
          'slow',
          'v2-stdio',
          // Slow until the host retried: the first discover is answered only once the second arrived.
          ['--name', 'slow', '--tools', 'summarize', '--hold-until-requests', '2', '--record', rec.slow],
          {
            timeoutMs: 2_000,
            retry: { attempts: 8, delayMs: 200, backoff: 1.5, maxDelayMs: 1000 },
          },
        ),
      ],
    });
    const report = await runHostCheck(config);
    const byName = Object.fromEntries(report.servers.map((s) => [s.name, s]));

    expect(byName.current).toMatchObject({
      available: true,
      era: 'modern',
      version: '2026-07-28',
      reason: 'discover_result',
      attempts: 1,
      initializeSent: false,
      tools: ['search'],
    });
    expect(byName.archive).toMatchObject({
      available: true,
      era: 'legacy',
      version: '2025-11-25',
      reason: 'legacy_positive_evidence',
      attempts: 1,
      initializeSent: true,
      tools: ['fetch'],
    });
    expect(byName.slow).toMatchObject({
      available: true,
      era: 'modern',
      version: '2026-07-28',
      reason: 'discover_result',
      initializeSent: false,
      tools: ['summarize'],
      launches: 1,
    });

    // The slow server's first discovery timed out and it was marked unavailable, not downgraded.
    const slow = byName.slow;
    expect(slow?.attempts).toBeGreaterThan(1);
    expect(slow?.verdicts[0]).toMatchObject({
      verdict: 'unavailable',
      reason: 'timeout',
      initializeSent: false,
    });
    expect(slow?.verdicts.at(-1)?.verdict).toBe('modern');
    const slowSeen = methodsOf(rec.slow);
    expect(slowSeen).not.toContain('initialize');
    expect(slowSeen.filter((m) => m === 'server/discover').length).toBe(slow?.attempts);
    expect(slowSeen.at(-1)).toBe('tools/list');

    expect(methodsOf(rec.current)).toEqual(['server/discover', 'tools/list']);
    // Discovery first even on the archive; tools/list only after the handshake completed.
    expect(methodsOf(rec.archive)).toEqual([
      'server/discover',
      'initialize',
      'notifications/initialized',
      'tools/list',
    ]);

    expect(report.tools.map((t) => t.name)).toEqual(['fetch', 'search', 'summarize']);
    expect(report).toMatchObject({ allAvailable: true, ok: true, errors: [] });
    // runHostCheck stops every process it started.
    for (const s of report.servers) {
      expect(s.pid).toBeGreaterThan(0);
      await waitForExit(s.pid ?? 0);
    }
  });

  it('the allowlist is bound to the exact command: the same archive launched with other arguments never receives initialize', async () => {
    const allowed = tmp.file('bound-allowed.jsonl');
    const other = tmp.file('bound-other.jsonl');
    const report = await runHostCheck(
      await hostFile('bound.yaml', {
        collisionPolicy: 'prefix',
        servers: [
          stdioServer('archive', 'v1-stdio', ['--record', allowed], {
            allowLegacy: true,
            retry: { attempts: 1 },
          }),
          stdioServer('archive-copy', 'v1-stdio', ['--record', other], {
            retry: { attempts: 3, delayMs: 50 },
          }),
        ],
      }),
    );
    expect(report.servers.map((s) => [s.name, s.era, s.reason, s.attempts])).toEqual([
      ['archive', 'legacy', 'legacy_positive_evidence', 1],
      // A protocol answer (-32601) is final: not retried, and not legacy evidence.
      ['archive-copy', 'unavailable', 'ambiguous_not_allowlisted', 1],
    ]);
    expect(methodsOf(other)).toEqual(['server/discover']);
    expect(report.ok).toBe(false);
  });
});

describe('follow-ups of the document', () => {
  it('1: an allowlisted archive that answers -32022 is modern, negotiated from data.supported with a new id', async () => {
    const record = tmp.file('fu1.jsonl');
    const session = await openSession('fu1.yaml', {
      collisionPolicy: 'reject',
      modernVersions: ['2099-01-01', '2026-07-28'],
      servers: [
        stdioServer('archive', 'v2-stdio', ['--legacy', 'reject', '--tools', 'fetch', '--record', record], {
          allowLegacy: true,
          retry: { attempts: 1 },
        }),
      ],
    });
    await session.discoverAll();
    await session.listAll();
    const [archive] = session.report().servers;
    expect(archive).toMatchObject({
      era: 'modern',
      version: '2026-07-28',
      reason: 'negotiated_after_32022',
      initializeSent: false,
      tools: ['fetch'],
    });
    const seen = readRecord(record);
    expect(seen.map((r) => r.method)).toEqual(['server/discover', 'server/discover', 'tools/list']);
    expect(new Set(seen.map((r) => r.id)).size).toBe(3);
  });

  it('2: an initialize that times out leaves the peer unknown and unavailable; notifications/initialized is never sent', async () => {
    const record = tmp.file('fu2.jsonl');
    const session = await openSession('fu2.yaml', {
      collisionPolicy: 'prefix',
      servers: [
        // The initialize is held ten minutes: far past its deadline, which kills the process.
        stdioServer('archive', 'v1-stdio', ['--init-delay-ms', '600000', '--record', record], {
          allowLegacy: true,
          legacyProbeTimeoutMs: 500,
          retry: { attempts: 1 },
        }),
      ],
    });
    await session.discoverAll();
    const pid = session.state('archive').peer.pid() ?? 0;
    expect(pid).toBeGreaterThan(0);
    await session.listAll();
    const report = session.report();
    expect(report.servers[0]).toMatchObject({
      available: false,
      era: 'unavailable',
      version: null,
      reason: 'timeout',
      initializeSent: true,
      tools: [],
    });
    expect(session.eraOf(session.state('archive'))).toBeNull();
    // The transport enforced the deadline by killing the process, and listing did not relaunch it.
    await waitForExit(pid);
    expect(report.servers[0]?.launches).toBe(1);
    expect(methodsOf(record)).toEqual(['server/discover', 'initialize']);
    expect(report.allAvailable).toBe(false);
  });

  it('4: a crash and restart discards the cached era; the host rediscovers and relists', async () => {
    const archiveRec = tmp.file('fu4-archive.jsonl');
    const currentRec = tmp.file('fu4-current.jsonl');
    const cache = new EraCache({ ttlMs: 60_000 });
    const session = await openSession(
      'fu4.yaml',
      {
        collisionPolicy: 'prefix',
        servers: [
          stdioServer('archive', 'v1-stdio', ['--tools', 'fetch', '--record', archiveRec], {
            allowLegacy: true,
            retry: { attempts: 1 },
          }),
          stdioServer('current', 'v2-stdio', ['--tools', 'search', '--record', currentRec]),
        ],
      },
      { cache },
    );
    await session.discoverAll();
    await session.listAll();
    const archive = session.state('archive');
    const firstPid = archive.peer.pid() ?? 0;
    // Guards the kill below: 0 or a negative pid would signal a whole process group.
    expect(firstPid).toBeGreaterThan(0);
    expect(session.eraOf(archive)?.era).toBe('legacy');

    process.kill(firstPid, 'SIGKILL');
    await waitForExit(firstPid);
    await session.listAll();

    const secondPid = archive.peer.pid() ?? 0;
    expect(secondPid).not.toBe(firstPid);
    expect(cache.recentDiscards()).toContainEqual(
      expect.objectContaining({ key: archive.peer.key, reason: 'restarted' }),
    );
    const report = session.report();
    expect(report.servers[0]).toMatchObject({
      name: 'archive',
      available: true,
      era: 'legacy',
      launches: 2,
      tools: ['fetch'],
    });
    expect(report.servers[0]?.notes).toContain('process had exited: restarted, era rediscovered');
    const seen = await waitForRecord(archiveRec, 8);
    const perPid = (pid: number) => seen.filter((r) => r.pid === pid).map((r) => r.method);
    const handshake = ['server/discover', 'initialize', 'notifications/initialized', 'tools/list'];
    expect(perPid(firstPid)).toEqual(handshake);
    expect(perPid(secondPid)).toEqual(handshake);
    // The server that did not crash kept its cached era: no second discovery.
    expect(methodsOf(currentRec)).toEqual(['server/discover', 'tools/list', 'tools/list']);
  });

  it('a -32022 from a server believed modern triggers a re-probe, not a transport failure', async () => {
    const record = tmp.file('contradiction.jsonl');
    const cache = new EraCache({ ttlMs: 60_000 });
    const session = await openSession(
      'contradiction.yaml',
      {
        collisionPolicy: 'prefix',
        servers: [stdioServer('current', 'v2-stdio', ['--tools', 'echo', '--record', record])],
      },
      { cache },
    );
    await session.discoverAll();
    const state = session.state('current');
    const cached = session.eraOf(state);
    expect(cached?.version).toBe('2026-07-28');
    // The cache now holds a revision this server does not serve, as after a fleet rolled back under a client.
    const stale: Verdict = { ...(cached?.verdict as Verdict), negotiatedVersion: '2099-01-01' };
    cache.remember(state.peer.key, state.peer.incarnation(), stale);

    await session.listAll();
    const report = session.report();
    expect(report.servers[0]).toMatchObject({
      available: true,
      era: 'modern',
      version: '2026-07-28',
      tools: ['echo'],
    });
    expect(report.servers[0]?.notes).toEqual([
      'cached modern era contradicted (unsupported_version_32022): re-probed',
    ]);
    expect(methodsOf(record)).toEqual(['server/discover', 'tools/list', 'server/discover', 'tools/list']);
  });
});

describe('broken servers at startup', () => {
  it('stdout garbage, a process that exits at once, and stderr chatter each get the right verdict', async () => {
    const report = await runHostCheck(
      await hostFile('faults.yaml', {
        collisionPolicy: 'prefix',
        servers: [
          stdioServer('garbage', 'fault-stdio', ['--fault', 'garbage'], {
            allowLegacy: true,
            retry: { attempts: 2, delayMs: 50 },
          }),
          stdioServer('exits', 'fault-stdio', ['--fault', 'exit'], {
            allowLegacy: true,
            retry: { attempts: 2, delayMs: 50 },
          }),
          stdioServer('chatty', 'v2-stdio', ['--chatter', '--name', 'chatty']),
        ],
      }),
    );
    const rows = report.servers.map((s) => ({
      name: s.name,
      era: s.era,
      reason: s.reason,
      attempts: s.attempts,
      launches: s.launches,
    }));
    expect(rows).toEqual([
      // Garbage on stdout is an answer of sorts, and it will not improve: no retry.
      { name: 'garbage', era: 'unavailable', reason: 'invalid_json', attempts: 1, launches: 1 },
      // An exit may be a crash worth one more launch, per the retry policy; it is never legacy.
      { name: 'exits', era: 'unavailable', reason: 'process_exited', attempts: 2, launches: 2 },
      { name: 'chatty', era: 'modern', reason: 'discover_result', attempts: 1, launches: 1 },
    ]);
    expect(report.servers[2]?.stderrTail.some((l) => l.includes('chatty starting'))).toBe(true);
    expect(report.servers[2]?.tools).toEqual(['echo']);
    expect(report.allAvailable).toBe(false);
  });
});
