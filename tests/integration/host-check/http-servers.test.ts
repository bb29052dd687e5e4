// host.yaml may also name HTTP servers: the same probe, the same allowlist, and a legacy listing that opens
// its own session and ends it. Real SDK servers on loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadHostConfig } from '@/lib/host-check/config';
import { runHostCheck } from '@/lib/host-check/session';
import { closeSharedProbeAgents } from '@/lib/probe/agent';
import { startPeers, type RunningPeer } from '@/lib/peers/spawn';
import { makeTempDir, peerScript } from './fixtures';

const tmp = makeTempDir('host-http');
let peers: RunningPeer[] = [];

beforeAll(async () => {
  peers = await startPeers([
    { kind: 'v2-dual', name: 'http-current' },
    { kind: 'v1-stateful', name: 'http-archive' },
  ]);
});
afterAll(async () => {
  await Promise.all(peers.map((p) => p.stop()));
  await closeSharedProbeAgents();
  tmp.remove();
});

function peer(i: number): RunningPeer {
  const p = peers[i];
  if (!p) throw new Error(`peer ${i} did not start`);
  return p;
}

describe('HTTP servers in host.yaml', () => {
  it('a modern HTTP server, a legacy one on the allowlist and a stdio server start together', async () => {
    const [current, archive] = [peer(0), peer(1)];
    const file = tmp.write(
      'mixed.yaml',
      stringify({
        collisionPolicy: 'prefix',
        servers: [
          { name: 'http-current', url: current.url },
          { name: 'http-archive', url: archive.url, allowLegacy: true, retry: { attempts: 1 } },
          {
            name: 'stdio-current',
            command: process.execPath,
            args: [peerScript('v2-stdio'), '--tools', 'search'],
          },
        ],
      }),
    );
    const report = await runHostCheck(await loadHostConfig(file));
    expect(report.servers.map((s) => [s.name, s.transport, s.era, s.reason, s.tools])).toEqual([
      ['http-current', 'http', 'modern', 'discover_result', ['echo']],
      ['http-archive', 'http', 'legacy', 'legacy_positive_evidence', ['echo']],
      ['stdio-current', 'stdio', 'modern', 'discover_result', ['search']],
    ]);
    expect(report.tools.map((t) => t.name)).toEqual(['echo', 'http-archive/echo', 'search']);
    expect(report.ok).toBe(true);

    // The archive saw the probe's handshake and the listing's own, each session ended with DELETE.
    const seen = await archive.received();
    expect(seen.map((r) => r.method ?? r.httpMethod)).toEqual([
      'server/discover',
      'initialize',
      'notifications/initialized',
      'DELETE',
      'initialize',
      'notifications/initialized',
      'tools/list',
      'DELETE',
    ]);
    const sessions = (await (await fetch(new URL('/sessions', archive.url))).json()) as { open: number };
    expect(sessions.open).toBe(0);
  });

  it('an HTTP archive that is not allowlisted never receives initialize', async () => {
    const archive = peer(1);
    const before = (await archive.received()).length;
    const file = tmp.write(
      'deny.yaml',
      stringify({
        collisionPolicy: 'reject',
        servers: [{ name: 'archive', url: archive.url, retry: { attempts: 1 } }],
      }),
    );
    const report = await runHostCheck(await loadHostConfig(file));
    expect(report.servers[0]).toMatchObject({
      era: 'unavailable',
      reason: 'ambiguous_not_allowlisted',
      initializeSent: false,
    });
    expect((await archive.received()).slice(before).map((r) => r.method)).toEqual(['server/discover']);
  });
});
