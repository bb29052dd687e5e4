// A worker whose lease lapsed during a PostgreSQL outage must not go on probing once the store is back while
// another worker's claim of its unit is under way. Worker A reaches the database through a door the test cuts
// mid-cycle; once A's lease has ended by the store's clock, the unit's row is locked as a claim by worker B
// locks it (FOR UPDATE, in a transaction of the test's own), and the door is restored. A's next renewals pass by
// the locked row (SKIP LOCKED): they extend nothing, so A must not count them as renewals of that unit's lease.
// Before, it did, and probed on beside B (a node probed twice, 30 and 527 ms apart, after an outage).
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Store } from '@/db';
import { openPostgres } from '@/db/engines/postgres';
import { createBalancer } from '@/lib/balancers';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { createDefaultProbe } from '@/lib/poller/default-probe';
import { startPollerWith, type PollerHandle } from '@/lib/poller/poll-role';
import type { ProbeFn } from '@/lib/poller/types';
import { createDatabase, describePostgres, stopSharedCluster } from '../../support/postgres';
import { testSettings } from '../../support/settings';
import { startTcpRelay, type TcpRelay } from '../../support/tcp-relay';
import { waitFor } from '../poller/support';

describePostgres('a worker whose lease lapsed during an outage', () => {
  let url = '';
  let door: TcpRelay | null = null;
  let storeA: Store | null = null;
  let direct: postgres.Sql | null = null;
  let peer: RunningPeer | null = null;
  const pollers: PollerHandle[] = [];
  /** The claim "worker B" has under way: its transaction holds the unit's row until `done`. */
  let claim: { done: () => void; finished: Promise<unknown> } | null = null;

  beforeAll(async () => {
    url = await createDatabase('renewal-after-outage');
    door = await startTcpRelay({ host: new URL(url).hostname, port: Number(new URL(url).port) });
    const viaDoor = new URL(url);
    viaDoor.port = String(door.port);
    // The test's own connection, the schema made through it first.
    await (await openPostgres(url)).close();
    direct = postgres(url, { max: 2, onnotice: () => {} });
    storeA = await openPostgres(viaDoor.toString(), { migrate: false });
    peer = await startPeer('v2-modern', { name: 'outage-node', version: '1.0.0' });
  });

  afterAll(async () => {
    claim?.done();
    await claim?.finished.catch(() => undefined);
    await Promise.all(pollers.map((p) => p.stop()));
    await storeA?.close();
    await direct?.end({ timeout: 5 });
    await door?.close();
    await peer?.stop();
    await stopSharedCluster();
  });

  it('stops starting probes once its lease may have lapsed, though renewals that pass by the locked row succeed', async () => {
    if (!storeA || !door || !peer || !direct) throw new Error('set-up failed');
    const sql = direct;
    const cutDoor = door;
    const nodes = [1, 2, 3, 4].map((n) => `${peer?.url ?? ''}?node=${n}`);
    const settings = testSettings({ ERAWATCH_POLL_LEASE_TTL_MS: '1000', ERAWATCH_POLLER_CONCURRENCY: '1' });
    const real = createDefaultProbe(settings);
    const probedByA: string[] = [];
    const lockRow = async (unitId: string) => {
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => (locked = r));
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      const finished = sql.begin(async (tx) => {
        await tx`SELECT token FROM poll_units WHERE unit_id = ${unitId} FOR UPDATE`;
        locked();
        await released;
        // B's claim completes: a new holder and token.
        await tx`UPDATE poll_units SET holder = 'poller-b', pid = 1, token = token + 1,
                 expires_at = CAST(floor(extract(epoch from clock_timestamp()) * 1000) AS bigint) + 60000
                 WHERE unit_id = ${unitId}`;
      });
      await isLocked;
      claim = { done: release, finished };
    };
    const heartbeat = async () =>
      Number((await sql`SELECT expires_at FROM poll_workers WHERE holder = 'poller-a'`)[0]?.expires_at ?? 0);
    let unitId = '';
    const probeA: ProbeFn = async (target, options) => {
      probedByA.push(target.url);
      const verdict = await real(target, options);
      if (probedByA.length === 1) {
        // Mid-cycle, A loses the store until its lease has ended by the store's clock.
        cutDoor.cut();
        await waitFor('A’s lease to end by the store’s clock', 60_000, async () => {
          const [row] = await sql`SELECT expires_at,
              CAST(floor(extract(epoch from clock_timestamp()) * 1000) AS bigint) AS now
              FROM poll_units WHERE unit_id = ${unitId}`;
          return row !== undefined && Number(row.expires_at) < Number(row.now);
        });
        // B's claim is under way when the store comes back, and A's renewals go through again.
        await lockRow(unitId);
        const before = await heartbeat();
        cutDoor.restore();
        await waitFor('two renewals of A after the outage', 60_000, async () => {
          const first = await heartbeat();
          if (first <= before) return false;
          return await waitFor('another', 30_000, async () => (await heartbeat()) > first);
        });
      }
      return verdict;
    };
    const logA: string[] = [];
    const pollerA = startPollerWith({
      store: storeA,
      settings,
      holderId: 'poller-a',
      probe: probeA,
      refreshMs: 200,
      leaseRenewMs: 200,
      log: (line) => logA.push(line),
    });
    pollers.push(pollerA);
    await waitFor('A to poll', 60_000, () => pollerA.status().state === 'polling');
    const { id } = await createBalancer(storeA, {
      name: 'outage',
      publicUrl: nodes[0] ?? '',
      nodeUrls: nodes,
      samplesPerCycle: 0,
      catalog: false,
      intervalMs: 3_600_000,
    });
    unitId = id;
    await waitFor('B’s claim under way', 120_000, () => claim);
    const underWay = claim as unknown as { done: () => void; finished: Promise<unknown> };
    // While B's claim still holds the row, A's cycle stops before its next probe (or, before, probed on).
    await waitFor('A’s cycle to stop, or to probe again', 60_000, () =>
      probedByA.length > 1 ? true : logA.find((l) => l.includes('may have lapsed')),
    );
    expect(probedByA).toEqual([nodes[0]]);
    underWay.done();
    await underWay.finished;
    await waitFor('A’s cycle to end', 60_000, () => pollerA.status().cyclesRunning === 0);
    expect(probedByA).toEqual([nodes[0]]);
    const [row] = await sql`SELECT holder FROM poll_units WHERE unit_id = ${unitId}`;
    expect(row?.holder).toBe('poller-b');
  }, 240_000);
});
