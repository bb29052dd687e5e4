// The poll role takes every setting from the Settings it is handed, never from this process's environment:
// its region (where its verdicts are stored and its presence is named) and the egress policy and source of its
// default probe. The environment here says another region and no loopback; the settings say eu-west and
// loopback, and a real SDK server on loopback answers.
import { afterAll, expect, it } from 'vitest';
import { createBalancer } from '@/lib/balancers';
import { listNodes } from '@/db/queries/nodes';
import { listPollWorkers, listUnits } from '@/db/queries/units';
import { startPollerWith, type PollerHandle } from '@/lib/poller/poll-role';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { testSettings } from '../../support/settings';
import { tempStore, waitFor } from './support';

process.env.ERAWATCH_REGION = 'us-east';
delete process.env.ERAWATCH_ALLOW_LOOPBACK;

const db = await tempStore('poller-settings');
let peer: RunningPeer | null = null;
let poller: PollerHandle | null = null;

afterAll(async () => {
  await poller?.stop();
  await peer?.stop();
  await db.cleanup();
});

it('a poller handed eu-west and loopback probes from eu-west over loopback, whatever the environment says', async () => {
  peer = await startPeer('v2-modern', { name: 'settings-node', version: '1.0.0' });
  poller = startPollerWith({
    store: db.store,
    settings: testSettings({ ERAWATCH_REGION: 'eu-west' }),
    refreshMs: 100,
    log: () => {},
  });
  const running = poller;
  await waitFor('the poller to poll', 60_000, () => running.status().state === 'polling');
  // Registered once the poll role runs, the balancer is due at once.
  const b = await createBalancer(db.store, {
    name: 'settings-passed',
    publicUrl: peer.url,
    nodeUrls: [peer.url],
    samplesPerCycle: 0,
  });
  await waitFor('the balancer’s first cycle', 60_000, async () =>
    (await listUnits(db.store)).some((u) => u.lastCycleAt !== null),
  );
  expect((await listUnits(db.store)).map((u) => u.region)).toEqual(['eu-west']);
  expect((await listPollWorkers(db.store, Date.now())).map((w) => w.region)).toEqual(['eu-west']);
  const [node] = await listNodes(db.store, b.id);
  // The verdict is the eu-west one, and modern: the probe reached loopback because the settings allow it.
  expect(node?.regions?.map((r) => [r.region, r.verdict.verdict])).toEqual([['eu-west', 'modern']]);
});
