// Poll units in one process: two pollers on one store share the balancers (each unit claimed by one at a
// time), a stopped poller's units go to the other, stale claims are taken once they expire (at once when the
// holder's pid on this host is gone), and a cycle whose unit was taken over writes nothing.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { afterAll, expect, it } from 'vitest';
import { createBalancer } from '@/lib/balancers';
import {
  claimDueUnits,
  heartbeatPollWorker,
  listUnits,
  releaseAllUnits,
  removePollWorker,
  syncUnits,
  unitFenceHolds,
} from '@/db/queries/units';
import { getPollerStatus, type ProbeFn } from '@/lib/poller';
import { CycleFencedError, runCycle } from '@/lib/poller/balancer-cycle';
import { createLimiter } from '@/lib/poller/limiter';
import { createDefaultProbe, resolveAllAddresses } from '@/lib/poller/default-probe';
import { startPollerWith, type PollerHandle } from '@/lib/poller/poll-role';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { onPostgres } from '../../support/store';
import { tempStore, waitFor } from './support';
import { testSettings } from '../../support/settings';

const env = await tempStore('units');
const handles: PollerHandle[] = [];
const peers: RunningPeer[] = [];
const settings = testSettings({ ERAWATCH_POLL_LEASE_TTL_MS: '2000' });
const realProbe = createDefaultProbe(settings);
const opts = { settings, leaseRenewMs: 200, refreshMs: 200, stopGraceMs: 2_000, log: () => {} };

afterAll(async () => {
  await Promise.all(handles.map((h) => h.stop()));
  await Promise.all(peers.map((p) => p.stop()));
  await env.cleanup();
});

/** A probe that counts calls per node URL and notes when two probes of one node overlap. */
function counting(shared: { inFlight: Map<string, number>; overlaps: number }): {
  probe: ProbeFn;
  calls: () => number;
} {
  let n = 0;
  return {
    probe: async (t, o) => {
      n += 1;
      const now = (shared.inFlight.get(t.url) ?? 0) + 1;
      shared.inFlight.set(t.url, now);
      if (now > 1) shared.overlaps += 1;
      try {
        return await realProbe(t, o);
      } finally {
        shared.inFlight.set(t.url, (shared.inFlight.get(t.url) ?? 1) - 1);
      }
    },
    calls: () => n,
  };
}

it('two pollers share the balancers, never probe one node at once, and one takes all when the other stops', async () => {
  const peer = await startPeer('v2-modern');
  peers.push(peer);
  for (let i = 0; i < 6; i++) {
    await createBalancer(env.store, {
      name: `shared-${i}`,
      publicUrl: `${peer.url}?b=${i}`,
      nodeUrls: [`${peer.url}?b=${i}`],
      samplesPerCycle: 0,
      intervalMs: 1_000,
      timeoutMs: 300,
      legacyProbeTimeoutMs: 300,
    });
  }
  const shared = { inFlight: new Map<string, number>(), overlaps: 0 };
  const first = counting(shared);
  const second = counting(shared);
  const a = startPollerWith({ ...opts, store: env.store, probe: first.probe, holderId: 'poller-a' });
  handles.push(a);
  // One store for both: two SQLite connections in one thread would wait on each other's busy handler.
  const b = startPollerWith({ ...opts, store: env.store, probe: second.probe, holderId: 'poller-b' });
  handles.push(b);

  await waitFor(
    'both pollers to finish cycles',
    20_000,
    () => a.status().cyclesCompleted >= 3 && b.status().cyclesCompleted >= 3,
  );
  expect(shared.overlaps).toBe(0);
  const readiness = await getPollerStatus(env.store);
  expect(readiness.workers.map((w) => w.holder).sort()).toEqual(['poller-a', 'poller-b']);
  expect(readiness.regions).toEqual(['default']);
  expect(readiness.lastCycleAt).not.toBeNull();

  await a.stop();
  expect(a.status().state).toBe('stopped');
  expect((await getPollerStatus(env.store)).workers.map((w) => w.holder)).toEqual(['poller-b']);
  const stoppedAt = Date.now();
  await waitFor('the remaining poller to run every balancer', 20_000, async () => {
    const units = await listUnits(env.store);
    return (
      units.length === 6 &&
      units.every((u) => u.holder === 'poller-b' && u.lastCycleAt !== null && u.lastCycleAt >= stoppedAt)
    );
  });
  expect(shared.overlaps).toBe(0);
  await b.stop();
  expect((await listUnits(env.store)).filter((u) => u.expiresAt > 0)).toEqual([]);
});

const ghost = (holder: string, pid: number, hostname: string) => ({
  holder,
  pid,
  hostname,
  region: 'default',
});

// The claims here follow the test's clock; PostgreSQL's follow its own (tests/integration/db/units-postgres.test.ts).
it.skipIf(onPostgres)(
  'a claim whose holder disappeared is taken once it expires; a dead pid on this host at once',
  async () => {
    const t = Date.now();
    await syncUnits(env.store, 'default', [
      { kind: 'stdio', unitId: 'far', dueAt: t },
      { kind: 'stdio', unitId: 'near', dueAt: t },
    ]);
    const elsewhere = ghost('elsewhere', 999_999, 'another-host');
    const far = await claimDueUnits(env.store, elsewhere, { limit: 1, ttlMs: 800, now: t });
    const exited = spawnSync(process.execPath, ['-e', '0']);
    expect(exited.status).toBe(0);
    const dead = ghost('dead-here', exited.pid ?? 0, os.hostname());
    const near = await claimDueUnits(env.store, dead, { limit: 1, ttlMs: 600_000, now: t });
    expect([...far.units, ...near.units].map((u) => u.unitId).sort()).toEqual(['far', 'near']);

    const me = ghost('me', process.pid, os.hostname());
    // Before expiry nothing is free; naming the dead holder frees its unit at once, the other still waits.
    expect((await claimDueUnits(env.store, me, { limit: 5, ttlMs: 2_000, now: t + 1 })).units).toEqual([]);
    const taken = await claimDueUnits(env.store, me, {
      limit: 5,
      ttlMs: 2_000,
      now: t + 1,
      goneHolders: ['dead-here'],
    });
    expect(taken.units.map((u) => u.unitId)).toEqual(near.units.map((u) => u.unitId));
    expect(taken.units[0]?.token).toBe((near.units[0]?.token ?? 0) + 1);
    const later = await claimDueUnits(env.store, me, { limit: 5, ttlMs: 2_000, now: t + 801 });
    expect(later.units.map((u) => u.unitId)).toEqual(far.units.map((u) => u.unitId));
    await releaseAllUnits(env.store, 'me');
    await syncUnits(env.store, 'default', []);
  },
);

it('a cycle whose unit was taken over while it ran writes nothing and says so', async () => {
  const peer = await startPeer('v2-modern');
  peers.push(peer);
  const balancer = await createBalancer(env.store, {
    name: 'fenced',
    publicUrl: peer.url,
    nodeUrls: [peer.url],
    samplesPerCycle: 0,
    intervalMs: 60_000,
    timeoutMs: 1_000,
    legacyProbeTimeoutMs: 300,
  });
  const t = Date.now();
  await syncUnits(env.store, 'default', [{ kind: 'balancer', unitId: balancer.id, dueAt: t }]);
  const paused = ghost('paused', process.pid, os.hostname());
  const [mine] = (await claimDueUnits(env.store, paused, { limit: 1, ttlMs: 1_000, now: t })).units;
  if (!mine) throw new Error('no unit claimed');
  const fence = () => env.store.write((tx) => unitFenceHolds(env.store, tx, mine, 'default', 'paused'));
  expect(await fence()).toBe(true);
  // Another worker takes the unit over after the lease ran out; the first one's cycle then finishes.
  const other = ghost('other', process.pid, os.hostname());
  const theirs = await waitFor(
    'the first lease to run out',
    30_000,
    async () =>
      (await claimDueUnits(env.store, other, { limit: 1, ttlMs: 10_000, now: Date.now() })).units[0],
  );
  expect(theirs?.token).toBe(mine.token + 1);
  const before = await env.store.read((db) => db.select().from(env.store.t.balancerStates));
  await expect(
    runCycle(env.store, balancer.id, {
      probe: realProbe,
      resolve: resolveAllAddresses,
      now: Date.now,
      variables: {},
      region: 'default',
      limiter: createLimiter(4),
      fence,
    }),
  ).rejects.toBeInstanceOf(CycleFencedError);
  const { nodes, events } = env.store.t;
  const after = await env.store.read((db) => db.select().from(env.store.t.balancerStates));
  expect(after.filter((r) => r.balancerId === balancer.id)).toEqual([]);
  expect(after.length).toBe(before.length);
  const stored = await env.store.read(async (db) => ({
    nodes: (await db.select().from(nodes)).filter((n) => n.balancerId === balancer.id),
    events: (await db.select().from(events)).filter((e) => e.balancerId === balancer.id),
  }));
  expect(stored).toEqual({ nodes: [], events: [] });
});

it('readiness leaves out a poll worker on this host whose process is gone, before its presence lapses', async () => {
  const exited = spawnSync(process.execPath, ['-e', '0']);
  expect(exited.status).toBe(0);
  const deadPid = exited.pid ?? 0;
  const now = Date.now();
  await heartbeatPollWorker(env.store, ghost('gone-here', deadPid, os.hostname()), 600_000, now, 0, now);
  // On another host the pid means nothing here: that worker stays listed until its presence lapses.
  await heartbeatPollWorker(env.store, ghost('far-away', deadPid, 'another-host'), 600_000, now, 0, now);
  try {
    const holders = (await getPollerStatus(env.store)).workers.map((w) => w.holder);
    expect(holders).toContain('far-away');
    expect(holders).not.toContain('gone-here');
  } finally {
    await removePollWorker(env.store, 'gone-here');
    await removePollWorker(env.store, 'far-away');
  }
});
