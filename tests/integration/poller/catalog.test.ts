// The tool catalog against real SDK servers: nodes that differ only by one tool drift with "catalog
// differs" and the tool named; a node that gains a tool gives one node.catalog_changed; the cadence lists
// every Nth cycle; a legacy catalog is listed inside the initialized session, which is then DELETEd.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBalancer } from '@/lib/balancers';
import { listEvents } from '@/db/queries/events';
import { listNodes } from '@/db/queries/nodes';
import { runOneCycle } from '@/tests/support/cycle';
import { closeDefaultProbe, createDefaultProbe } from '@/lib/poller/default-probe';
import { catalogOffsetOf } from '@/lib/rollout/catalog';
import { createProbeAgent, DEFAULT_PROBE_OPTIONS, probeNode } from '@/lib/probe';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { tempStore } from './support';
import {
  discoverResult,
  rpcError,
  rpcOf,
  sendJson,
  startFaultPeer,
  type FaultPeer,
} from '@/tests/support/fault-peer';
import { testSettings } from '../../support/settings';

const settings = testSettings();
const probe = createDefaultProbe(settings);
const tmp = await tempStore('catalog');
const store = tmp.store;
const peers: RunningPeer[] = [];
const faultPeers: FaultPeer[] = [];
// Probe deadlines are bounds for a hung peer, not expectations: a loaded machine can take seconds to answer.
const fast = { intervalMs: 60_000, timeoutMs: 10_000, legacyProbeTimeoutMs: 10_000, samplesPerCycle: 0 };

afterAll(async () => {
  await closeDefaultProbe();
  await Promise.all(peers.map((p) => p.stop()));
  await Promise.all(faultPeers.map((p) => p.close()));
  await tmp.cleanup();
});

async function start(...specs: Array<Parameters<typeof startPeer>>): Promise<RunningPeer[]> {
  const started = await Promise.all(specs.map(([kind, opts]) => startPeer(kind, opts)));
  peers.push(...started);
  return started;
}

function must<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('peer did not start');
  return value;
}

const cycle = (id: string) => runOneCycle(store, id, { settings, probe });
const toolLists = async (p: RunningPeer) =>
  (await p.received()).filter((r) => r.method === 'tools/list').length;

describe('catalog drift between real v2 nodes', () => {
  let a: RunningPeer;
  let b: RunningPeer;
  let c: RunningPeer;
  beforeAll(async () => {
    const same = { name: 'search-api', version: '2.4.0' };
    const started = await start(
      ['v2-modern', { ...same, tools: ['echo', 'search'] }],
      ['v2-modern', { ...same, tools: ['echo', 'search'] }],
      ['v2-modern', { ...same, tools: ['echo'] }],
    );
    [a, b, c] = [must(started[0]), must(started[1]), must(started[2])];
  });

  it('is drift, "catalog differs", naming the tool the odd node lacks', async () => {
    const bal = await createBalancer(store, {
      name: 'catalog-drift',
      publicUrl: a.url,
      nodeUrls: [a.url, b.url, c.url],
      ...fast,
    });
    const result = await cycle(bal.id);
    const { analysis } = result;
    expect(analysis.status).toBe('non-uniform');
    expect(analysis.severity).toBe('drift');
    expect(analysis.reasons).toEqual(['catalog differs']);
    const nodeIdOf = new Map((await listNodes(store, bal.id)).map((n) => [n.url, n.id]));
    expect(analysis.partition.map((g) => g.nodeIds)).toEqual([
      [nodeIdOf.get(a.url), nodeIdOf.get(b.url)].sort(),
      [nodeIdOf.get(c.url)],
    ]);
    expect(analysis.partition[0]?.toolNames).toEqual(['echo', 'search']);
    expect(analysis.partition[1]?.catalogDiff).toEqual({ adds: [], lacks: ['search'], changed: [] });
    // The SDK's default cache hint is ttlMs 0, which the hazard reports as such.
    expect(analysis.cacheHazard.catalogTtlMs).toBe(0);
    // Modern tools/list: one per node, with Mcp-Method, answered on the modern leg.
    const wire = (await c.received()).filter((r) => r.method === 'tools/list');
    expect(wire).toEqual([{ era: 'modern', method: 'tools/list' }]);
    expect(result.events.map((e) => e.type)).toEqual(['balancer.diverged']);
  }, 60_000);

  it('stays uniform, with the same keys as before, when the catalog is off', async () => {
    const bal = await createBalancer(store, {
      name: 'catalog-off',
      publicUrl: a.url,
      nodeUrls: [a.url, c.url],
      catalog: false,
      ...fast,
    });
    const before = await toolLists(a);
    const { analysis } = await cycle(bal.id);
    expect(analysis.status).toBe('uniform');
    expect(analysis.partition[0]?.fingerprint.catalogDigest).toBeNull();
    expect(await toolLists(a)).toBe(before);
  }, 60_000);
});

describe('a node that gains a tool', () => {
  let node: RunningPeer;
  beforeAll(async () => {
    node = must((await start(['v2-dual', { name: 'orders-api', version: '3.0.0', tools: ['echo'] }]))[0]);
  });

  it('gives exactly one node.catalog_changed, and the cadence lists every Nth cycle', async () => {
    const bal = await createBalancer(store, {
      name: 'catalog-gain',
      publicUrl: node.url,
      nodeUrls: [node.url],
      catalogEvery: 3,
      ...fast,
    });
    // The balancer's id places it in the cadence: every 3rd cycle counted from its offset.
    const onCadence = (c: number) => (c + catalogOffsetOf(bal.id, 3)) % 3 === 0;
    const counts: number[] = [];
    const expected: number[] = [];
    for (let c = 1; c <= 4; c++) {
      await cycle(bal.id);
      counts.push(await toolLists(node));
      // Listed on cycle 1 (never listed before) and on its cadence; the cycles in between carry it.
      expected.push((expected.at(-1) ?? 0) + (c === 1 || onCadence(c) ? 1 : 0));
    }
    expect(counts).toEqual(expected);
    expect((await listEvents(store, { balancerId: bal.id })).items.map((e) => e.type)).toEqual([]);

    await node.setTools(['echo', 'refund']);
    // The verdict is unchanged, so only the next cycle on the cadence lists and sees the new tool.
    let c = 5;
    for (; !onCadence(c); c++) await cycle(bal.id);
    const listing = await cycle(bal.id);
    await cycle(bal.id);
    expect(await toolLists(node)).toBe((expected.at(-1) ?? 0) + 1);
    const changes = (await listEvents(store, { balancerId: bal.id })).items.filter(
      (e) => e.type === 'node.catalog_changed',
    );
    expect(changes).toHaveLength(1);
    expect(changes[0]?.data).toMatchObject({ added: ['refund'], removed: [], changed: [] });
    expect(listing.events.map((e) => e.type)).toEqual(['node.catalog_changed']);
    const state = (await listNodes(store, bal.id))[0]?.state;
    expect(state?.verdict.catalog).toMatchObject({ names: ['echo', 'refund'] });
  }, 60_000);

  it('after a failed listing, tries again on the cadence, not every cycle', async () => {
    // A node whose tools/list always fails (-32603): it never gets a full catalog to carry.
    const failing = await startFaultPeer((req, res) => {
      const { method, id } = rpcOf(req);
      if (method === 'tools/list') return sendJson(res, 200, rpcError(id, -32603, 'tools unavailable'));
      return sendJson(res, 200, discoverResult(id));
    });
    faultPeers.push(failing);
    const bal = await createBalancer(store, {
      name: 'catalog-failing',
      publicUrl: failing.url,
      nodeUrls: [failing.url],
      catalogEvery: 3,
      ...fast,
    });
    const lists = () => failing.received.filter((r) => rpcOf(r).method === 'tools/list').length;
    const onCadence = (c: number) => (c + catalogOffsetOf(bal.id, 3)) % 3 === 0;
    const counts: number[] = [];
    const expected: number[] = [];
    const remembered: boolean[] = [];
    for (let c = 1; c <= 4; c++) {
      const result = await cycle(bal.id);
      counts.push(lists());
      // Cycle 1 tries at once (never listed), then only the cycles on the cadence send one.
      expected.push((expected.at(-1) ?? 0) + (c === 1 || onCadence(c) ? 1 : 0));
      remembered.push(result.analysis.snapshot.nodes[0]?.catalogFailedKey !== undefined);
    }
    expect(counts).toEqual(expected);
    // Four cycles of a 3-cycle cadence: at least one skipped cycle in between sent nothing.
    expect(counts.at(-1)).toBeLessThan(4);
    expect(remembered).toEqual([true, true, true, true]);
    const state = (await listNodes(store, bal.id))[0]?.state;
    expect(state?.verdict.verdict).toBe('modern');
  }, 60_000);

  it('lists again at once when the node comes back as another build', async () => {
    const [other] = await start(['v2-dual', { name: 'orders-api', version: '3.0.0', tools: ['echo'] }]);
    if (!other) throw new Error('peer did not start');
    const bal = await createBalancer(store, {
      name: 'catalog-era-change',
      publicUrl: other.url,
      nodeUrls: [other.url],
      catalogEvery: 100,
      ...fast,
    });
    await cycle(bal.id);
    await cycle(bal.id);
    expect(await toolLists(other)).toBe(1);
    const port = other.port;
    await other.stop();
    const [rebuilt] = await start([
      'v2-dual',
      { port, name: 'orders-api', version: '3.1.0', tools: ['echo', 'x'] },
    ]);
    await cycle(bal.id);
    expect(await rebuilt?.received().then((r) => r.filter((x) => x.method === 'tools/list').length)).toBe(1);
    const types = (await listEvents(store, { balancerId: bal.id })).items.map((e) => e.type);
    expect(types).toContain('node.catalog_changed');
  }, 60_000);
});

describe('the legacy catalog', () => {
  it('is listed inside the initialized session, which is then DELETEd', async () => {
    const [legacy] = await start([
      'v1-stateful',
      { name: 'billing-api', version: '1.8.2', tools: ['echo', 'refund'] },
    ]);
    if (!legacy) throw new Error('peer did not start');
    const agent = createProbeAgent({ allowLoopback: true, allowPrivate: true });
    try {
      const verdict = await probeNode(
        { url: legacy.url, allowLegacy: true, catalog: { list: 'always' } },
        DEFAULT_PROBE_OPTIONS,
        { dispatcher: agent, egress: { allowLoopback: true, allowPrivate: true } },
      );
      expect(verdict.verdict).toBe('legacy');
      expect(verdict.catalog).toMatchObject({
        status: 'listed',
        names: ['echo', 'refund'],
        ttlMs: null,
        cacheScope: null,
        pages: 1,
      });
      expect(verdict.catalog?.digest).toMatch(/^cat_[0-9a-f]{16}$/);
      const seen = (await legacy.received()).map((r) => r.method ?? r.httpMethod);
      expect(seen).toEqual([
        'server/discover',
        'initialize',
        'notifications/initialized',
        'tools/list',
        'DELETE',
      ]);
      const open = (await (await fetch(new URL('/sessions', legacy.url))).json()) as { open: number };
      expect(open.open).toBe(0);
      const step = verdict.evidence.find((e) => e.step === 'catalog');
      expect(step).toMatchObject({ method: 'tools/list', protocolVersion: '2025-11-25', outcome: 'result' });
    } finally {
      await agent.close();
    }
  }, 60_000);
});
