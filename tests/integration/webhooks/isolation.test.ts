// Delivery isolation and the single-attempt test send, against the real long-running outbox worker and real
// loopback receivers. Assertions wait for events (a request at the receiver, a worker pass), never for time.
import { processSettings } from '@/lib/settings';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '@/db/index';
import { createBalancer } from '@/lib/balancers';
import { insertEvents } from '@/db/queries/events';
import { listDeliveries, updateWebhook } from '@/db/queries/webhooks';
import { createWebhook } from '@/lib/webhooks/endpoints';
import { createEgressAgent } from '@/lib/net/egress';
import { createSender } from '@/lib/deliver/http';
import { sendTestDelivery } from '@/lib/webhooks/test-send';
import type { DeliveryDeps } from '@/lib/deliver/deps';
import { startDeliveryWorker, type DeliveryWorker } from '@/lib/deliver/loop';
import { startReceiver, type Receiver } from './receiver';
import { storeLocation } from '../../support/store';

let dir = '';
let store: Store;
let receiver: Receiver;
let balancerId = '';
const workers: DeliveryWorker[] = [];
const agent = createEgressAgent({ allowLoopback: true, allowPrivate: false });

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-isolation-'));
  store = await openStore(await storeLocation(dir, 'isolation.db'), { settings: processSettings() });
  receiver = await startReceiver();
  balancerId = (await createBalancer(store, { name: 'isolated-fleet', publicUrl: 'http://127.0.0.1:9/mcp' }))
    .id;
});

afterAll(async () => {
  for (const res of receiver.hanging) res.destroy();
  await Promise.all(workers.map((w) => w.stop()));
  await receiver.close();
  await agent.close();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function deps(overrides: Partial<DeliveryDeps> = {}): DeliveryDeps {
  return {
    now: Date.now,
    random: () => 0.5,
    send: createSender(agent),
    // Long enough that the hanging attempt is still in flight for the whole test.
    timeoutMs: 120_000,
    disableAfterMs: 5 * 86_400_000,
    batchSize: 50,
    concurrency: 4,
    retentionMs: 30 * 86_400_000,
    publicUrl: 'http://127.0.0.1:3000',
    variables: {},
    ...overrides,
  };
}

let seq = 0;
async function endpoint(urlPath: string) {
  return await createWebhook(store, {
    name: `isolated-${++seq}`,
    url: receiver.url(urlPath),
    eventTypes: ['node.unavailable'],
    balancerIds: [balancerId],
  });
}

/** Emits one event; every interested endpoint gets a delivery due now (the outbox write). */
async function emit(): Promise<void> {
  await insertEvents(store, [
    { type: 'node.unavailable', balancerId, data: { reason: 'timeout' }, at: Date.now() },
  ]);
}

async function until(what: string, check: () => boolean | Promise<boolean>, limit = 2_000): Promise<void> {
  for (let i = 0; i < limit; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`gave up waiting for ${what}`);
}

const at = (p: string) => receiver.received.filter((r) => r.path === p).length;

describe('delivery isolation', () => {
  it('an endpoint whose receiver hangs does not hold up another endpoint: the next pass delivers it', async () => {
    const hang = await endpoint('/hang');
    const ok = await endpoint('/ok');
    // Polls rarely: every pass in this test is one we asked for, so "the next pass" is exact.
    const worker = startDeliveryWorker(store, deps(), 3_600_000, () => {});
    workers.push(worker);
    await until('the first pass', () => worker.status().passes >= 1);

    const idleStart = performance.now();
    await emit();
    worker.wake();
    await until('both receivers to see the first event', () => at('/hang') === 1 && at('/ok') === 1);
    const idleMs = performance.now() - idleStart;
    expect(receiver.hanging).toHaveLength(1);
    await until('the healthy lane to finish', () => worker.status().endpointsInFlight === 1);

    // The /hang attempt is still open. A second event: /ok is claimed and sent by the next pass; /hang, with
    // its lane still busy, is left for later rather than stacked behind the open attempt.
    const busyStart = performance.now();
    await emit();
    worker.wake();
    await until('the healthy receiver to see the second event', () => at('/ok') === 2);
    const busyMs = performance.now() - busyStart;
    expect(at('/hang')).toBe(1);
    expect(receiver.hanging).toHaveLength(1);
    const okStatuses = async () =>
      (await listDeliveries(store, ok.id, { limit: 10 })).items.map((d) => d.status);
    await until('both healthy attempts recorded', async () =>
      (await okStatuses()).every((s) => s === 'succeeded'),
    );
    expect(await okStatuses()).toEqual(['succeeded', 'succeeded']);
    const hangLog = (await listDeliveries(store, hang.id, { limit: 10 })).items;
    expect(hangLog.map((d) => d.attempts)).toEqual([0, 0]);
    await updateWebhook(store, hang.id, { enabled: false });
    for (const res of receiver.hanging.splice(0)) res.destroy();
    await worker.stop();
    process.stdout.write(
      `healthy endpoint delivery: ${idleMs.toFixed(0)} ms idle, ${busyMs.toFixed(0)} ms beside a hanging one\n`,
    );
  });
});

describe('test send', () => {
  it('is exactly one attempt, even with the outbox worker running beside it', async () => {
    const failing = await endpoint('/fail');
    // A frozen clock: the retry the failed attempt schedules never comes due, so any second attempt would be
    // the worker claiming the row the test send is sending.
    const t0 = Date.now();
    const worker = startDeliveryWorker(store, deps({ now: () => t0 }), 5, () => {});
    workers.push(worker);
    const result = await sendTestDelivery(store, failing.id, deps({ now: () => t0 }));
    expect(result).toMatchObject({ outcome: 'http_5xx', httpStatus: 500 });
    const passes = worker.status().passes;
    await until('three more worker passes', () => worker.status().passes >= passes + 3);
    const sent = receiver.received.filter((r) => r.path === '/fail');
    expect(sent).toHaveLength(1);
    expect(sent[0]?.headers['webhook-id']).toBe(result.deliveryId);
    const [delivery] = (await listDeliveries(store, failing.id, { limit: 10 })).items;
    expect(delivery).toMatchObject({ id: result.deliveryId, status: 'pending', attempts: 1 });
    expect(delivery?.log).toHaveLength(1);
    await worker.stop();
  });
});
