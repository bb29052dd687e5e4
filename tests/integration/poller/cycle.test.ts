import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteBalancer } from '@/db/queries/balancers';
import { createBalancer } from '@/lib/balancers';
import { listEvents } from '@/db/queries/events';
import { getNode, getNodeHistory, getRollups, listNodes } from '@/db/queries/nodes';
import { count as countRows } from 'drizzle-orm';
import { getStore } from '@/db';
import { runOneCycle } from '@/tests/support/cycle';
import { startRoundRobinProxy, type RoundRobinProxy } from '@/lib/peers/round-robin-proxy';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { tempStore } from './support';
import { parseSettings } from '@/lib/settings';

process.env.ERAWATCH_ALLOW_LOOPBACK = '1';

const env = await tempStore('cycle');
const store = env.store;
const peers: RunningPeer[] = [];
let proxy: RoundRobinProxy | null = null;

afterAll(async () => {
  await proxy?.stop();
  await Promise.all(peers.map((p) => p.stop()));
  await env.cleanup();
});

// Every node here is due to answer: deadlines a loaded machine meets (cycles are run by hand, not on the interval).
const wide = { intervalMs: 60_000, timeoutMs: 15_000, legacyProbeTimeoutMs: 15_000 };

describe('a balancer behind a round-robin proxy, real SDK peers', () => {
  let dual: RunningPeer;
  let legacy: RunningPeer;

  beforeAll(async () => {
    [dual, legacy] = await Promise.all([
      startPeer('v2-dual', { name: 'rr-node', version: '2.0.0' }),
      startPeer('v1-stateful', { name: 'rr-node', version: '1.0.0' }),
    ]);
    peers.push(dual, legacy);
    proxy = await startRoundRobinProxy({ upstreams: [dual.url, legacy.url] });
  });

  it('probes listed nodes and attributed samples, flags the era split and records it once', async () => {
    const b = await createBalancer(store, {
      name: 'rr-split',
      publicUrl: proxy?.url ?? '',
      nodeUrls: [dual.url, legacy.url],
      samplesPerCycle: 4,
      attributionHeader: 'x-served-by',
      allowLegacy: true,
      ...wide,
    });
    const first = await runOneCycle(store, b.id);
    expect(first.probes).toBe(6);
    expect(first.analysis.status).toBe('non-uniform');
    expect(first.analysis.severity).toBe('era-split');
    expect(first.analysis.counts).toEqual({ nodes: 2, availableNodes: 2, samples: 4, availableSamples: 4 });
    // Samples name their upstream by host:port, which attributes them to the listed nodes themselves.
    const nodes = await listNodes(store, b.id);
    expect(nodes.map((n) => n.origin)).toEqual(['listed', 'listed']);
    const byUrl = new Map(nodes.map((n) => [n.url, n]));
    const dualNode = byUrl.get(dual.url);
    const legacyNode = byUrl.get(legacy.url);
    expect(dualNode?.state?.clientEra).toBe('modern');
    expect(legacyNode?.state?.clientEra).toBe('legacy');
    // Without affinity a sample's discover and its legacy initialize may reach different upstreams, so
    // the sample groups vary run to run; every sample is still attributed to one of the two listed nodes.
    const sampled = [...new Set(first.analysis.partition.flatMap((g) => g.sampleNodeIds))].sort();
    expect(sampled).toEqual([dualNode?.id, legacyNode?.id].sort());
    expect(first.analysis.partition.reduce((n, g) => n + g.sampleCount, 0)).toBe(4);
    expect(first.events.map((e) => e.type)).toEqual(['balancer.diverged']);
    expect(first.events[0]?.data).toMatchObject({ severity: 'era-split' });

    const second = await runOneCycle(store, b.id);
    expect(second.events).toEqual([]);
    expect((await listEvents(store, { balancerId: b.id })).items.map((e) => e.type)).toEqual([
      'balancer.diverged',
    ]);

    // Quiet second cycle: counters move, history does not.
    const node = await getNode(store, legacyNode?.id ?? '');
    expect(node.state?.probes).toBe(2);
    expect(node.state?.verdict.evidence.length).toBeGreaterThan(0);
    expect(await getNodeHistory(store, node.id)).toHaveLength(1);
    const rollups = await getRollups(store, { nodeId: node.id, since: 0 });
    expect(rollups).toHaveLength(1);
    expect(rollups[0]).toMatchObject({ probes: 2, failures: 0 });
    expect(rollups[0]?.p50Ms).toBeGreaterThan(0);
    const balancerRollups = await getRollups(store, { balancerId: b.id, since: 0 });
    expect(balancerRollups[0]?.probes).toBe(4);
  });

  it('samples without attribution stay unattributed and create no nodes', async () => {
    const b = await createBalancer(store, {
      name: 'rr-anon',
      publicUrl: proxy?.url ?? '',
      samplesPerCycle: 4,
      ...wide,
    });
    const r = await runOneCycle(store, b.id);
    expect(r.analysis.counts.samples).toBe(4);
    expect(await listNodes(store, b.id)).toEqual([]);
    // The v1 upstream is not allow-listed here, so it is unavailable: degraded beside, never a split.
    expect(r.analysis.status).toBe('uniform');
    expect(r.analysis.unavailableSamples).toHaveLength(2);
    expect(r.analysis.unavailableSamples[0]?.reason).toBe('ambiguous_not_allowlisted');
  });
});

describe('one name, several loopback addresses', () => {
  it('probes every address of the host on its own, keeping the Host header', async () => {
    const a = await startPeer('v2-modern', { host: '127.0.0.2', name: 'dns-node', version: '3.0.0' });
    peers.push(a);
    const b2 = await startPeer('v2-dual', {
      host: '127.0.0.3',
      port: a.port,
      name: 'dns-node',
      version: '3.0.0',
    });
    peers.push(b2);
    const b = await createBalancer(store, {
      name: 'dns-fleet',
      publicUrl: `http://fleet.erawatch.test:${a.port}/mcp`,
      resolveDns: true,
      samplesPerCycle: 0,
      ...wide,
    });
    const resolved: string[] = [];
    const resolve = async (host: string) => {
      resolved.push(host);
      return ['127.0.0.2', '127.0.0.3'];
    };
    const r = await runOneCycle(store, b.id, { resolve });
    expect(resolved).toEqual(['fleet.erawatch.test']);
    const nodes = await listNodes(store, b.id);
    expect(nodes.map((n) => [n.origin, n.address, n.url])).toEqual([
      ['dns', '127.0.0.2', b.publicUrl],
      ['dns', '127.0.0.3', b.publicUrl],
    ]);
    for (const n of nodes) {
      expect(n.state?.clientEra).toBe('modern');
      expect(n.state?.verdict.address).toBe(n.address);
    }
    // Both are modern with the same supported revisions from the modern side: uniform.
    expect(r.analysis.status).toBe('uniform');
    expect(await a.received()).not.toEqual([]);
    expect(await b2.received()).not.toEqual([]);

    // A lookup that fails keeps the known addresses as unavailable nodes instead of dropping them.
    const failed = await runOneCycle(store, b.id, {
      resolve: async () => {
        throw new Error('ENOTFOUND');
      },
    });
    expect(failed.analysis.degradedNodes.map((d) => d.reason)).toEqual(['dns_failed', 'dns_failed']);
    expect(failed.events.map((e) => e.type).sort()).toEqual([
      'balancer.severity_changed',
      'gate.closed',
      'node.unavailable',
      'node.unavailable',
    ]);
  });
});

describe('header values from the environment', () => {
  it('an unset env: reference makes the cycle unavailable with the variable named, probing nothing', async () => {
    const peer = await startPeer('v2-modern');
    peers.push(peer);
    const b = await createBalancer(store, {
      name: 'env-headers',
      publicUrl: peer.url,
      nodeUrls: [peer.url],
      samplesPerCycle: 0,
      headers: { Authorization: 'env:ERAWATCH_TEST_UNSET_TOKEN' },
      ...wide,
    });
    const r = await runOneCycle(store, b.id, { variables: {} });
    expect(r.analysis.degradedNodes[0]?.reason).toBe('header_env_missing:ERAWATCH_TEST_UNSET_TOKEN');
    expect(await peer.received()).toEqual([]);
    const ok = await runOneCycle(store, b.id, { variables: { ERAWATCH_TEST_UNSET_TOKEN: 'Bearer x' } });
    expect(ok.analysis.degradedNodes).toEqual([]);
    // Degraded ends: the level goes back to uniform.
    expect(ok.events.map((e) => e.type)).toEqual([
      'balancer.severity_changed',
      'node.recovered',
      'gate.opened',
    ]);
    expect(ok.events[0]?.data).toMatchObject({ from: 'degraded', to: 'uniform' });
  });
});

it('getStore is one handle per process', async () => {
  const settings = parseSettings({ ERAWATCH_DB: `${env.dir}/singleton.db` });
  expect(await getStore({ settings })).toBe(await getStore({ settings }));
  await (await getStore({ settings })).close();
});

it('deleting a balancer removes its rollups and keeps those of every other balancer', async () => {
  const peer = await startPeer('v2-modern');
  peers.push(peer);
  const keep = await createBalancer(store, {
    name: 'rollup-keep',
    publicUrl: peer.url,
    nodeUrls: [peer.url],
    samplesPerCycle: 0,
    ...wide,
  });
  const drop = await createBalancer(store, {
    name: 'rollup-drop',
    publicUrl: peer.url,
    nodeUrls: [`${peer.url}?x=1`],
    samplesPerCycle: 0,
    ...wide,
  });
  await runOneCycle(store, keep.id);
  await runOneCycle(store, drop.id);
  // A node's current hour is in its minute slots until a probe in a later hour folds it into the hour's row.
  const count = () =>
    store.read(async (db) => (await db.select({ n: countRows() }).from(store.t.nodeMinuteRollups))[0]?.n);
  const before = await count();
  expect((await getRollups(store, { balancerId: drop.id, since: 0 }))[0]?.probes).toBe(1);
  await deleteBalancer(store, drop.id);
  expect(await count()).toBe((before ?? 0) - 1);
  expect((await getRollups(store, { balancerId: keep.id, since: 0 }))[0]?.probes).toBe(1);
});
