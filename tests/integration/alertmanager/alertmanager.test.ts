// A balancer goes non-uniform against a real Alertmanager: real MCP SDK peers, the poller's own cycle (probe,
// analysis, store) and the real delivery worker running, with Alertmanager's own API as the judge. Cycles run
// on demand with the default probe deadlines, so a loaded machine slows the test but cannot change a verdict.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readSinkAlerts } from '@/db/queries/alert-sinks';
import { createAlertSink } from '@/lib/alertmanager/sinks';
import { createBalancer } from '@/lib/balancers';
import { listDeliveries } from '@/db/queries/webhooks';
import { runOneCycle } from '@/tests/support/cycle';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { createEgressAgent } from '@/lib/net/egress';
import { createSender } from '@/lib/deliver/http';
import { defaultDeliveryDeps } from '@/lib/deliver/deps';
import { startDeliveryWorker, type DeliveryWorker } from '@/lib/deliver/loop';
import { startAlertmanager, type GettableAlert, type RunningAlertmanager } from '../../support/alertmanager';
import { pollUntil } from '../../support/wait';
import { tempStore } from '../poller/support';
import { testSettings } from '../../support/settings';

process.env.ERAWATCH_ALLOW_LOOPBACK = '1';

const env = await tempStore('alertmanager');
const agent = createEgressAgent({ allowLoopback: true, allowPrivate: false });
const PUBLIC_URL = 'http://127.0.0.1:3999';
let am: RunningAlertmanager | null = null;
let worker: DeliveryWorker | null = null;
const peers: RunningPeer[] = [];

beforeAll(async () => {
  am = await startAlertmanager();
}, 30_000);

afterAll(async () => {
  await worker?.stop();
  await Promise.all(peers.map((p) => p.stop()));
  await am?.stop();
  await agent.close();
  await env.cleanup();
});

async function swapPeer(old: RunningPeer, kind: 'v1-stateful' | 'v2-modern'): Promise<RunningPeer> {
  await old.stop();
  peers.splice(peers.indexOf(old), 1);
  const next = await startPeer(kind, {
    port: old.port,
    name: 'shop-node',
    version: kind === 'v2-modern' ? '2.0.0' : '1.0.0',
  });
  peers.push(next);
  return next;
}

it('a node switching SDKs fires ErawatchNonUniform in Alertmanager, and converging resolves it', async () => {
  if (!am) throw new Error('alertmanager not started');
  const alertmanager = am;
  const store = env.store;
  const a = await startPeer('v2-modern', { name: 'shop-node', version: '2.0.0' });
  const b = await startPeer('v2-modern', { name: 'shop-node', version: '2.0.0' });
  peers.push(a, b);
  const balancer = await createBalancer(store, {
    name: 'shop-mcp',
    publicUrl: a.url,
    nodeUrls: [a.url, b.url],
    samplesPerCycle: 0,
    allowLegacy: true,
  });
  const sink = await createAlertSink(store, {
    name: 'team-alertmanager',
    urls: [alertmanager.url],
    resendIntervalMs: 10_000,
  });

  worker = startDeliveryWorker(
    store,
    {
      ...defaultDeliveryDeps(testSettings()),
      send: createSender(agent),
      timeoutMs: 2_000,
      publicUrl: PUBLIC_URL,
    },
    100,
  );

  // Uniform first: nothing fires, and Alertmanager holds no alert of ours.
  const uniform = await runOneCycle(store, balancer.id);
  expect(uniform.analysis.status).toBe('uniform');
  expect(await alertmanager.alerts([`balancer="shop-mcp"`])).toEqual([]);

  // One node moves to the handshake-era SDK: an era split.
  const legacy = await swapPeer(b, 'v1-stateful');
  const split = await runOneCycle(store, balancer.id);
  expect([split.analysis.status, split.analysis.severity]).toEqual(['non-uniform', 'era-split']);
  const fired = await pollUntil('ErawatchNonUniform in Alertmanager', 30_000, async () => {
    const alerts = await alertmanager.alerts([`alertname="ErawatchNonUniform"`, `balancer="shop-mcp"`]);
    return alerts.length === 1 ? alerts : null;
  });
  const alert = fired[0] as GettableAlert;
  console.log(`alert as Alertmanager returned it:\n${JSON.stringify(alert, null, 2)}`);
  expect(alert.labels).toEqual({
    alertname: 'ErawatchNonUniform',
    balancer: 'shop-mcp',
    severity: 'critical',
    split: 'era-split',
  });
  expect(alert.status.state).toBe('active');
  expect(alert.generatorURL).toBe(`${PUBLIC_URL}/balancers/${balancer.id}`);
  expect(alert.annotations.dashboard).toBe(`${PUBLIC_URL}/balancers/${balancer.id}`);
  expect(alert.annotations.summary).toContain('shop-mcp is non-uniform (era-split)');
  expect(alert.annotations.partition).toContain(`modern 2026-07-28`);
  expect(alert.annotations.partition).toContain(`legacy 2025-11-25`);
  expect(alert.annotations.partition).toContain(a.url);
  expect(alert.annotations.partition).toContain(legacy.url);
  // A firing alert carries an endsAt a few resend intervals ahead, so a silent Erawatch lets it lapse.
  expect(Date.parse(alert.endsAt)).toBeGreaterThan(Date.now() + 10_000);
  const startsAt = Date.parse(alert.startsAt);

  // Back on the modern SDK: converged, so the alert is resolved and Alertmanager no longer lists it.
  await swapPeer(legacy, 'v2-modern');
  const converged = await runOneCycle(store, balancer.id);
  expect(converged.analysis.status).toBe('uniform');
  await pollUntil('the alert resolved in Alertmanager', 30_000, async () => {
    const alerts = await alertmanager.alerts([`balancer="shop-mcp"`]);
    return alerts.length === 0;
  });
  const known = await readSinkAlerts(store, sink.id);
  expect(known.map((k) => [k.labels.alertname, k.status])).toEqual([['ErawatchNonUniform', 'resolved']]);
  const resolvedAt = known[0]?.endsAt ?? 0;
  expect(resolvedAt).toBeGreaterThan(startsAt);

  // Every push is in the sink's delivery log; the last one sent the alert with its endsAt.
  const log = (await listDeliveries(store, sink.id, { limit: 50, kind: 'alertmanager' })).items;
  expect(log.length).toBeGreaterThanOrEqual(2);
  expect(log.every((d) => d.type === 'alertmanager.push')).toBe(true);
  expect(log[0]).toMatchObject({ status: 'succeeded', lastHttpStatus: 200 });
  expect(log[0]?.log?.[0]).toMatchObject({ outcome: 'ok', httpStatus: 200 });
}, 120_000);
