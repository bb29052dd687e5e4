// The scheduling core with an injected probe (the real-peer behaviour is covered by the other files):
// intervals, the global cap, one probe per node at a time, and retention.
import { afterAll, expect, it } from 'vitest';
import { count as countRows } from 'drizzle-orm';
import { createBalancer, updateBalancer } from '@/lib/balancers';
import { insertEvents, listEvents } from '@/db/queries/events';
import { getNodeHistory, getRollups, listNodes } from '@/db/queries/nodes';
import { pruneOldData, type ProbeFn } from '@/lib/poller';
import { runOneCycle } from '@/tests/support/cycle';
import { startPollerWith, type PollerHandle } from '@/lib/poller/poll-role';
import { createLimiter } from '@/lib/poller/limiter';
import type { Verdict } from '@/lib/probe/types';
import { tempStore, waitFor } from './support';
import { testSettings } from '../../support/settings';

const env = await tempStore('scheduler');
const handles: PollerHandle[] = [];
afterAll(async () => {
  await Promise.all(handles.map((h) => h.stop()));
  await env.cleanup();
});

function modernVerdict(url: string, at: number): Verdict {
  return {
    url,
    verdict: 'modern',
    reason: 'discover_result',
    negotiatedVersion: '2026-07-28',
    supported: ['2026-07-28'],
    servedEras: 'modern-only',
    serverInfo: { name: 'fake', version: '1' },
    cache: { ttlMs: 0, cacheScope: 'private' },
    initializeSent: false,
    anomaly: null,
    evidence: [],
    probedAt: at,
    durationMs: 20,
    address: null,
    servedBy: null,
  };
}

/** A probe that takes `ms`, recording the peak of probes in flight overall and per URL. */
function trackingProbe(ms: number) {
  const inFlight = new Map<string, number>();
  const counts = new Map<string, number>();
  let active = 0;
  let peak = 0;
  let peakPerUrl = 0;
  const probe: ProbeFn = async (target) => {
    const url = target.url;
    active += 1;
    peak = Math.max(peak, active);
    inFlight.set(url, (inFlight.get(url) ?? 0) + 1);
    peakPerUrl = Math.max(peakPerUrl, inFlight.get(url) ?? 0);
    counts.set(url, (counts.get(url) ?? 0) + 1);
    const at = Date.now();
    await new Promise((r) => setTimeout(r, ms));
    inFlight.set(url, (inFlight.get(url) ?? 1) - 1);
    active -= 1;
    return modernVerdict(url, at);
  };
  return { probe, peak: () => peak, peakPerUrl: () => peakPerUrl, counts };
}

const timing = { intervalMs: 1_000, timeoutMs: 300, legacyProbeTimeoutMs: 300, samplesPerCycle: 0 };

it('probes every balancer on its interval under one global cap, never one node twice at once', async () => {
  const ids: string[] = [];
  for (let b = 0; b < 5; b++) {
    const nodeUrls = Array.from({ length: 20 }, (_, i) => `http://10.0.${b}.${i + 1}:8080/mcp`);
    const created = await createBalancer(env.store, {
      name: `sched-${b}`,
      publicUrl: 'http://10.9.9.9/mcp',
      nodeUrls,
      ...timing,
    });
    ids.push(created.id);
  }
  const tracker = trackingProbe(20);
  const handle = startPollerWith({
    store: env.store,
    probe: tracker.probe,
    settings: testSettings({ ERAWATCH_POLLER_CONCURRENCY: '4' }),
    refreshMs: 200,
    leaseRenewMs: 200,
    log: () => {},
  });
  handles.push(handle);
  // Every balancer's own cycles, not a total: on PostgreSQL the claims may run some balancers first.
  await waitFor('two probes of every node of every balancer', 60_000, async () => {
    for (const id of ids)
      if ((await listNodes(env.store, id)).some((n) => (n.state?.probes ?? 0) < 2)) return false;
    return handle.status().cyclesCompleted >= 15;
  });
  // A manual cycle while the scheduler runs waits its turn instead of probing the same nodes at once.
  const manual = await runOneCycle(env.store, ids[0] ?? '', {
    probe: tracker.probe,
    limiter: createLimiter(4),
  });
  expect(manual.probes).toBe(20);
  await handle.stop();
  expect(tracker.peak()).toBeLessThanOrEqual(8);
  expect(tracker.peakPerUrl()).toBe(1);
  const status = handle.status();
  expect(status.cyclesFailed).toBe(0);
  expect(status.lag.count).toBeGreaterThanOrEqual(300);
  for (const id of ids) {
    const nodes = await listNodes(env.store, id);
    expect(nodes).toHaveLength(20);
    for (const n of nodes) expect(n.state?.probes).toBeGreaterThanOrEqual(2);
  }
});

it('the scheduler alone keeps to its cap', async () => {
  const b = await createBalancer(env.store, {
    name: 'cap-only',
    publicUrl: 'http://10.8.0.1/mcp',
    nodeUrls: Array.from({ length: 30 }, (_, i) => `http://10.8.1.${i + 1}/mcp`),
    ...timing,
  });
  const tracker = trackingProbe(15);
  const handle = startPollerWith({
    store: env.store,
    probe: tracker.probe,
    settings: testSettings({ ERAWATCH_POLLER_CONCURRENCY: '3' }),
    refreshMs: 100,
    leaseRenewMs: 100,
    log: () => {},
  });
  handles.push(handle);
  await waitFor(
    'a cycle of the new balancer',
    20_000,
    async () => ((await listNodes(env.store, b.id))[0]?.state?.probes ?? 0) >= 1,
  );
  await handle.stop();
  expect(tracker.peak()).toBe(3);
  expect(tracker.peakPerUrl()).toBe(1);
});

it('pruning removes old rollups, closed history and old events, and keeps current state and open spans', async () => {
  const store = env.store;
  const b = await createBalancer(store, {
    name: 'prune',
    publicUrl: 'http://10.7.0.1/mcp',
    nodeUrls: ['http://10.7.0.2/mcp'],
    ...timing,
  });
  const hour = 3_600_000;
  const t0 = Date.UTC(2026, 0, 1);
  const verdicts = [
    modernVerdict('http://10.7.0.2/mcp', t0),
    { ...modernVerdict('http://10.7.0.2/mcp', t0 + 5 * hour), serverInfo: { name: 'fake', version: '2' } },
  ];
  let i = 0;
  const probe: ProbeFn = async () => verdicts[Math.min(i++, 1)] ?? modernVerdict('x', 0);
  await runOneCycle(store, b.id, { probe, now: () => t0 });
  await runOneCycle(store, b.id, { probe, now: () => t0 + 5 * hour });
  await insertEvents(store, [{ type: 'gate.opened', balancerId: b.id, at: t0 }]);
  const [node] = await listNodes(store, b.id);
  expect(await getNodeHistory(store, node?.id ?? '')).toHaveLength(2);
  expect(await getRollups(store, { nodeId: node?.id ?? '', since: t0 - hour }, t0 + 6 * hour)).toHaveLength(
    2,
  );

  const pruned = await pruneOldData(store, t0 + 5 * hour + 1);
  expect(pruned).toEqual({ rollups: 1, history: 1, events: 1 });
  const spans = await getNodeHistory(store, node?.id ?? '');
  expect(spans).toHaveLength(1);
  expect(spans[0]?.endedAt).toBeNull();
  expect(
    (await getRollups(store, { nodeId: node?.id ?? '', since: t0 - hour }, t0 + 6 * hour)).map(
      (r) => r.hourStart,
    ),
  ).toEqual([t0 + 5 * hour]);
  expect((await listEvents(store, { balancerId: b.id, type: 'gate.opened' })).items).toEqual([]);
  expect((await listNodes(store, b.id))[0]?.state?.probes).toBe(1);
  await expect(async () => await pruneOldData(store, Number.NaN)).rejects.toThrow(/cutoff/);
});

it('taking a URL off the node list removes that node, its state, history and rollups', async () => {
  const store = env.store;
  const urls = ['http://10.6.0.1/mcp', 'http://10.6.0.2/mcp'];
  const b = await createBalancer(store, {
    name: 'shrink',
    publicUrl: 'http://10.6.0.9/mcp',
    nodeUrls: urls,
    ...timing,
  });
  const probe: ProbeFn = async (t) => modernVerdict(t.url, Date.now());
  await runOneCycle(store, b.id, { probe });
  const gone = (await listNodes(store, b.id)).find((n) => n.url === urls[1]);
  expect(gone).toBeDefined();
  // A node's current hour is in its minute slots until a probe in a later hour folds it into the hour's row.
  const rollupCount = () =>
    store.read(async (db) => (await db.select({ n: countRows() }).from(store.t.nodeMinuteRollups))[0]?.n);
  const before = await rollupCount();
  await updateBalancer(store, b.id, { nodeUrls: [urls[0] ?? ''] });
  expect((await listNodes(store, b.id)).map((n) => n.url)).toEqual([urls[0]]);
  await expect(async () => await getNodeHistory(store, gone?.id ?? '')).rejects.toThrow(/not found/);
  expect(await rollupCount()).toBe((before ?? 0) - 1);
  const next = await runOneCycle(store, b.id, { probe });
  expect(next.analysis.counts.nodes).toBe(1);
});
