// The web side (route handlers in this process, running no roles) beside `erawatch worker` as its own
// process, sharing one SQLite file: probe series reach /metrics here, probe-now here never probes a node
// while the worker's cycle does (counted at the node), and events are delivered with no web process at all.
import { processSettings } from '@/lib/settings';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { startCountingProxy, type CountingProxy } from '../../support/counting-proxy';
import { startReceiver, type Receiver } from '../webhooks/receiver';
import { waitFor } from '../poller/support';

const root = path.resolve(import.meta.dirname, '../../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-worker-'));
process.env.ERAWATCH_DB = path.join(dir, 'shared.db');
process.env.ERAWATCH_ADMIN_SECRET = 'worker-admin-secret-0123456789abcdef';
process.env.ERAWATCH_BIND = '127.0.0.1';
process.env.ERAWATCH_ALLOW_LOOPBACK = '1';
process.env.ERAWATCH_RATE_LIMIT = '0';
const ADMIN = process.env.ERAWATCH_ADMIN_SECRET;

type Handler = (req: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response>;
let peer: RunningPeer | null = null;
let proxy: CountingProxy | null = null;
let receiver: Receiver | null = null;
let worker: { child: ChildProcess; output: () => string; exited: Promise<number | null> } | null = null;
let balancerId = '';

function request(url: string, init: { method?: string } = {}) {
  return new Request(`http://127.0.0.1:3999${url}`, {
    method: init.method ?? 'GET',
    headers: { host: '127.0.0.1:3999', authorization: `Bearer ${ADMIN}` },
  });
}

async function handler(modulePath: Promise<unknown>, method: string): Promise<Handler> {
  const h = ((await modulePath) as Record<string, Handler | undefined>)[method];
  if (!h) throw new Error(`no ${method}`);
  return h;
}

function startWorkerProcess() {
  const child = spawn(process.execPath, [path.join(root, 'bin/erawatch.mjs'), 'worker'], {
    cwd: root,
    env: { ...process.env, ERAWATCH_CONFIG: path.join(dir, 'absent.yaml') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

beforeAll(async () => {
  peer = await startPeer('v2-modern', { name: 'worker-node', version: '1.0.0' });
  // Each request to the node waits 300 ms at the proxy: an overlapping probe would be in flight beside it.
  proxy = await startCountingProxy(peer.url, 300);
  receiver = await startReceiver();
  const { getStore } = await import('@/db/index');
  const { createBalancer } = await import('@/lib/balancers');
  const { createWebhook } = await import('@/lib/webhooks/endpoints');
  const store = await getStore({ settings: processSettings() });
  balancerId = (
    await createBalancer(store, {
      name: 'worker-fleet',
      publicUrl: proxy.url,
      nodeUrls: [proxy.url],
      samplesPerCycle: 0,
      intervalMs: 5_000,
      timeoutMs: 1_500,
      legacyProbeTimeoutMs: 500,
    })
  ).id;
  await createWebhook(store, {
    name: 'worker-hook',
    url: receiver.url('/ok'),
    eventTypes: ['node.unavailable'],
  });
  worker = startWorkerProcess();
}, 60_000);

afterAll(async () => {
  const pid = worker?.child.pid;
  if (pid && worker?.child.exitCode === null && worker.child.signalCode === null)
    process.kill(pid, 'SIGKILL');
  await proxy?.close();
  await peer?.stop();
  await receiver?.close();
  const { closeDefaultProbe } = await import('@/lib/poller/default-probe');
  await closeDefaultProbe();
  const { getStore } = await import('@/db/index');
  await (await getStore({ settings: processSettings() })).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('a web process beside erawatch worker', () => {
  it('/metrics on the web side shows the probe series the worker wrote', async () => {
    const { getStore } = await import('@/db/index');
    const { listSeries } = await import('@/db/queries/metric-series');
    await waitFor('the worker to flush probe series', 30_000, async () =>
      (
        await listSeries(await getStore({ settings: processSettings() }), [
          'erawatch_probe_duration_seconds_count',
        ])
      ).find((s) => s.value >= 1),
    );
    const metrics = await handler(import('@/app/(ops)/metrics/route'), 'GET');
    const text = await (await metrics(request('/metrics'))).text();
    const count = Number(/^erawatch_probe_duration_seconds_count\{era="modern"\} (\d+)/m.exec(text)?.[1]);
    expect(count).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^erawatch_probe_duration_seconds_bucket\{era="modern",le="\+Inf"\} \d+/m);
    expect(text).toMatch(/^# TYPE erawatch_cycles_failed_total counter/m);
    expect(text).not.toContain(proxy?.url ?? 'never');
  });

  it('probe-now and the worker’s scheduled cycles never probe the node at once', async () => {
    const probe = await handler(import('@/app/api/v1/balancers/[id]/probe/route'), 'POST');
    for (let round = 0; round < 3; round++) {
      // Fire while the worker's probe is at the node: without the claim the two would overlap here.
      await waitFor('a scheduled probe in flight at the node', 30_000, () => proxy?.inFlight() === 1);
      const res = await probe(request(`/api/v1/balancers/${balancerId}/probe`, { method: 'POST' }), {
        params: Promise.resolve({ id: balancerId }),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { probes: number }).probes).toBe(1);
    }
    expect(proxy?.maxInFlight()).toBe(1);
  });

  it('delivers events with no web process running, and SIGTERM stops every role', async () => {
    const before = receiver?.received.length ?? 0;
    await peer?.stop();
    peer = null;
    await waitFor('node.unavailable at the receiver', 30_000, () =>
      receiver?.received.slice(before).find((r) => JSON.parse(r.body).type === 'node.unavailable'),
    );
    const w = worker;
    if (!w?.child.pid) throw new Error('no worker');
    process.kill(w.child.pid, 'SIGTERM');
    expect(await w.exited).toBe(0);
    expect(w.output()).toMatch(
      /\[worker\] SIGTERM: finishing the running cycles and handing back the poll units; stopping poll, deliver, maintain/,
    );
    expect(w.output()).toMatch(/\[worker\] stopped/);
    const { getStore } = await import('@/db/index');
    const { listPollWorkers, listUnits } = await import('@/db/queries/units');
    const store = await getStore({ settings: processSettings() });
    expect(await listPollWorkers(store, Date.now())).toEqual([]);
    expect((await listUnits(store)).filter((u) => u.expiresAt > 0)).toEqual([]);
  });
});
