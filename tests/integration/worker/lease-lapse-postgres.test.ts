// A worker cut off from PostgreSQL past its lease (an outage, a pause) must not probe on beside the worker that
// took its unit over. Worker A reaches the database through a front door the test can cut; while A's cycle is
// under way the door is cut until worker B, connected directly, has taken the unit over, then it is restored.
// A's cycle must then stop probing: every node after the one it was on is probed by B alone (before, A probed
// them again right beside B, as a node probed twice 54 ms apart after a PostgreSQL outage showed).
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Store } from '@/db';
import { openPostgres } from '@/db/engines/postgres';
import { createBalancer } from '@/lib/balancers';
import { listUnits } from '@/db/queries/units';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { createDefaultProbe } from '@/lib/poller/default-probe';
import { startPollerWith, type PollerHandle } from '@/lib/poller/poll-role';
import type { ProbeFn } from '@/lib/poller/types';
import { createDatabase, describePostgres, stopSharedCluster } from '../../support/postgres';
import { testSettings } from '../../support/settings';
import { startTcpRelay, type TcpRelay } from '../../support/tcp-relay';
import { waitFor } from '../poller/support';

describePostgres('a worker cut off from the store past its lease', () => {
  let url = '';
  let door: TcpRelay | null = null;
  let storeA: Store | null = null;
  let storeB: Store | null = null;
  let peer: RunningPeer | null = null;
  const pollers: PollerHandle[] = [];

  beforeAll(async () => {
    url = await createDatabase('lease-lapse');
    const direct = new URL(url);
    door = await startTcpRelay({ host: direct.hostname, port: Number(direct.port) });
    const viaDoor = new URL(url);
    viaDoor.port = String(door.port);
    storeB = await openPostgres(url);
    storeA = await openPostgres(viaDoor.toString(), { migrate: false });
    peer = await startPeer('v2-modern', { name: 'lapse-node', version: '1.0.0' });
  });

  afterAll(async () => {
    await Promise.all(pollers.map((p) => p.stop()));
    await storeA?.close();
    await storeB?.close();
    await door?.close();
    await peer?.stop();
    await stopSharedCluster();
  });

  it('stops probing once its lease may have lapsed; the worker that took the unit over probes the rest alone', async () => {
    if (!storeA || !storeB || !door || !peer) throw new Error('set-up failed');
    const a = storeA;
    const b = storeB;
    const cutDoor = door;
    const nodes = [1, 2, 3, 4].map((n) => `${peer?.url ?? ''}?node=${n}`);
    const settings = testSettings({ ERAWATCH_POLL_LEASE_TTL_MS: '1000', ERAWATCH_POLLER_CONCURRENCY: '1' });
    const real = createDefaultProbe(settings);
    const probedBy = { a: [] as string[], b: [] as string[] };
    let tookOver = false;
    const startB = () =>
      pollers.push(
        startPollerWith({
          store: b,
          settings,
          holderId: 'poller-b',
          probe: async (target, options) => {
            probedBy.b.push(target.url);
            return real(target, options);
          },
          refreshMs: 200,
          leaseRenewMs: 200,
          log: () => {},
        }),
      );
    const probeA: ProbeFn = async (target, options) => {
      probedBy.a.push(target.url);
      const verdict = await real(target, options);
      if (!tookOver) {
        // Mid-cycle, A loses the store until B has taken the unit over, then gets it back.
        tookOver = true;
        cutDoor.cut();
        startB();
        await waitFor('B to take the unit over', 60_000, async () =>
          (await listUnits(b)).some((u) => u.holder === 'poller-b'),
        );
        cutDoor.restore();
      }
      return verdict;
    };
    const pollerA = startPollerWith({
      store: a,
      settings,
      holderId: 'poller-a',
      probe: probeA,
      refreshMs: 200,
      leaseRenewMs: 300,
      log: () => {},
    });
    pollers.push(pollerA);
    await waitFor('A to poll', 60_000, () => pollerA.status().state === 'polling');
    // Registered once A polls, the balancer's unit is due at once.
    await createBalancer(b, {
      name: 'lapse',
      publicUrl: nodes[0] ?? '',
      nodeUrls: nodes,
      samplesPerCycle: 0,
      catalog: false,
      intervalMs: 3_600_000,
    });
    await waitFor('B’s cycle to store its results', 120_000, async () =>
      (await listUnits(b)).some(
        (u) => u.holder === 'poller-b' && u.lastCycleAt !== null && u.expiresAt === 0,
      ),
    );
    await waitFor('A’s cycle to end', 60_000, () => pollerA.status().cyclesRunning === 0);
    // A probed the node it was on when it was cut off, and nothing after: B probed every node once.
    expect(probedBy.a).toHaveLength(1);
    expect([...probedBy.b].sort()).toEqual([...nodes].sort());
    expect(pollerA.status().cyclesFenced).toBe(1);
  });
});
