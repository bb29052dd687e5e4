// The PostgreSQL store on a real throwaway cluster: migrations at open, concurrent opens, transactions that
// roll back and nest, values that come back with the SQLite store's JS types, and one-line refusals.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { eq, is, sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { postgresOf, StoreOpenError, type Store } from '@/db';
import { claimPeriodicJob } from '@/db/queries/claims';
import { openPostgres, postgresMigrationsFolder, postgresSettings } from '@/db/engines/postgres';
import * as pgSchema from '@/db/schema-pg';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { createDatabase, describePostgres, sharedCluster, stopSharedCluster } from '../../support/postgres';
import { freePort, pollUntil } from '../../support/wait';
import { parseSettings, SettingsError } from '@/lib/settings';

const tableNames = (Object.values(pgSchema) as unknown[])
  .filter((v): v is PgTable => is(v, PgTable))
  .map((t) => getTableConfig(t).name)
  .sort();

async function openRefusal(url: string): Promise<StoreOpenError> {
  const err = await openPostgres(url).then(
    (store) => {
      void store.close();
      return null;
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StoreOpenError);
  return err as StoreOpenError;
}

const balancerRow = (id: string, name: string) => ({
  id,
  name,
  publicUrl: 'http://127.0.0.1:9/mcp',
  nodeUrls: ['http://127.0.0.1:9/a'],
  resolveDns: false,
  samplesPerCycle: 3,
  intervalMs: 30_000,
  timeoutMs: 5_000,
  legacyProbeTimeoutMs: 5_000,
  allowLegacy: true,
  auditLegacy: false,
  legacyVersions: ['2025-06-18'],
  headers: { 'x-team': 'ops' },
  attributionHeader: null,
  auth: null,
  createdAt: 1_796_001_212_742,
  updatedAt: 1_796_001_212_743,
});

describePostgres('the PostgreSQL store', () => {
  let url: string;
  let store: Store;

  beforeAll(async () => {
    url = await createDatabase('postgres-store');
    store = await openPostgres(url);
  });
  afterAll(async () => {
    await store?.close();
    await stopSharedCluster();
  });

  it('applies the migrations at open: every table exists and each migration is recorded once', async () => {
    const admin = postgres(url, { max: 1, onnotice: () => {} });
    try {
      const tables = await admin<{ name: string }[]>`
        SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`;
      expect(tables.map((r) => r.name)).toEqual(tableNames);
      const applied = await admin`SELECT hash FROM drizzle.__drizzle_migrations`;
      expect(applied.length).toBeGreaterThan(0);
      expect(new Set(applied.map((r) => r.hash as string)).size).toBe(applied.length);
    } finally {
      await admin.end();
    }
    expect(store.engine).toBe('postgres');
    expect(store.location).not.toContain((await sharedCluster()).password);
    expect(store.location).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/t_postgres_store_/);
  });

  it('opens twice at once on a fresh database: both migrate under the lock and neither fails', async () => {
    const fresh = await createDatabase('concurrent-open');
    const stores = await Promise.all([openPostgres(fresh), openPostgres(fresh), openPostgres(fresh)]);
    try {
      const counts = await postgresOf(stores[1]).sql`SELECT count(*) AS n FROM drizzle.__drizzle_migrations`;
      const journal = JSON.parse(
        fs.readFileSync(path.join(postgresMigrationsFolder(), 'meta', '_journal.json'), 'utf8'),
      ) as { entries: unknown[] };
      expect(counts[0]?.n).toBe(journal.entries.length);
      const tables = await postgresOf(stores[2])
        .db()
        .execute(sql`SELECT count(*) AS n FROM pg_tables WHERE schemaname = 'public'`);
      expect(tables[0]?.n).toBe(tableNames.length);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it('gives back the SQLite store JS types: numbers for bigint, booleans, parsed JSON and Buffers', async () => {
    const { balancers, storeHeartbeats } = store.t;
    await store.write(async (tx) => {
      await tx.insert(balancers).values(balancerRow('b-types', 'types'));
      await tx
        .insert(storeHeartbeats)
        .values({ holder: 'types', at: 1_796_001_212_742, pad: Buffer.from([0, 1, 255]) });
    });
    const rows = await store.read((db) => db.select().from(balancers).where(eq(balancers.id, 'b-types')));
    expect(rows[0]).toMatchObject({
      createdAt: 1_796_001_212_742,
      resolveDns: false,
      allowLegacy: true,
      catalog: true,
      catalogEvery: 5,
      nodeUrls: ['http://127.0.0.1:9/a'],
      headers: { 'x-team': 'ops' },
      auth: null,
    });
    const beats = await store.read((db) =>
      db.select().from(storeHeartbeats).where(eq(storeHeartbeats.holder, 'types')),
    );
    expect(Buffer.isBuffer(beats[0]?.pad)).toBe(true);
    expect([...(beats[0]?.pad ?? [])]).toEqual([0, 1, 255]);
    expect(typeof beats[0]?.id).toBe('number');
    // Aggregates over bigint come back as numbers too, as SQLite gives them.
    const agg = await postgresOf(store)
      .sql`SELECT count(*) AS n, sum(created_at) AS s FROM balancers WHERE id = 'b-types'`;
    expect(agg[0]).toEqual({ n: 1, s: 1_796_001_212_742 });
  });

  it('rolls a write transaction back when it throws, nested writes included', async () => {
    const { balancers } = store.t;
    const boom = new Error('boom');
    let seenInside = 0;
    await expect(
      store.write(async (tx) => {
        await tx.insert(balancers).values(balancerRow('b-outer', 'outer'));
        await store.write(async (inner) => {
          await inner.insert(balancers).values(balancerRow('b-inner', 'inner'));
        });
        // A read inside the transaction joins it and sees its uncommitted rows.
        const inside = await store.read((db) => db.select({ id: balancers.id }).from(balancers));
        seenInside = inside.filter((r) => r.id === 'b-outer' || r.id === 'b-inner').length;
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(seenInside).toBe(2);
    const after = await store.read((db) => db.select({ id: balancers.id }).from(balancers));
    expect(after.map((r) => r.id)).not.toContain('b-outer');
    expect(after.map((r) => r.id)).not.toContain('b-inner');
  });

  it('commits a write transaction that returns, and hands back its value', async () => {
    const { balancers } = store.t;
    const id = await store.write(async (tx) => {
      const rows = await tx
        .insert(balancers)
        .values(balancerRow('b-kept', 'kept'))
        .returning({ id: balancers.id });
      return rows[0]?.id;
    });
    expect(id).toBe('b-kept');
    const rows = await store.read((db) => db.select().from(balancers).where(eq(balancers.id, 'b-kept')));
    expect(rows).toHaveLength(1);
  });

  it('sets application_name and statement_timeout on its sessions, from the defaults and the environment', async () => {
    const own = await postgresOf(store)
      .sql`SELECT current_setting('application_name') AS app, current_setting('statement_timeout') AS st`;
    expect(own[0]).toEqual({ app: 'erawatch-web', st: '30s' });
    const tuned = await openPostgres(url, {
      settings: parseSettings({ ERAWATCH_PG_STATEMENT_TIMEOUT_MS: '1500', ERAWATCH_PG_POOL: '2' }),
      role: 'worker',
    });
    try {
      const rows = await postgresOf(tuned)
        .sql`SELECT current_setting('application_name') AS app, current_setting('statement_timeout') AS st`;
      expect(rows[0]).toEqual({ app: 'erawatch-worker', st: '1500ms' });
      // A statement past the timeout is cancelled by the server.
      await expect(postgresOf(tuned).sql`SELECT pg_sleep(5)`).rejects.toThrow(/statement timeout/);
    } finally {
      await tuned.close();
    }
    const named = new URL(url);
    named.searchParams.set('application_name', 'custom');
    expect(postgresSettings(named.toString()).applicationName).toBe('custom');
  });

  it('a claim taken while another process is claiming it is not taken twice', async () => {
    const other = await openPostgres(url);
    try {
      // `first` claims inside a transaction it holds open until `second` is blocked on the same row.
      const race = async (claim: (s: Store, who: string) => Promise<boolean>) => {
        let release = () => {};
        const gate = new Promise<void>((resolve) => (release = resolve));
        let claimed = false;
        const first = store.write(async () => {
          const won = await claim(store, 'first');
          claimed = true;
          await gate;
          return won;
        });
        await pollUntil('the first claim', 30_000, () => claimed);
        const second = claim(other, 'second');
        await pollUntil('the second claim to wait on the first', 30_000, async () => {
          const waiting = await postgresOf(store).sql`
            SELECT count(*) AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'`;
          return waiting[0]?.n === 1;
        });
        release();
        return Promise.all([first, second]);
      };
      expect(await race((s, who) => claimPeriodicJob(s, 'bal_race', who, 10_000, 1_000))).toEqual([
        true,
        false,
      ]);
    } finally {
      await other.close();
    }
  });

  it('erawatch db-migrate applies the migrations to a PostgreSQL URL and prints it without the password', async () => {
    const cluster = await sharedCluster();
    const fresh = new URL(await createDatabase('db-migrate'));
    const withPassword = cluster.url(fresh.pathname.slice(1));
    const repoRoot = path.resolve(import.meta.dirname, '../../..');
    const run = spawnSync(
      process.execPath,
      [path.join(repoRoot, 'bin/erawatch.mjs'), 'db-migrate', '--db', withPassword],
      {
        cwd: repoRoot,
        encoding: 'utf8',
        timeout: 120_000,
        env: { ...process.env, PGPASSWORD: '' },
      },
    );
    const journal = JSON.parse(
      fs.readFileSync(path.join(postgresMigrationsFolder(), 'meta', '_journal.json'), 'utf8'),
    ) as {
      entries: unknown[];
    };
    const shown = `postgres://postgres@127.0.0.1:${cluster.port}${fresh.pathname}`;
    const all = journal.entries.length;
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(
      `database ${shown}: ${all} migration(s) applied now, ${all} in all, schema up to date\n`,
    );
    expect(run.status).toBe(0);
    // Again: nothing left to apply.
    const again = spawnSync(
      process.execPath,
      [path.join(repoRoot, 'bin/erawatch.mjs'), 'db-migrate', '--db', withPassword],
      { cwd: repoRoot, encoding: 'utf8', timeout: 120_000, env: { ...process.env, PGPASSWORD: '' } },
    );
    expect(again.stdout).toBe(
      `database ${shown}: 0 migration(s) applied now, ${all} in all, schema up to date\n`,
    );
    expect(again.status).toBe(0);
  });

  it.each([
    ['a wrong password', 'password', /password authentication failed for user "postgres" \(28P01\)/],
    ['a database that does not exist', 'database', /database "nope_not_here" does not exist \(3D000\)/],
    ['a closed port', 'port', /connection refused by 127\.0\.0\.1:\d+ \(ECONNREFUSED\)/],
    ['an unknown sslmode', 'sslmode', /sslmode must be one of disable, allow, prefer, require/],
    [
      'a server without TLS under sslmode=require',
      'tls',
      /closed the connection during the TLS handshake \(ECONNRESET\): does it accept TLS\? \(sslmode=require\)/,
    ],
  ])('refuses %s in one line naming the host, without the password', async (_what, kind, expected) => {
    const cluster = await sharedCluster();
    const good = new URL(url);
    const bad = new URL(url);
    if (kind === 'password') bad.password = 'not-the-password-123';
    if (kind === 'database') bad.pathname = '/nope_not_here';
    if (kind === 'port') bad.port = String(await freePort());
    if (kind === 'sslmode') bad.searchParams.set('sslmode', 'sometimes');
    if (kind === 'tls') bad.searchParams.set('sslmode', 'require');
    const err = await openRefusal(bad.toString());
    expect(err.message).toMatch(expected);
    expect(err.message).toContain(`postgres://postgres@127.0.0.1:${bad.port}/`);
    expect(err.message).not.toContain('\n');
    expect(err.message).not.toContain(cluster.password);
    expect(err.message).not.toContain('not-the-password-123');
    expect(good.port).toBe(String(cluster.port));
  });

  it('a bad pool size or statement timeout is a bad setting, refused by name before anything connects', () => {
    for (const [env, line] of <Array<[Record<string, string>, string]>>[
      [{ ERAWATCH_PG_POOL: '0' }, "ERAWATCH_PG_POOL must be an integer from 1 to 1000, got '0'"],
      [{ ERAWATCH_PG_POOL: 'ten' }, "ERAWATCH_PG_POOL must be an integer from 1 to 1000, got 'ten'"],
      [
        { ERAWATCH_PG_STATEMENT_TIMEOUT_MS: '-1' },
        "ERAWATCH_PG_STATEMENT_TIMEOUT_MS must be an integer from 0 to 2147483647, got '-1'",
      ],
    ]) {
      expect(() => parseSettings(env)).toThrow(new SettingsError([line]));
    }
  });
});
