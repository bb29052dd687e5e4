// Outbox delivery against real loopback receivers, with an injected clock so a day of retries runs at once.
import { processSettings } from '@/lib/settings';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '@/db/index';
import { createBalancer } from '@/lib/balancers';
import { insertEvents, type EventDraft } from '@/db/queries/events';
import { closeRolloutWindow, openRolloutWindow } from '@/db/queries/rollouts';
import {
  getWebhookRow,
  listDeliveries,
  pruneDeliveries,
  redeliver,
  updateWebhook,
} from '@/db/queries/webhooks';
import { createWebhook, rotateWebhookSecret } from '@/lib/webhooks/endpoints';
import { ValidationError } from '@/lib/errors';
import { createEgressAgent } from '@/lib/net/egress';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from '@/lib/deliver/schedule';
import { createSender } from '@/lib/deliver/http';
import type { DeliveryDeps } from '@/lib/deliver/deps';
import { deliverDue } from '../../support/deliver';
import { startReceiver, type Receiver } from './receiver';
import { storeLocation } from '../../support/store';
import { pollUntil } from '../../support/wait';

let dir = '';
let store: Store;
let receiver: Receiver;
let balancerId = '';
const children: ChildProcess[] = [];
const loopbackAgent = createEgressAgent({ allowLoopback: true, allowPrivate: false });

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-webhooks-'));
  store = await openStore(await storeLocation(dir, 'hooks.db'), { settings: processSettings() });
  receiver = await startReceiver();
  balancerId = (await createBalancer(store, { name: 'hooks-fleet', publicUrl: 'http://127.0.0.1:9/mcp' })).id;
});

afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await receiver.close();
  await loopbackAgent.close();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function clockAt(start: number) {
  let t = start;
  return { now: () => t, set: (v: number) => (t = v), advance: (ms: number) => (t += ms) };
}

function deps(clock: { now: () => number }, overrides: Partial<DeliveryDeps> = {}): DeliveryDeps {
  return {
    now: clock.now,
    random: () => 0.5,
    send: createSender(loopbackAgent),
    timeoutMs: 2_000,
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
async function endpoint(urlPath: string, extra: Record<string, unknown> = {}) {
  return await createWebhook(store, {
    name: `hook-${++seq}`,
    url: receiver.url(urlPath),
    balancerIds: [balancerId],
    ...extra,
  });
}

async function emit(drafts: Array<Partial<EventDraft> & { at: number }>) {
  return await insertEvents(
    store,
    drafts.map((d) => ({
      type: 'node.unavailable' as const,
      balancerId,
      data: { reason: 'timeout' },
      ...d,
    })),
  );
}

async function deliveriesOf(endpointId: string) {
  return (await listDeliveries(store, endpointId, { limit: 100 })).items;
}

/** Runs passes, jumping the clock to each next attempt, until nothing is pending (bounded). */
async function drain(endpointId: string, clock: ReturnType<typeof clockAt>, d: DeliveryDeps, maxPasses = 40) {
  for (let i = 0; i < maxPasses; i++) {
    await deliverDue(store, d);
    const pending = (await deliveriesOf(endpointId)).filter(
      (x) => x.status === 'pending' && x.nextAttemptAt !== null,
    );
    if (pending.length === 0) return;
    clock.set(Math.max(clock.now(), Math.min(...pending.map((x) => x.nextAttemptAt ?? Infinity))));
  }
  throw new Error('deliveries still pending after the pass limit');
}

describe('signing', () => {
  it('signs the envelope so the standardwebhooks package verifies it', async () => {
    const hook = await endpoint('/ok', { eventTypes: ['node.recovered'] });
    const [event] = await emit([{ type: 'node.recovered', at: Date.now(), data: { reason: 'ok' } }]);
    await deliverDue(store, deps({ now: Date.now }));
    const got = receiver.received.filter((r) => r.path === '/ok').at(-1);
    expect(got).toBeDefined();
    const headers = got?.headers as Record<string, string>;
    const payload = new Webhook(hook.secret).verify(got?.body ?? '', headers) as Record<string, unknown>;
    expect(payload).toMatchObject({
      id: event?.id,
      type: 'node.recovered',
      version: 1,
      data: { reason: 'ok', balancerId },
    });
    expect(headers['webhook-id']).toMatch(/^msg_/);
    const [delivery] = await deliveriesOf(hook.id);
    expect(delivery?.status).toBe('succeeded');
    expect(delivery?.id).toBe(headers['webhook-id']);
    expect(() =>
      new Webhook('whsec_' + Buffer.alloc(32, 7).toString('base64')).verify(got?.body ?? '', headers),
    ).toThrow();
  });

  it('signs with both secrets while a rotation overlaps', async () => {
    const hook = await endpoint('/ok', { eventTypes: ['gate.opened'] });
    const rotated = await rotateWebhookSecret(store, hook.id, { overlapMs: 3_600_000 });
    expect(rotated.secretRotating).toBe(true);
    await emit([{ type: 'gate.opened', at: Date.now(), data: {} }]);
    await deliverDue(store, deps({ now: Date.now }));
    const got = receiver.received.filter((r) => r.path === '/ok').at(-1);
    const headers = got?.headers as Record<string, string>;
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    for (const secret of [hook.secret, rotated.secret]) {
      expect(new Webhook(secret).verify(got?.body ?? '', headers)).toMatchObject({ type: 'gate.opened' });
    }
  });

  it('refuses a rotation to the secret it already signs with', async () => {
    const hook = await endpoint('/ok', { eventTypes: ['gate.opened'] });
    await expect(rotateWebhookSecret(store, hook.id, { overlapMs: 0, secret: hook.secret })).rejects.toThrow(
      ValidationError,
    );
  });
});

describe('retries and disabling', () => {
  it('a 500 is retried on the schedule with jitter, then fails after the last attempt', async () => {
    const hook = await endpoint('/fail', { eventTypes: ['node.flapping'] });
    const clock = clockAt(Date.now());
    let r = 0;
    const randoms = [0, 0.999, 0.25, 0.75, 0.5, 0.1, 0.9];
    await emit([{ type: 'node.flapping', at: clock.now() }]);
    await drain(hook.id, clock, deps(clock, { random: () => randoms[r++ % randoms.length] ?? 0.5 }));
    const [d] = await deliveriesOf(hook.id);
    expect(d?.status).toBe('failed');
    expect(d?.attempts).toBe(MAX_ATTEMPTS);
    const log = d?.log ?? [];
    expect(log.map((a) => a.outcome)).toEqual(Array(MAX_ATTEMPTS).fill('http_5xx'));
    expect(log.every((a) => a.httpStatus === 500)).toBe(true);
    for (let i = 1; i < log.length; i++) {
      const gap = (log[i]?.at ?? 0) - (log[i - 1]?.at ?? 0);
      const base = RETRY_DELAYS_MS[i - 1] ?? 0;
      expect(gap).toBeGreaterThanOrEqual(Math.floor(base * 0.8));
      expect(gap).toBeLessThanOrEqual(Math.ceil(base * 1.2));
    }
    // The delays are spread, not identical multiples of the base.
    expect(Math.round(((log[1]?.at ?? 0) - (log[0]?.at ?? 0)) / 1000)).toBe(4);
    expect((await getWebhookRow(store, hook.id)).failingSince).toBe(log[0]?.at);
    expect((await getWebhookRow(store, hook.id)).enabled).toBe(true);
  });

  it('410 Gone disables the endpoint at once, with the reason', async () => {
    const hook = await endpoint('/gone', { eventTypes: ['node.era_changed'] });
    await emit([{ type: 'node.era_changed', at: Date.now() }]);
    await deliverDue(store, deps({ now: Date.now }));
    const row = await getWebhookRow(store, hook.id);
    expect(row.enabled).toBe(false);
    expect(row.disabledReason).toBe('the receiver answered 410 Gone');
    expect((await deliveriesOf(hook.id)).map((d) => [d.status, d.attempts])).toEqual([['failed', 1]]);
    await emit([{ type: 'node.era_changed', at: Date.now() }]);
    expect(await deliveriesOf(hook.id)).toHaveLength(1);
  });

  it('a redirect is a failure and is not followed', async () => {
    const hook = await endpoint('/redirect', { eventTypes: ['gate.closed'] });
    const okBefore = receiver.received.filter((r) => r.path === '/ok').length;
    await emit([{ type: 'gate.closed', at: Date.now() }]);
    await deliverDue(store, deps({ now: Date.now }));
    const [d] = await deliveriesOf(hook.id);
    expect(d?.status).toBe('pending');
    expect(d?.log?.map((a) => [a.outcome, a.httpStatus])).toEqual([['http_3xx', 302]]);
    expect(receiver.received.filter((r) => r.path === '/ok').length).toBe(okBefore);
  });

  it.each([
    ['/reset', 'reset'],
    ['/hang', 'timeout'],
    ['/slow', 'ok'],
  ])('%s is recorded as %s', async (urlPath, outcome) => {
    const hook = await endpoint(urlPath, { eventTypes: ['balancer.converged'] });
    await emit([{ type: 'balancer.converged', at: Date.now() }]);
    await deliverDue(store, deps({ now: Date.now }, { timeoutMs: 1_000 }));
    const [d] = await deliveriesOf(hook.id);
    expect(d?.log?.map((a) => a.outcome)).toEqual([outcome]);
    expect(d?.status).toBe(outcome === 'ok' ? 'succeeded' : 'pending');
    // Keep this endpoint's retries out of later tests' passes.
    await updateWebhook(store, hook.id, { enabled: false });
  });

  it('an endpoint failing for days is disabled with the reason, and nothing is sent while disabled', async () => {
    const hook = await endpoint('/fail', { eventTypes: ['rollout.stuck'] });
    const clock = clockAt(Date.now());
    const d = deps(clock);
    const start = clock.now();
    for (let i = 0; i < 20 && (await getWebhookRow(store, hook.id)).enabled; i++) {
      await emit([{ type: 'rollout.stuck', at: clock.now() }]);
      await deliverDue(store, d);
      clock.advance(12 * 3_600_000);
    }
    const row = await getWebhookRow(store, hook.id);
    expect(row.enabled).toBe(false);
    expect(row.disabledReason).toMatch(
      /^every attempt failed since .* \(last: receiver answered HTTP 500\)$/,
    );
    expect((row.disabledAt ?? 0) - start).toBeGreaterThanOrEqual(5 * 86_400_000);
    // Nothing more is attempted while disabled.
    const attemptsBefore = (await deliveriesOf(hook.id)).reduce((n, x) => n + x.attempts, 0);
    clock.advance(86_400_000);
    await deliverDue(store, d);
    expect((await deliveriesOf(hook.id)).reduce((n, x) => n + x.attempts, 0)).toBe(attemptsBefore);
    await expect(
      async () => await redeliver(store, hook.id, (await deliveriesOf(hook.id))[0]?.id ?? ''),
    ).rejects.toThrow(/disabled/);
  });
});

describe('rollout windows hold alerts', () => {
  it('holds divergence alerts inside an open window, drops them when it closes in time, releases them when it overruns', async () => {
    const hook = await endpoint('/ok', { eventTypes: ['balancer.diverged', 'node.unavailable'] });
    const clock = clockAt(Date.now());
    const w1 = await openRolloutWindow(
      store,
      balancerId,
      { target: { negotiatedVersion: '2026-07-28' }, deadline: clock.now() + 3_600_000 },
      clock.now(),
    );
    await emit([
      { type: 'balancer.diverged', at: clock.now(), data: { severity: 'era-split' } },
      { type: 'node.unavailable', at: clock.now() },
    ]);
    const byType = async () =>
      Object.fromEntries((await deliveriesOf(hook.id)).map((x) => [x.type, x.status]));
    expect(await byType()).toEqual({ 'balancer.diverged': 'held', 'node.unavailable': 'pending' });
    await deliverDue(store, deps(clock));
    expect(await byType()).toEqual({ 'balancer.diverged': 'held', 'node.unavailable': 'succeeded' });
    await closeRolloutWindow(store, w1.id, clock.advance(60_000));
    await deliverDue(store, deps(clock));
    expect(await byType()).toEqual({ 'balancer.diverged': 'suppressed', 'node.unavailable': 'succeeded' });

    const w2 = await openRolloutWindow(
      store,
      balancerId,
      { target: { negotiatedVersion: '2026-07-28' }, deadline: clock.now() + 600_000 },
      clock.now(),
    );
    await emit([{ type: 'balancer.diverged', at: clock.now(), data: { severity: 'drift' } }]);
    await deliverDue(store, deps(clock));
    const held = (await deliveriesOf(hook.id)).filter((x) => x.status === 'held');
    expect(held).toHaveLength(1);
    clock.set(w2.deadline);
    await deliverDue(store, deps(clock));
    expect((await deliveriesOf(hook.id)).find((x) => x.id === held[0]?.id)?.status).toBe('succeeded');
    await closeRolloutWindow(store, w2.id, clock.now());
  });
});

describe('retention', () => {
  it('prunes finished deliveries older than the cut-off and keeps pending ones', async () => {
    const ok = await endpoint('/ok', { eventTypes: ['node.recovered'] });
    const failing = await endpoint('/fail', { eventTypes: ['node.recovered'] });
    const t = Date.now();
    await emit([{ type: 'node.recovered', at: t }]);
    await deliverDue(store, deps({ now: () => t }));
    expect((await deliveriesOf(ok.id)).map((d) => d.status)).toEqual(['succeeded']);
    expect((await deliveriesOf(failing.id)).map((d) => d.status)).toEqual(['pending']);
    await pruneDeliveries(store, t);
    expect((await deliveriesOf(ok.id)).map((d) => d.status)).toEqual(['succeeded']);
    expect(await pruneDeliveries(store, t + 1)).toBeGreaterThanOrEqual(1);
    expect(await deliveriesOf(ok.id)).toEqual([]);
    expect((await deliveriesOf(failing.id)).map((d) => d.status)).toEqual(['pending']);
    await updateWebhook(store, failing.id, { enabled: false });
  });
});

describe('egress guard', () => {
  it('refuses loopback receivers unless loopback is allowed', async () => {
    const hook = await endpoint('/ok', { eventTypes: ['gate.opened'] });
    const strict = createEgressAgent({ allowLoopback: false, allowPrivate: false });
    try {
      const okBefore = receiver.received.length;
      await emit([{ type: 'gate.opened', at: Date.now() }]);
      await deliverDue(store, deps({ now: Date.now }, { send: createSender(strict) }));
      const d = (await deliveriesOf(hook.id)).find((x) => x.log?.length);
      expect(d?.log?.[0]?.outcome).toBe('egress_refused');
      expect(d?.log?.[0]?.error).toContain('loopback');
      expect(receiver.received.length).toBe(okBefore);
    } finally {
      await strict.close();
    }
  });
});

function startChild(args: string[]): Promise<{ child: ChildProcess; lines: string[] }> {
  const script = path.join(import.meta.dirname, 'fixtures', 'crash-child.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: path.resolve(import.meta.dirname, '../../..'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    // A bound on a hung start-up (tsx and the store open), which a loaded machine can take long over.
    const timer = setTimeout(() => reject(new Error(`child did not report: ${lines.join(' ')}`)), 90_000);
    child.stdout?.on('data', (b: Buffer) => {
      lines.push(...b.toString().trim().split('\n'));
      const want = args[2] === 'claim' ? 'sending' : 'committed';
      if (lines.includes(want)) {
        clearTimeout(timer);
        resolve({ child, lines });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`child exited early with ${code}`));
    });
  });
}

async function killHard(child: ChildProcess) {
  child.removeAllListeners('exit');
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await exited;
}

describe('crash between event and delivery', () => {
  it('a process killed after committing an event still gets it delivered after restart', async () => {
    const hook = await endpoint('/ok', { eventTypes: ['node.unavailable'] });
    for (const x of await deliveriesOf(hook.id)) expect(x.status).not.toBe('pending');
    const { child } = await startChild([store.location, balancerId]);
    await killHard(child);
    const mine = async () => await deliveriesOf(hook.id);
    expect((await mine()).map((x) => x.status)).toEqual(['pending']);
    await deliverDue(store, deps({ now: Date.now }));
    expect((await mine()).map((x) => x.status)).toEqual(['succeeded']);
    const id = (await mine())[0]?.id;
    expect(receiver.received.some((r) => r.headers['webhook-id'] === id)).toBe(true);
  });

  it('a process killed in the middle of an attempt: the delivery is retried after its lease', async () => {
    const hook = await endpoint('/hang-once', { eventTypes: ['node.unavailable'] });
    const { child } = await startChild([store.location, balancerId, 'claim']);
    // Killed only once its attempt is at the receiver, so the retry is the second request there.
    await pollUntil('the first attempt at the receiver', 60_000, () =>
      receiver.received.some((r) => r.path === '/hang-once'),
    );
    const inFlight = await deliveriesOf(hook.id);
    expect(inFlight).toHaveLength(1);
    expect(inFlight[0]?.nextAttemptAt ?? 0).toBeGreaterThan(Date.now() + 60_000);
    await killHard(child);
    const clock = clockAt(Date.now());
    await deliverDue(store, deps(clock));
    expect((await deliveriesOf(hook.id))[0]?.status).toBe('pending');
    clock.set((inFlight[0]?.nextAttemptAt ?? 0) + 1);
    await deliverDue(store, deps(clock));
    const [d] = await deliveriesOf(hook.id);
    expect(d?.status).toBe('succeeded');
    const seen = receiver.received.filter((r) => r.headers['webhook-id'] === d?.id);
    expect(seen.length).toBe(2);
  });
});
