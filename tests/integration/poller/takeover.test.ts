// Take-over within the lease: a worker that stops (SIGSTOP, a crash) leaves its units for the others once their
// leases run out, and no later. The claim loop sleeps until the first unit is claimable, counting a unit that
// another worker holds at the end of that worker's lease (before, it looked only every renewal period, a
// third of the TTL, so a take-over after SIGSTOP came up to 5 s past the documented 15 s: 16.6 s was seen).
import { afterAll, expect, it } from 'vitest';
import { claimDueUnits, listUnits, nextClaimableAt, releaseUnit, syncUnits } from '@/db/queries/units';
import { sleepUntilClaimable } from '@/lib/poller/claim-loop';
import { tempStore } from './support';

const db = await tempStore('takeover');
afterAll(() => db.cleanup());

it('a unit held by a stopped worker is claimable at the end of its lease, and the claim loop wakes then', async () => {
  const { store } = db;
  const stopped = { holder: 'stopped', pid: 4242, hostname: 'another-host', region: 'takeover' };
  const t0 = Date.now();
  await syncUnits(store, 'takeover', [
    { kind: 'balancer', unitId: 'held', dueAt: t0 - 1_000 },
    { kind: 'balancer', unitId: 'later', dueAt: t0 + 3_600_000 },
  ]);
  const { units } = await claimDueUnits(store, stopped, { limit: 1, ttlMs: 15_000, now: t0 });
  expect(units.map((u) => u.unitId)).toEqual(['held']);
  const held = (await listUnits(store, 'takeover')).find((u) => u.unitId === 'held');
  if (!held) throw new Error('no unit');
  // To another worker of the region, the held unit is the next one to claim: at its lease's end.
  expect(await nextClaimableAt(store, 'takeover', 'next-worker')).toBe(held.expiresAt);
  // The loop then sleeps until that moment, not a whole renewal period (5 s for a 15 s lease).
  const renewal = { refreshMs: 5_000, leaseRenewMs: 5_000 };
  expect(sleepUntilClaimable(renewal, held.expiresAt - 1_234, held.expiresAt)).toBe(1_234);
  expect(sleepUntilClaimable(renewal, held.expiresAt + 10, held.expiresAt)).toBe(0);
  // To its own holder, its unit is not next: it renews it instead; the later unit is.
  expect(await nextClaimableAt(store, 'takeover', 'stopped')).toBe(t0 + 3_600_000);
  // Handed back, the unit counts at its new due time again.
  const [mine] = units;
  if (!mine) throw new Error('no claim');
  await releaseUnit(store, stopped, mine, t0 + 60_000, { attempted: true, stored: null }, t0);
  expect(await nextClaimableAt(store, 'takeover', 'next-worker')).toBe(t0 + 60_000);
});
