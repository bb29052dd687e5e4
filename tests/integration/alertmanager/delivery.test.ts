// Alertmanager sink semantics through the real delivery pass with an injected clock: auth headers, every URL,
// resend while firing, resolve with endsAt, rollout-window holds, filters, and failures in the delivery log.
// Real MCP SDK peers feed the real poller cycle; a loopback receiver stands in where headers must be seen.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSinkAlerts } from '@/db/queries/alert-sinks';
import { createAlertSink } from '@/lib/alertmanager/sinks';
import { createBalancer } from '@/lib/balancers';
import { openRolloutWindow } from '@/db/queries/rollouts';
import { listDeliveries } from '@/db/queries/webhooks';
import { createEgressAgent } from '@/lib/net/egress';
import { runOneCycle } from '@/tests/support/cycle';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import type { PostableAlert } from '@/lib/schemas/alert-sink';
import { createSender } from '@/lib/deliver/http';
import type { DeliveryDeps } from '@/lib/deliver/deps';
import { deliverDue } from '../../support/deliver';
import { startAlertmanager, type RunningAlertmanager } from '../../support/alertmanager';
import { pollUntil } from '../../support/wait';
import { tempStore } from '../poller/support';

process.env.ERAWATCH_ALLOW_LOOPBACK = '1';
process.env.ERAWATCH_TEST_AM_TOKEN = 'am-token-123';

interface Hit {
  path: string;
  authorization: string | undefined;
  alerts: PostableAlert[];
}

const env = await tempStore('am-delivery');
const agent = createEgressAgent({ allowLoopback: true, allowPrivate: false });
const peers: RunningPeer[] = [];
const hits: Hit[] = [];
let receiverUrl = '';
let am: RunningAlertmanager | null = null;
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const path = req.url ?? '/';
    hits.push({
      path,
      authorization: req.headers.authorization,
      alerts: JSON.parse(Buffer.concat(chunks).toString('utf8') || '[]') as PostableAlert[],
    });
    res.writeHead(path.startsWith('/fail/') ? 503 : 200, { 'content-type': 'application/json' }).end('{}');
  });
});

let t = Date.now();
const deps: DeliveryDeps = {
  now: () => t,
  random: () => 0.5,
  send: createSender(agent),
  timeoutMs: 3_000,
  disableAfterMs: 5 * 86_400_000,
  batchSize: 50,
  concurrency: 4,
  retentionMs: 30 * 86_400_000,
  publicUrl: 'https://erawatch.example.test/',
  variables: process.env,
};

let splitId = '';
let splitNodeB: RunningPeer | null = null;

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  am = await startAlertmanager();
  const a = await startPeer('v2-modern', { name: 'n', version: '2.0.0' });
  const b = await startPeer('v1-stateful', { name: 'n', version: '1.0.0' });
  peers.push(a, b);
  splitNodeB = b;
  const split = await createBalancer(env.store, {
    name: 'split-fleet',
    publicUrl: a.url,
    nodeUrls: [a.url, b.url],
    samplesPerCycle: 0,
    allowLegacy: true,
  });
  splitId = split.id;
  await runOneCycle(env.store, split.id);
}, 60_000);

afterAll(async () => {
  await Promise.all(peers.map((p) => p.stop()));
  await am?.stop();
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  await agent.close();
  await env.cleanup();
});

const hitsAt = (prefix: string) => hits.filter((h) => h.path.startsWith(prefix));

describe('an Alertmanager sink', () => {
  it('pushes to every URL with the bearer token from env, re-sends on the interval, and resolves with endsAt', async () => {
    if (!am) throw new Error('alertmanager not started');
    const alertmanager = am;
    const sink = await createAlertSink(env.store, {
      name: 'two-replicas',
      urls: [`${receiverUrl}/ok`, alertmanager.url],
      auth: { type: 'bearer', token: 'env:ERAWATCH_TEST_AM_TOKEN' },
      balancerIds: [splitId],
      resendIntervalMs: 60_000,
    });
    const start = t;
    await deliverDue(env.store, deps);
    const first = hitsAt('/ok/');
    expect(first).toHaveLength(1);
    expect(first[0]?.path).toBe('/ok/api/v2/alerts');
    expect(first[0]?.authorization).toBe('Bearer am-token-123');
    expect(first[0]?.alerts.map((a) => a.labels)).toEqual([
      { alertname: 'ErawatchNonUniform', balancer: 'split-fleet', severity: 'critical', split: 'era-split' },
    ]);
    expect(first[0]?.alerts[0]).toMatchObject({
      startsAt: new Date(start).toISOString(),
      endsAt: new Date(start + 4 * 60_000).toISOString(),
      generatorURL: `https://erawatch.example.test/balancers/${splitId}`,
    });
    await pollUntil('the alert in the real Alertmanager too', 10_000, async () => {
      const alerts = await alertmanager.alerts([`balancer="split-fleet"`]);
      return alerts.length === 1;
    });

    // Not due again within the interval; due again after it.
    t += 30_000;
    await deliverDue(env.store, deps);
    expect(hitsAt('/ok/')).toHaveLength(1);
    t += 30_000;
    await deliverDue(env.store, deps);
    expect(hitsAt('/ok/')).toHaveLength(2);
    expect(hitsAt('/ok/')[1]?.alerts[0]?.startsAt).toBe(new Date(start).toISOString());

    // The node moves to the modern SDK: converged, so the next pass resolves the alert at once.
    if (!splitNodeB) throw new Error('no node b');
    const old = splitNodeB;
    await old.stop();
    peers.splice(peers.indexOf(old), 1);
    const upgraded = await startPeer('v2-modern', { port: old.port, name: 'n', version: '2.0.0' });
    peers.push(upgraded);
    await runOneCycle(env.store, splitId);
    t += 1_000;
    const resolvedAt = t;
    await deliverDue(env.store, deps);
    const resolved = hitsAt('/ok/')[2]?.alerts[0];
    expect(resolved?.endsAt).toBe(new Date(resolvedAt).toISOString());
    expect((await readSinkAlerts(env.store, sink.id)).map((a) => a.status)).toEqual(['resolved']);
    // (Alertmanager's own view of a resolve is checked in alertmanager.test.ts, on real time.)

    // Resolved alerts ride along for 15 minutes, then the sink forgets them and stops pushing.
    t += 16 * 60_000;
    await deliverDue(env.store, deps);
    const before = hitsAt('/ok/').length;
    t += 2 * 60_000;
    await deliverDue(env.store, deps);
    expect(hitsAt('/ok/')).toHaveLength(before);
    expect(await readSinkAlerts(env.store, sink.id)).toEqual([]);

    const log = (await listDeliveries(env.store, sink.id, { limit: 50, kind: 'alertmanager' })).items;
    expect(log.every((d) => d.status === 'succeeded' && d.type === 'alertmanager.push')).toBe(true);
  }, 60_000);

  it('holds non-uniform inside an open rollout window, and fires it beside ErawatchRolloutStuck past the deadline', async () => {
    const a = await startPeer('v2-modern', { name: 'w', version: '2.0.0' });
    const b = await startPeer('v1-stateful', { name: 'w', version: '1.0.0' });
    peers.push(a, b);
    const rolling = await createBalancer(env.store, {
      name: 'rolling-fleet',
      publicUrl: a.url,
      nodeUrls: [a.url, b.url],
      samplesPerCycle: 0,
      allowLegacy: true,
    });
    const opened = Date.now();
    await openRolloutWindow(
      env.store,
      rolling.id,
      { target: { era: 'modern' }, deadline: opened + 60_000 },
      opened,
    );
    const all = await createAlertSink(env.store, {
      name: 'rolling-all',
      urls: [`${receiverUrl}/rolling-all`],
      balancerIds: [rolling.id],
    });
    const stuckOnly = await createAlertSink(env.store, {
      name: 'rolling-stuck-only',
      urls: [`${receiverUrl}/rolling-stuck`],
      eventTypes: ['rollout.stuck'],
      balancerIds: [rolling.id],
    });
    await runOneCycle(env.store, rolling.id, { now: () => opened + 1_000 });
    t += 1_000;
    await deliverDue(env.store, deps);
    expect(hitsAt('/rolling-')).toEqual([]);
    expect(await readSinkAlerts(env.store, all.id)).toEqual([]);

    await runOneCycle(env.store, rolling.id, { now: () => opened + 61_000 });
    t += 1_000;
    await deliverDue(env.store, deps);
    const names = (prefix: string) =>
      (hitsAt(prefix).at(-1)?.alerts ?? []).map((x) => x.labels.alertname).sort();
    expect(names('/rolling-all/')).toEqual(['ErawatchNonUniform', 'ErawatchRolloutStuck']);
    expect(names('/rolling-stuck/')).toEqual(['ErawatchRolloutStuck']);
    expect((await readSinkAlerts(env.store, stuckOnly.id)).map((x) => x.labels.severity)).toEqual([
      'critical',
    ]);
  }, 60_000);

  it('records a failing Alertmanager and an unset credential in the delivery log, and retries like a webhook', async () => {
    const failing = await createAlertSink(env.store, {
      name: 'failing-am',
      urls: [`${receiverUrl}/fail`],
      auth: { type: 'basic', username: 'erawatch', password: 'literal-pass' },
      balancerIds: [],
    });
    const unset = await createAlertSink(env.store, {
      name: 'unset-credential',
      urls: [`${receiverUrl}/never`],
      auth: { type: 'bearer', token: 'env:ERAWATCH_TEST_NOT_SET' },
    });
    t += 1_000;
    const at = t;
    await deliverDue(env.store, deps);
    const [push] = (await listDeliveries(env.store, failing.id, { limit: 5, kind: 'alertmanager' })).items;
    expect(push).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastHttpStatus: 503,
      nextAttemptAt: at + 5_000,
    });
    expect(push?.log?.[0]).toMatchObject({ outcome: 'http_5xx', httpStatus: 503 });
    expect(push?.lastError).toContain(`${receiverUrl}/fail: receiver answered HTTP 503`);
    expect(hitsAt('/fail/').at(-1)?.authorization).toBe(
      `Basic ${Buffer.from('erawatch:literal-pass').toString('base64')}`,
    );

    const [none] = (await listDeliveries(env.store, unset.id, { limit: 5, kind: 'alertmanager' })).items;
    expect(none?.log?.[0]).toMatchObject({
      outcome: 'config_error',
      error: 'environment variable ERAWATCH_TEST_NOT_SET is not set',
    });
    expect(hitsAt('/never/')).toEqual([]);

    // The retry goes after the webhook schedule's first delay and sends the alerts as they are then.
    const sent = hitsAt('/fail/').length;
    t = at + 4_000;
    await deliverDue(env.store, deps);
    expect(hitsAt('/fail/')).toHaveLength(sent);
    t = at + 5_000;
    await deliverDue(env.store, deps);
    expect(hitsAt('/fail/')).toHaveLength(sent + 1);
    const again = (await listDeliveries(env.store, failing.id, { limit: 5, kind: 'alertmanager' })).items;
    expect(again).toHaveLength(1);
    expect(again[0]?.attempts).toBe(2);
  }, 30_000);
});
