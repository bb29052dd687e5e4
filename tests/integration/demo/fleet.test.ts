import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO_BALANCERS,
  SEARCH_RELEASES,
  startDemoFleet,
  type DemoFleet,
  type Release,
} from '@/lib/demo/fleet';
import { runRolloutScript } from '@/lib/demo/rollout-script';
import { closeSharedProbeAgents, DEFAULT_PROBE_OPTIONS, probeNode } from '@/lib/probe';
import { CreateBalancerInput } from '@/lib/schemas/balancer';
import { postDiscover, postInitialize, serverInfoOf } from './mcp-requests';

type Observed = { kind: 'v2-modern' | 'v2-dual' | 'v1' | 'unexpected'; name?: string; version?: string };

// What a node is, told apart by plain requests as a client of each era would send them.
async function observeNode(url: string): Promise<Observed> {
  const discover = await postDiscover(url);
  const init = await postInitialize(url);
  const session = init.headers.get('mcp-session-id');
  if (session) {
    const res = await fetch(url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      signal: AbortSignal.timeout(5_000),
    });
    await res.text();
  }
  const modern =
    discover.status === 200 &&
    (discover.message?.result?.supportedVersions as string[] | undefined)?.includes('2026-07-28');
  const initialized = init.status === 200 && init.message?.result?.protocolVersion === '2025-11-25';
  const info = serverInfoOf(discover) ?? serverInfoOf(init);
  const named = { name: info?.name, version: info?.version };
  if (modern && initialized) return { kind: 'v2-dual', ...named };
  if (modern && init.status === 400 && init.message?.error?.code === -32022)
    return { kind: 'v2-modern', ...named };
  if (!modern && discover.status === 400 && initialized) return { kind: 'v1', ...named };
  return { kind: 'unexpected', ...named };
}

function expectedKind(release: Release): Observed['kind'] {
  return release.kind === 'v2-modern' ? 'v2-modern' : release.kind === 'v2-dual' ? 'v2-dual' : 'v1';
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('demo fleet', () => {
  let fleet: DemoFleet | undefined;
  const seenPids = new Set<number>();

  beforeAll(async () => {
    fleet = await startDemoFleet({ basePort: 0 });
    for (const pid of fleet.pids()) seenPids.add(pid);
  });
  afterAll(async () => {
    await closeSharedProbeAgents();
    await fleet?.stop();
  });

  function running(): DemoFleet {
    if (!fleet) throw new Error('fleet did not start');
    return fleet;
  }

  it('runs ten real SDK servers, each answering as its build', async () => {
    const nodes = running().nodes();
    expect(nodes.map((n) => n.id)).toEqual([
      'orders-1',
      'orders-2',
      'orders-3',
      'billing-1',
      'billing-2',
      'billing-3',
      'search-1',
      'search-2',
      'search-3',
      'search-4',
    ]);
    // Each node got one warm-up request per era before anyone else talked to it (sessions ended).
    const billing = nodes.find((n) => n.id === 'billing-1');
    const billingPeer = billing ? await fetch(new URL('/__erawatch/received', billing.url)) : null;
    expect(await billingPeer?.json()).toEqual({
      received: [{ method: 'server/discover' }, { method: 'initialize' }, { httpMethod: 'DELETE' }],
    });
    for (const node of nodes) {
      expect(isAlive(node.pid)).toBe(true);
      const seen = await observeNode(node.url);
      expect({ id: node.id, ...seen }).toEqual({
        id: node.id,
        kind: expectedKind(node.release),
        name: node.serverName,
        version: node.release.version,
      });
    }
  });

  it('describes valid registrations naming its own URLs', () => {
    const f = running();
    const byName = new Map(f.balancers.map((b) => [b.name, CreateBalancerInput.parse(b)]));
    expect([...byName.keys()]).toEqual([
      DEMO_BALANCERS.modern,
      DEMO_BALANCERS.legacy,
      DEMO_BALANCERS.rollout,
    ]);
    for (const [name, settings] of byName) {
      expect(settings.nodeUrls).toEqual(
        f
          .nodes()
          .filter((n) => n.balancer === name)
          .map((n) => n.url),
      );
      // Each node is named as the console names it.
      expect(settings.nodeNames).toEqual(
        Object.fromEntries(
          f
            .nodes()
            .filter((n) => n.balancer === name)
            .map((n) => [n.url, n.id]),
        ),
      );
      expect(settings.publicUrl).toBe(f.proxies().find((p) => p.balancer === name)?.url);
      expect(settings.attributionHeader).toBe('x-served-by');
      expect(settings.intervalMs).toBe(5_000);
    }
    expect(byName.get(DEMO_BALANCERS.modern)).toMatchObject({ allowLegacy: false, auditLegacy: false });
    expect(byName.get(DEMO_BALANCERS.legacy)).toMatchObject({ allowLegacy: true, auditLegacy: false });
    expect(byName.get(DEMO_BALANCERS.rollout)).toMatchObject({
      allowLegacy: true,
      auditLegacy: true,
      samplesPerCycle: 4,
    });
  });

  it("samples through a balancer's public URL rotate over its nodes", async () => {
    const f = running();
    const proxy = f.proxies().find((p) => p.balancer === DEMO_BALANCERS.modern);
    if (!proxy) throw new Error('no proxy for the modern balancer');
    const servedBy: Array<string | null> = [];
    for (let i = 0; i < 3; i++) servedBy.push((await postDiscover(proxy.url)).headers.get('x-served-by'));
    const labels = f
      .nodes()
      .filter((n) => n.balancer === DEMO_BALANCERS.modern)
      .map((n) => `${n.host}:${n.port}`);
    expect(servedBy.sort()).toEqual(labels.sort());
  });

  it('the era probe sees the mid-rollout fingerprints the demo is built to show', async () => {
    const f = running();
    const settings = CreateBalancerInput.parse(f.balancers.find((b) => b.name === DEMO_BALANCERS.rollout));
    const target = { allowLegacy: settings.allowLegacy, auditLegacy: settings.auditLegacy };
    // The fingerprints, not the demo's short deadlines, are under test: wide ones a loaded machine meets.
    const options = { ...DEFAULT_PROBE_OPTIONS, timeoutMs: 30_000, legacyProbeTimeoutMs: 30_000 };
    const egress = { egress: { allowLoopback: true, allowPrivate: true } };
    const seen: Record<string, string> = {};
    for (const node of f.nodes().filter((n) => n.balancer === DEMO_BALANCERS.rollout)) {
      const v = await probeNode({ url: node.url, ...target }, options, egress);
      seen[node.id] =
        `${v.verdict} ${v.negotiatedVersion} ${v.servedEras} ${v.serverInfo?.name}@${v.serverInfo?.version}`;
    }
    expect(seen).toEqual({
      'search-1': 'modern 2026-07-28 dual-era search-api@2.0.0',
      'search-2': 'modern 2026-07-28 dual-era search-api@2.0.0',
      'search-3': 'legacy 2025-11-25 legacy-only search-api@1.9.0',
      'search-4': 'legacy 2025-11-25 legacy-only search-api@1.9.0',
    });

    // A sample of the public URL is attributed to the node that answered it.
    const sample = await probeNode(
      { url: settings.publicUrl, attributionHeader: 'x-served-by' },
      options,
      egress,
    );
    const labels = f
      .nodes()
      .filter((n) => n.balancer === DEMO_BALANCERS.rollout)
      .map((n) => `${n.host}:${n.port}`);
    expect(labels).toContain(sample.servedBy);
    // Release the probe's keep-alive sockets, so the redeploys below stop their processes at once.
    await closeSharedProbeAgents();
  });

  it('the scripted rollout redeploys one node at a time on its own port, as planned', async () => {
    const f = running();
    const before = new Map(f.nodes().map((n) => [n.id, n]));
    const deployed: Array<{
      node: string;
      seen: Observed;
      samePort: boolean;
      newPid: boolean;
      oldPidGone: boolean;
    }> = [];
    const lines: string[] = [];
    const waits: number[] = [];
    let clock = 1_000_000;

    const report = await runRolloutScript(
      {
        async replaceNode(id, release) {
          const old = f.node(id);
          const node = await f.replaceNode(id, release);
          seenPids.add(node.pid);
          deployed.push({
            node: id,
            seen: await observeNode(node.url),
            samePort: node.port === old.port && node.host === old.host,
            newPid: node.pid !== old.pid,
            oldPidGone: !isAlive(old.pid),
          });
        },
        wait: async (ms) => {
          waits.push(ms);
          clock += ms;
        },
        log: (line) => lines.push(line),
        now: () => clock,
      },
      { stepMs: 20_000, signal: new AbortController().signal },
    );

    expect(report).toEqual({ completed: 6, total: 6, outcome: 'finished' });
    expect(waits).toEqual([20_000, 20_000, 20_000, 20_000, 20_000, 20_000]);
    const modern = { kind: 'v2-modern', name: 'search-api', version: SEARCH_RELEASES.modern.version };
    const legacy = { kind: 'v1', name: 'search-api', version: SEARCH_RELEASES.legacy.version };
    const ok = { samePort: true, newPid: true, oldPidGone: true };
    expect(deployed).toEqual([
      { node: 'search-3', seen: modern, ...ok },
      { node: 'search-4', seen: modern, ...ok },
      { node: 'search-4', seen: legacy, ...ok },
      { node: 'search-1', seen: modern, ...ok },
      { node: 'search-4', seen: modern, ...ok },
      { node: 'search-2', seen: modern, ...ok },
    ]);
    // The console narrates each step with the flag the dashboard should show next.
    const expectations = lines.flatMap((l) => /expect the balancer to show (\S+)$/.exec(l)?.slice(1) ?? []);
    expect(expectations).toEqual(['era-split', 'drift', 'era-split', 'era-split', 'drift', 'uniform']);
    expect(lines[0]).toBe('[rollout +0:00] search starts mid-rollout: expect era-split');
    expect(lines[1]).toBe(
      '[rollout +0:20] step 1/6: search-3 legacy v1 1.9.0 (v1-stateful) -> modern-only v2 2.1.0 (v2-modern): first legacy node gets the modern-only build',
    );
    expect(lines.at(-1)).toMatch(
      /^\[rollout \+2:00\] rollout finished: .* the gate for 2026-07-28 should open$/,
    );

    // The node list did not change (same URLs), and every search node now runs the modern-only build.
    for (const node of f.nodes().filter((n) => n.balancer === DEMO_BALANCERS.rollout)) {
      expect(node.url).toBe(before.get(node.id)?.url);
      expect(await observeNode(node.url)).toEqual(modern);
    }
  }, 60_000);

  it('stop() ends every process the fleet ever started', async () => {
    const f = running();
    for (const pid of f.pids()) seenPids.add(pid);
    expect(seenPids.size).toBe(16);
    await f.stop();
    fleet = undefined;
    expect([...seenPids].filter(isAlive)).toEqual([]);
    await expect(f.replaceNode('search-1', SEARCH_RELEASES.dual)).rejects.toThrow(
      'the demo fleet is stopped',
    );
  });
});

describe('demo fleet edge cases', () => {
  it('stopping during a redeploy still ends the new process', async () => {
    const fleet = await startDemoFleet();
    const pids = new Set(fleet.pids());
    try {
      const oldPid = fleet.node('search-3').pid;
      const deploying = fleet.replaceNode('search-3', SEARCH_RELEASES.modern);
      // Stop once the old process is gone, i.e. while the new one is starting (bounded: SIGKILL comes at 3 s).
      for (let i = 0; i < 600 && isAlive(oldPid); i++) await new Promise((r) => setTimeout(r, 50));
      expect(isAlive(oldPid)).toBe(false);
      await fleet.stop();
      const node = await deploying;
      pids.add(node.pid);
      for (const pid of fleet.pids()) pids.add(pid);
      expect(pids.size).toBe(11);
      expect([...pids].filter(isAlive)).toEqual([]);
    } finally {
      await fleet.stop();
    }
  });

  it.each([
    ['a non-loopback host', { host: '0.0.0.0' }, "host '0.0.0.0' is not a loopback address"],
    [
      'a privileged base port',
      { basePort: 80 },
      'basePort must be 0 or an integer from 1024 to 65000, got 80',
    ],
  ])('refuses %s before starting anything', async (_case, options, message) => {
    await expect(startDemoFleet(options)).rejects.toThrow(message);
  });

  it('an unknown node id is a clear error', async () => {
    const fleet = await startDemoFleet();
    try {
      expect(() => fleet.node('search-9')).toThrow(
        /^no demo node 'search-9' \(nodes: orders-1, .*search-4\)$/,
      );
      await expect(fleet.replaceNode('search-9', SEARCH_RELEASES.modern)).rejects.toThrow(
        "no demo node 'search-9'",
      );
    } finally {
      await fleet.stop();
    }
  });
});
