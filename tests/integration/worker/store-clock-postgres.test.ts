// Webhook delivery and maintenance on a real PostgreSQL 15 follow the database's clock, not the worker's: a
// worker whose clock runs an hour behind still sends a fresh event at once, one an hour ahead does not send a
// retry before it is due, two such workers send each attempt once, and maintenance runs once per period.
import { processSettings } from '@/lib/settings';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore, type Store } from '@/db';
import { createBalancer } from '@/lib/balancers';
import { insertEvents } from '@/db/queries/events';
import { deleteWebhook, listDeliveries } from '@/db/queries/webhooks';
import { createWebhook } from '@/lib/webhooks/endpoints';
import { createEgressAgent } from '@/lib/net/egress';
import { createSender } from '@/lib/deliver/http';
import type { DeliveryDeps } from '@/lib/deliver/deps';
import { startDeliveryWorker, type DeliveryWorker } from '@/lib/deliver/loop';
import { deliverDue } from '../../support/deliver';
import { startMaintenance, type MaintainJob } from '@/lib/worker/maintain';
import { createDatabase, describePostgres, stopSharedCluster } from '../../support/postgres';
import { pollUntil } from '../../support/wait';
import { testSettings } from '../../support/settings';

const HOUR = 3_600_000;
const behind = () => Date.now() - HOUR;
const ahead = () => Date.now() + HOUR;

interface Hit {
  id: string;
  at: number;
}

describePostgres('delivery and maintenance on the database clock', () => {
  let store: Store;
  let balancerId = '';
  const hits: Hit[] = [];
  const workers: DeliveryWorker[] = [];
  const jobs: MaintainJob[] = [];
  const agent = createEgressAgent({ allowLoopback: true, allowPrivate: false });
  // `/fail-once` answers 500 to the first attempt of each delivery, 204 after; `/ok` always 204.
  const receiver = http.createServer((req, res) => {
    const id = String(req.headers['webhook-id'] ?? '');
    const first = !hits.some((h) => h.id === id);
    hits.push({ id, at: Date.now() });
    req.resume();
    res.writeHead(req.url === '/fail-once' && first ? 500 : 204).end();
  });
  const url = (p: string) => `http://127.0.0.1:${(receiver.address() as AddressInfo).port}${p}`;

  beforeAll(async () => {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    store = await openStore(await createDatabase('store-clock'), { settings: processSettings() });
    balancerId = (await createBalancer(store, { name: 'clock-fleet', publicUrl: 'http://127.0.0.1:9/mcp' }))
      .id;
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await Promise.all(jobs.map((j) => j.stop()));
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await agent.close();
    await store?.close();
    await stopSharedCluster();
  });

  function deps(now: () => number): DeliveryDeps {
    return {
      now,
      storeClock: true,
      random: () => 0.5,
      send: createSender(agent),
      timeoutMs: 5_000,
      disableAfterMs: 5 * 86_400_000,
      batchSize: 50,
      concurrency: 4,
      retentionMs: 30 * 86_400_000,
      publicUrl: 'http://127.0.0.1:3000',
      variables: {},
    };
  }

  function startWorker(now: () => number): DeliveryWorker {
    const worker = startDeliveryWorker(store, deps(now), 50, () => {});
    workers.push(worker);
    return worker;
  }

  async function emitTo(path: string, name: string) {
    const hook = await createWebhook(store, { name, url: url(path), balancerIds: [balancerId] });
    await insertEvents(store, [
      { type: 'node.unavailable', balancerId, data: { reason: 'timeout' }, at: Date.now() },
    ]);
    const [delivery] = (await listDeliveries(store, hook.id, { limit: 5 })).items;
    if (!delivery) throw new Error('no delivery was queued');
    return { hook, delivery };
  }

  const hitsOf = (id: string) => hits.filter((h) => h.id === id);

  it('a worker whose clock runs an hour behind sends a fresh event at once, once', async () => {
    const { hook, delivery } = await emitTo('/ok', 'behind');
    const worker = startWorker(behind);
    await pollUntil('the delivery from the late worker', 30_000, () => hitsOf(delivery.id).length === 1);
    const passes = worker.status().passes;
    await pollUntil('two more passes', 30_000, () => worker.status().passes >= passes + 2);
    expect(hitsOf(delivery.id)).toHaveLength(1);
    const [row] = (await listDeliveries(store, hook.id, { limit: 5 })).items;
    expect(row).toMatchObject({ status: 'succeeded', attempts: 1 });
    await worker.stop();
    await deleteWebhook(store, hook.id);
  });

  it('a worker an hour ahead leaves a retry until it is due; two skewed workers send it once', async () => {
    const { hook, delivery } = await emitTo('/fail-once', 'ahead');
    // The first attempt, by a worker with the right time, fails: the retry is due 5 s later.
    expect((await deliverDue(store, deps(Date.now))).attempted).toBe(1);
    const [failed] = (await listDeliveries(store, hook.id, { limit: 5 })).items;
    expect(failed).toMatchObject({ status: 'pending', attempts: 1 });
    const dueAt = failed?.nextAttemptAt ?? 0;
    expect(dueAt - (failed?.lastAttemptAt ?? 0)).toBe(5_000);
    // By its own clock the retry is an hour overdue; by the database's it is not due yet.
    expect((await deliverDue(store, deps(ahead))).attempted).toBe(0);

    const early = startWorker(ahead);
    const late = startWorker(behind);
    await pollUntil('the retry', 30_000, () => hitsOf(delivery.id).length === 2);
    expect(hitsOf(delivery.id)[1]?.at ?? 0).toBeGreaterThanOrEqual(dueAt);
    const seen = [early.status().passes, late.status().passes];
    await pollUntil(
      'two more passes of each worker',
      30_000,
      () => early.status().passes >= (seen[0] ?? 0) + 2 && late.status().passes >= (seen[1] ?? 0) + 2,
    );
    expect(hitsOf(delivery.id)).toHaveLength(2);
    const [row] = (await listDeliveries(store, hook.id, { limit: 5 })).items;
    expect(row).toMatchObject({ status: 'succeeded', attempts: 2 });
  });

  it('maintenance runs once per period whichever way the workers’ clocks are off', async () => {
    const job = (now: () => number, everyMs: number, on: Store) =>
      startMaintenance({
        store: on,
        settings: testSettings(),
        now,
        everyMs,
        applyConfig: false,
        log: () => {},
      }).then((j) => {
        jobs.push(j);
        return j;
      });
    // An hour-long period taken by a worker two hours behind: one two hours ahead must not run it again.
    const first = await job(() => Date.now() - 2 * HOUR, HOUR, store);
    await pollUntil('the first run', 30_000, () => first.status().runs === 1);
    const second = await job(() => Date.now() + 2 * HOUR, HOUR, store);
    await pollUntil('the second worker’s look', 30_000, () => second.status().checks >= 1);
    expect(second.status().runs).toBe(0);

    // A short period taken by a worker ahead: a worker behind takes the next one when it ends, not hours later.
    const other = await openStore(await createDatabase('store-clock-maintain'), {
      settings: processSettings(),
    });
    try {
      const early = await job(() => Date.now() + 2 * HOUR, 1_000, other);
      await pollUntil('the early worker’s run', 30_000, () => early.status().runs >= 1);
      await early.stop();
      const late = await job(() => Date.now() - 2 * HOUR, 1_000, other);
      await pollUntil('the late worker’s run', 30_000, () => late.status().runs >= 1);
      await late.stop();
    } finally {
      await other.close();
    }
  });
});
