import { afterAll, expect, it } from 'vitest';
import { openStore } from '@/db';
import { createBalancer } from '@/db/queries/balancers';
import { getPollerStatus, type ProbeFn } from '@/lib/poller';
import { createDefaultProbe } from '@/lib/poller/probe';
import { readLease } from '@/lib/poller/lease';
import { startPollerWith, type PollerHandle } from '@/lib/poller/runner';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { tempStore, waitFor } from './support';

const env = await tempStore('lease');
const handles: PollerHandle[] = [];
let peer: RunningPeer | null = null;
const realProbe = createDefaultProbe({ ...process.env, ERAWATCH_ALLOW_LOOPBACK: '1' });

afterAll(async () => {
  await Promise.all(handles.map((h) => h.stop()));
  await peer?.stop();
  await env.cleanup();
});

function counting(): { probe: ProbeFn; calls: () => number } {
  let n = 0;
  return {
    probe: (t, o) => {
      n += 1;
      return realProbe(t, o);
    },
    calls: () => n,
  };
}

it('only the lease holder polls; the second waits, names the holder, and takes over on release', async () => {
  peer = await startPeer('v2-modern');
  await createBalancer(env.store, {
    name: 'leased',
    publicUrl: peer.url,
    nodeUrls: [peer.url],
    samplesPerCycle: 1,
    intervalMs: 1_000,
    timeoutMs: 300,
    legacyProbeTimeoutMs: 300,
  });
  const opts = { leaseTtlMs: 2_000, leaseRenewMs: 200, refreshMs: 200, stopGraceMs: 2_000 };
  const first = counting();
  const second = counting();
  const logs: string[] = [];
  const a = startPollerWith({
    ...opts,
    store: env.store,
    probe: first.probe,
    holderId: 'poller-a',
    log: () => {},
  });
  handles.push(a);
  const storeB = await openStore(env.store.location);
  const b = startPollerWith({
    ...opts,
    store: storeB,
    probe: second.probe,
    holderId: 'poller-b',
    log: (l) => logs.push(l),
  });
  handles.push(b);

  await waitFor('two cycles by the holder', 10_000, () => a.status().cyclesCompleted >= 2);
  expect(a.status()).toMatchObject({ state: 'polling', leaseHeld: true });
  expect(b.status()).toMatchObject({ state: 'waiting', leaseHeld: false, cyclesCompleted: 0 });
  expect(b.status().heldBy?.holder).toBe('poller-a');
  expect(second.calls()).toBe(0);
  expect(first.calls()).toBeGreaterThanOrEqual(4);
  expect(logs.join('\n')).toMatch(
    /another poller holds the lease: poller-a \(pid \d+ on .+\), lease expires in \d+s; waiting/,
  );
  expect((await readLease(env.store))?.holder).toBe('poller-a');
  const readiness = await getPollerStatus(env.store);
  expect(readiness.leaseHeld).toBe(true);
  expect(readiness.lastCycleAt).not.toBeNull();

  await a.stop();
  expect(a.status().state).toBe('stopped');
  await waitFor('the waiting poller to take over', 5_000, () => b.status().state === 'polling');
  await waitFor('a cycle by the new holder', 5_000, () => b.status().cyclesCompleted >= 1);
  expect(second.calls()).toBeGreaterThan(0);
  expect((await readLease(env.store))?.holder).toBe('poller-b');
  await b.stop();
  expect(await readLease(env.store)).toBeNull();
  await storeB.close();
});

it('a holder that disappears without releasing is replaced once its lease expires', async () => {
  const { acquireLease } = await import('@/lib/poller/lease');
  const t = Date.now();
  expect((await acquireLease(env.store, 'ghost', 800, t)).acquired).toBe(true);
  const c = startPollerWith({
    store: env.store,
    probe: realProbe,
    holderId: 'poller-c',
    leaseTtlMs: 2_000,
    leaseRenewMs: 100,
    log: () => {},
  });
  handles.push(c);
  // The first lease check runs as the poller starts; its answer names the holder.
  await waitFor('the first lease check', 5_000, () => c.status().heldBy !== null);
  expect(c.status().state).toBe('waiting');
  expect(c.status().heldBy?.holder).toBe('ghost');
  await waitFor('takeover after expiry', 5_000, () => c.status().state === 'polling');
  expect(Date.now()).toBeGreaterThanOrEqual(t + 800);
  await c.stop();
});

it('a holder on this host whose pid is gone is replaced at once, long before its lease expires', async () => {
  const { spawnSync } = await import('node:child_process');
  const os = await import('node:os');
  const { acquireLease: acquireLeaseRow } = await import('@/db/queries/lease');
  // A pid that existed on this host and has exited: the child ran to completion.
  const gone = spawnSync(process.execPath, ['-e', '0']);
  expect(gone.status).toBe(0);
  const t = Date.now();
  const ghost = { holder: 'ghost-on-this-host', pid: gone.pid ?? 0, hostname: os.hostname() };
  expect((await acquireLeaseRow(env.store, ghost, 600_000, t)).acquired).toBe(true);
  const d = startPollerWith({
    store: env.store,
    probe: realProbe,
    holderId: 'poller-d',
    leaseTtlMs: 2_000,
    leaseRenewMs: 100,
    log: () => {},
  });
  handles.push(d);
  await waitFor('takeover from the dead holder', 5_000, () => d.status().state === 'polling');
  const lease = await readLease(env.store);
  expect(lease?.holder).toBe('poller-d');
  // The ghost's lease ran for ten minutes: taking over inside it means the pid check, not expiry, decided.
  expect(lease?.acquiredAt ?? Infinity).toBeLessThan(t + 600_000);
  await d.stop();
});

it('a holder on another host (or a live pid here) is waited for until its lease expires', async () => {
  const { acquireLease: acquireLeaseRow } = await import('@/db/queries/lease');
  const { holderGoneOnThisHost } = await import('@/lib/poller/lease');
  const t = Date.now();
  const elsewhere = {
    holder: 'elsewhere',
    pid: 999_999,
    hostname: 'another-host',
    acquiredAt: t,
    renewedAt: t,
    expiresAt: t + 1,
    lastCycleAt: null,
  };
  expect(holderGoneOnThisHost(elsewhere)).toBe(false);
  expect(
    holderGoneOnThisHost({ ...elsewhere, hostname: (await import('node:os')).hostname(), pid: process.ppid }),
  ).toBe(false);
  expect(
    (
      await acquireLeaseRow(
        env.store,
        { holder: 'elsewhere', pid: 999_999, hostname: 'another-host' },
        600_000,
        t,
      )
    ).acquired,
  ).toBe(true);
  const attempt = await (
    await import('@/lib/poller/lease')
  ).acquireLease(env.store, 'poller-e', 2_000, t + 1);
  expect(attempt.acquired).toBe(false);
  await (await import('@/db/queries/lease')).releaseLease(env.store, 'elsewhere');
});
