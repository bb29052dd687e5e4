// Poll units on a real PostgreSQL 15: concurrent claims from several pools never hand one unit to two
// workers (FOR UPDATE SKIP LOCKED), leases are judged by the database clock, tokens move on every take-over,
// and a fence checked inside a write transaction refuses once the unit was taken over.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { postgresOf, selectRows, type Store } from '@/db';
import { parseSettings } from '@/lib/settings';
import { openPostgres } from '@/db/engines/postgres';
import {
  claimDueUnits,
  heartbeatPollWorker,
  listPollWorkers,
  releaseUnit,
  renewUnits,
  storeNow,
  syncUnits,
  unitFenceHolds,
} from '@/db/queries/units';
import { createDatabase, describePostgres, stopSharedCluster } from '../../support/postgres';

describePostgres('poll units on PostgreSQL', () => {
  const stores: Store[] = [];
  const worker = (n: number) => ({
    holder: `w${n}`,
    pid: 1000 + n,
    hostname: 'elsewhere',
    region: 'eu-west',
  });

  let url = '';

  beforeAll(async () => {
    url = await createDatabase('units');
    // The adapter's own Store type narrows `raw`; the query layer takes the door's.
    for (let i = 0; i < 3; i++) stores.push(await openPostgres(url));
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await stopSharedCluster();
  });
  const first = () => {
    const s = stores[0];
    if (!s) throw new Error('no store');
    return s;
  };

  it('three pools claiming at once get disjoint units, each exactly once', async () => {
    const dbNow = await storeNow(first(), 0);
    // The local clock passed in is far off: the database's decides what is due.
    await syncUnits(
      first(),
      'eu-west',
      Array.from({ length: 300 }, (_, i) => ({
        kind: 'balancer' as const,
        unitId: `b${i}`,
        dueAt: dbNow - 1,
      })),
    );
    const rounds = await Promise.all(
      stores.flatMap((s, i) =>
        [0, 1, 2, 3].map(() => claimDueUnits(s, worker(i), { limit: 40, ttlMs: 60_000, now: 0 })),
      ),
    );
    const ids = rounds.flatMap((r) => r.units.map((u) => u.unitId));
    expect(ids.length).toBe(300);
    expect(new Set(ids).size).toBe(300);
    expect(rounds.every((r) => Math.abs(r.at - dbNow) < 60_000)).toBe(true);
    // All leased: nothing more to claim, whatever the local clock says.
    expect((await claimDueUnits(first(), worker(9), { limit: 10, ttlMs: 1_000, now: 9e15 })).units).toEqual(
      [],
    );
  });

  it('a take-over bumps the token and the old holder’s fence refuses inside its transaction', async () => {
    const s = first();
    const dbNow = await storeNow(s, 0);
    await syncUnits(s, 'us-east', [{ kind: 'stdio', unitId: 's1', dueAt: dbNow - 1 }]);
    const a = { ...worker(1), region: 'us-east' };
    const b = { ...worker(2), region: 'us-east' };
    const [mine] = (await claimDueUnits(s, a, { limit: 1, ttlMs: 1, now: 0 })).units;
    if (!mine) throw new Error('no claim');
    expect(await s.write((tx) => unitFenceHolds(s, tx, mine, 'us-east', a.holder))).toBe(true);
    // A 1 ms lease has run out by the database's clock by now; a dead holder is named outright to be sure.
    const [theirs] = (await claimDueUnits(s, b, { limit: 1, ttlMs: 60_000, now: 0, goneHolders: [a.holder] }))
      .units;
    expect(theirs?.token).toBe(mine.token + 1);
    expect(await s.write((tx) => unitFenceHolds(s, tx, mine, 'us-east', a.holder))).toBe(false);
    expect(
      await releaseUnit(
        s,
        a,
        mine,
        dbNow + 10_000,
        { attempted: true, stored: { at: dbNow, probes: 1 } },
        dbNow,
      ),
    ).toBe(false);
    if (!theirs) throw new Error('no take-over');
    expect(
      await releaseUnit(
        s,
        b,
        theirs,
        dbNow + 10_000,
        { attempted: true, stored: { at: dbNow, probes: 1 } },
        dbNow,
      ),
    ).toBe(true);
  });

  it('a renewal passes by a unit whose cycle write holds its row, and renews the rest meanwhile', async () => {
    const s = first();
    const other = stores[1];
    if (!other) throw new Error('no second pool');
    const dbNow = await storeNow(s, 0);
    await syncUnits(s, 'ap-east', [
      { kind: 'balancer', unitId: 'writing', dueAt: dbNow - 1 },
      { kind: 'balancer', unitId: 'idle', dueAt: dbNow - 1 },
    ]);
    const me = { ...worker(3), region: 'ap-east' };
    const units = (await claimDueUnits(s, me, { limit: 2, ttlMs: 60_000, now: 0 })).units;
    const writing = units.find((u) => u.unitId === 'writing');
    if (!writing || units.length !== 2) throw new Error('no claims');
    let endWrite = () => {};
    const writeHeld = new Promise<void>((r) => (endWrite = r));
    let fenced = () => {};
    const inWrite = new Promise<void>((r) => (fenced = r));
    // The worker's cycle write on another connection: the fence locks its unit's row until it commits.
    const write = other.write(async (tx) => {
      expect(await unitFenceHolds(other, tx, writing, 'ap-east', me.holder)).toBe(true);
      fenced();
      await writeHeld;
    });
    await inWrite;
    const before = await storeNow(s, 0);
    // Waiting on the locked row would leave this pending until the write ends.
    const lost = await Promise.race([
      renewUnits(s, me, units, 120_000, 0),
      write.then(() => 'the renewal waited for the write' as const),
    ]);
    endWrite();
    await write;
    expect(lost).toEqual([]);
    const rows = await s.read(() =>
      selectRows<{ unit_id: string; expires_at: unknown }>(
        s,
        sql`SELECT unit_id, expires_at FROM poll_units WHERE region = 'ap-east' ORDER BY unit_id`,
      ),
    );
    const expiry = new Map(rows.map((r) => [r.unit_id, Number(r.expires_at)]));
    expect(expiry.get('idle')).toBeGreaterThanOrEqual(before + 120_000);
    expect(expiry.get('writing')).toBeLessThan(before + 120_000);
    // Once the write has committed, the next renewal takes it too; a unit taken over is reported lost.
    expect(await renewUnits(s, me, units, 120_000, 0)).toEqual([]);
    const [theirs] = (
      await claimDueUnits(
        s,
        { ...worker(4), region: 'ap-east' },
        {
          limit: 1,
          ttlMs: 60_000,
          now: 0,
          goneHolders: [me.holder],
        },
      )
    ).units;
    expect(theirs).toBeDefined();
    expect((await renewUnits(s, me, units, 120_000, 0)).map((u) => u.unitId)).toEqual([theirs?.unitId]);
  });

  it('a claim and a hand-back are one statement each, with no transaction around it; the session stays durable', async () => {
    const statements: string[] = [];
    // One connection: the setting a statement changed for its own commit would show on the next one.
    const one = await openPostgres(url, {
      settings: parseSettings({ ERAWATCH_PG_POOL: '1' }),
      observer: { statement: (q) => void statements.push(q) },
    });
    try {
      // The test cluster runs without durable commits: the session asks for them, as a production server's do.
      await postgresOf(one).sql`SET synchronous_commit = on`;
      const me = { ...worker(7), region: 'one-statement' };
      const dbNow = await storeNow(one, 0);
      await syncUnits(one, me.region, [{ kind: 'balancer' as const, unitId: 'solo', dueAt: dbNow - 1 }]);
      statements.length = 0;
      const claim = await claimDueUnits(one, me, { limit: 5, ttlMs: 60_000, now: 0 });
      expect(claim.units.map((u) => u.unitId)).toEqual(['solo']);
      const [unit] = claim.units;
      if (!unit) throw new Error('no unit');
      expect(await releaseUnit(one, me, unit, dbNow + 60_000, { attempted: true, stored: null }, 0)).toBe(
        true,
      );
      // An empty claim still answers the store's time, in the same one statement.
      const empty = await claimDueUnits(one, me, { limit: 5, ttlMs: 60_000, now: 0 });
      expect(empty.units).toEqual([]);
      expect(empty.at).toBeGreaterThanOrEqual(dbNow);
      expect(statements).toHaveLength(3);
      expect(statements.filter((q) => /^\s*(begin|commit)\b/i.test(q))).toEqual([]);
      // The hand-back's commit does not wait for the disk; the claims' do.
      expect(statements.map((q) => q.includes("set_config('synchronous_commit', 'off', true)"))).toEqual([
        false,
        true,
        false,
      ]);
      // Off for those statements' own commits only: the cycle's writes on the same connection stay durable.
      const [setting] = await postgresOf(one).sql`SELECT current_setting('synchronous_commit') AS v`;
      expect(setting?.v).toBe('on');
    } finally {
      await one.close();
    }
  });

  it('poll workers are listed by region while their presence lasts', async () => {
    await heartbeatPollWorker(first(), worker(1), 60_000, 0, 3, null);
    await heartbeatPollWorker(first(), { ...worker(2), region: 'ap-south' }, 60_000, 0, 1, 5);
    const workers = await listPollWorkers(first(), 0);
    expect(workers.map((w) => [w.region, w.holder, w.unitsHeld])).toEqual([
      ['ap-south', 'w2', 1],
      ['eu-west', 'w1', 3],
    ]);
  });
});
