import { afterAll, expect, it } from 'vitest';
import { createBalancer } from '@/lib/balancers';
import { listEvents } from '@/db/queries/events';
import { getNodeHistory, listNodes } from '@/db/queries/nodes';
import { runOneCycle } from '@/tests/support/cycle';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { tempStore } from './support';

process.env.ERAWATCH_ALLOW_LOOPBACK = '1';

const env = await tempStore('switch');
const running: RunningPeer[] = [];

afterAll(async () => {
  await Promise.all(running.map((p) => p.stop()));
  await env.cleanup();
});

it('a node switched from legacy to modern on the same host:port produces exactly the expected events', async () => {
  const store = env.store;
  const old = await startPeer('v1-stateful', { name: 'switch-node', version: '1.0.0' });
  running.push(old);
  const b = await createBalancer(store, {
    name: 'switch',
    publicUrl: old.url,
    nodeUrls: [old.url],
    samplesPerCycle: 0,
    allowLegacy: true,
    // The node answers or refuses, never hangs: deadlines a loaded machine meets, cycles run by hand.
    intervalMs: 60_000,
    timeoutMs: 15_000,
    legacyProbeTimeoutMs: 15_000,
  });

  const c1 = await runOneCycle(store, b.id);
  expect(c1.analysis.snapshot.nodes.map((n) => n.era)).toEqual(['legacy']);
  expect(c1.events).toEqual([]);
  const c2 = await runOneCycle(store, b.id);
  expect(c2.events).toEqual([]);

  await old.stop();
  running.splice(running.indexOf(old), 1);
  const down = await runOneCycle(store, b.id);
  expect(down.analysis.degradedNodes.map((d) => d.reason)).toEqual(['refused']);

  const upgraded = await startPeer('v2-modern', { port: old.port, name: 'switch-node', version: '2.0.0' });
  running.push(upgraded);
  const c3 = await runOneCycle(store, b.id);
  expect(c3.analysis.snapshot.nodes.map((n) => n.era)).toEqual(['modern']);
  const c4 = await runOneCycle(store, b.id);
  expect(c4.events).toEqual([]);

  const [node] = await listNodes(store, b.id);
  const types = (await listEvents(store, { balancerId: b.id })).items
    .reverse()
    .map((e) => [e.type, e.nodeId]);
  expect(types).toEqual([
    // The restart is an outage: degraded starts and ends (one node, so the balancer never diverges).
    ['balancer.severity_changed', null],
    ['node.unavailable', node?.id],
    ['balancer.severity_changed', null],
    ['node.recovered', node?.id],
    ['node.era_changed', node?.id],
    // The v2 build's echo tool carries another input schema than the v1 build's.
    ['node.catalog_changed', node?.id],
    ['gate.opened', null],
  ]);
  const catalogChange = (await listEvents(store, { balancerId: b.id, type: 'node.catalog_changed' }))
    .items[0];
  expect(catalogChange?.data).toMatchObject({ added: [], removed: [], changed: ['echo'] });
  const changed = (await listEvents(store, { balancerId: b.id, type: 'node.era_changed' })).items[0];
  expect(changed?.data).toEqual({
    from: { era: 'legacy', servedEras: 'legacy-only' },
    to: { era: 'modern', servedEras: 'modern-only' },
    // Registered without a name, the node is called by its URL.
    nodeName: node?.url,
  });
  // History: legacy span, the outage, the modern span (a real change); counters only otherwise.
  const spans = (await getNodeHistory(store, node?.id ?? '')).reverse();
  expect(spans.map((s) => [s.clientEra, s.isChange, s.probes])).toEqual([
    ['legacy', false, 2],
    ['unavailable', false, 1],
    ['modern', true, null],
  ]);
  expect(node?.state).toMatchObject({ clientEra: 'modern', probes: 2, consecutiveFailures: 0 });
});
