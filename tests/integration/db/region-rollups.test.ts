// Rollups per node and region on both engines: a store created at the migration before regions, with a
// balancer, a node and an hour of rollups, keeps them as region `default` once the store opens and migrates;
// a region's cycle then adds its own rows beside them, readers merge or split them, and pruning takes both.
// A real SQLite file in a temp dir and a real throwaway PostgreSQL 15 database.
import { processSettings } from '@/lib/settings';
import { analysisDigest } from '@/lib/rollout/digest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { drizzle as drizzleSqlite } from 'drizzle-orm/better-sqlite3';
import { migrate as migrateSqlite } from 'drizzle-orm/better-sqlite3/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/postgres-js';
import { migrate as migratePg } from 'drizzle-orm/postgres-js/migrator';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '@/db';
import { migrationsFolder } from '@/db/engines/sqlite';
import { postgresMigrationsFolder } from '@/db/engines/postgres';
import { getBalancer } from '@/db/queries/balancers';
import { getRollups } from '@/db/queries/nodes';
import { listRegionIds } from '@/db/queries/regions';
import { pruneOldData, writeProbes } from '@/db/queries/subjects';
import { hourOf, HOUR_MS, rollupKey } from '@/db/rollup-key';
import { modernVerdict } from '../../unit/rollout/verdict-factory';
import { analyzeCycle } from '@/lib/rollout';
import { createDatabase, describePostgres, stopSharedCluster } from '../../support/postgres';

/** The last migrations of each engine before regions had ids and balancers a regions list. */
const BEFORE_REGIONS = { sqlite: '0016_redundant_mimic', postgres: '0004_freezing_leader' };

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-region-rollups-'));

afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await stopSharedCluster();
});

/** A copy of one engine's committed migrations up to and including the one tagged `lastTag`. */
function migrationsUpTo(src: string, name: string, lastTag: string): string {
  const out = path.join(dir, name);
  fs.cpSync(src, out, { recursive: true });
  const journalPath = path.join(out, 'meta', '_journal.json');
  const journal = JSON.parse(fs.readFileSync(journalPath, 'utf8')) as { entries: Array<{ tag: string }> };
  const last = journal.entries.findIndex((e) => e.tag === lastTag);
  expect(last).toBeGreaterThanOrEqual(0);
  journal.entries = journal.entries.slice(0, last + 1);
  fs.writeFileSync(journalPath, JSON.stringify(journal));
  return out;
}

const T0 = Date.UTC(2026, 10, 30, 10, 0);
const OLD_HOUR = hourOf(T0) - 2;

/** The rows a store from before regions holds: one balancer, one node (seq 1), one hour of its rollups. */
function oldRows(bool: (b: boolean) => string): string {
  return `
    INSERT INTO balancers (id, name, public_url, node_urls, headers, resolve_dns, interval_ms, timeout_ms,
      legacy_probe_timeout_ms, samples_per_cycle, allow_legacy, audit_legacy, legacy_versions, created_at, updated_at)
      VALUES ('bal_1', 'old', 'http://127.0.0.1:9/mcp', '["http://127.0.0.1:9/mcp"]', '{}', ${bool(false)}, 30000,
        5000, 2000, 0, ${bool(false)}, ${bool(false)}, '[]', ${T0}, ${T0});
    INSERT INTO nodes (id, balancer_id, key, seq, origin, url, address, served_by, created_at, last_seen_at)
      VALUES ('nod_1', 'bal_1', 'listed:http://127.0.0.1:9/mcp', 1, 'listed', 'http://127.0.0.1:9/mcp', NULL, NULL,
        ${T0}, ${T0});
    INSERT INTO node_rollups (key, probes, failures, latency)
      VALUES (${rollupKey(OLD_HOUR, 1)}, 120, 3, '2:120');`;
}

/** One cycle of the migrated node from `region`, as the poller writes it. */
async function probeFrom(store: Store, region: string, at: number): Promise<void> {
  const v = modernVerdict({ url: 'http://127.0.0.1:9/mcp', probedAt: at });
  const analysis = analyzeCycle({
    balancerId: 'bal_1',
    at,
    nodes: [{ nodeId: 'nod_1', verdict: v, recentChanges: [] }],
    samples: [],
    window: null,
    gateRevisions: ['2026-07-28'],
  });
  await writeProbes(store, {
    kind: 'node',
    region,
    balancerId: 'bal_1',
    at,
    newNodes: [],
    results: [{ nodeId: 'nod_1', seq: 1, verdict: v, fingerprintKey: 'fp-1', prior: null }],
    analysis,
    analysisDigest: analysisDigest(analysis),
    events: [],
  });
}

/** What both engines must show after the migration: the old rows in region default, then a region beside them. */
async function checkMigrated(store: Store): Promise<void> {
  expect(await listRegionIds(store)).toEqual([{ id: 0, name: 'default' }]);
  expect((await getBalancer(store, 'bal_1')).regions).toBeNull();
  const since = OLD_HOUR * HOUR_MS;
  const old = { hourStart: OLD_HOUR * HOUR_MS, probes: 120, failures: 3 };
  expect(await getRollups(store, { nodeId: 'nod_1', since }, T0)).toMatchObject([old]);
  expect(await getRollups(store, { nodeId: 'nod_1', since, region: 'default' }, T0)).toMatchObject([old]);

  await probeFrom(store, 'eu-west', T0);
  await probeFrom(store, 'eu-west', T0 + 30_000);
  await probeFrom(store, 'default', T0 + 1_000);
  expect(await listRegionIds(store)).toEqual([
    { id: 0, name: 'default' },
    { id: 1, name: 'eu-west' },
  ]);
  const now = { hourStart: hourOf(T0) * HOUR_MS };
  expect(await getRollups(store, { nodeId: 'nod_1', since, region: 'eu-west' }, T0)).toMatchObject([
    { ...now, probes: 2, failures: 0 },
  ]);
  expect(await getRollups(store, { nodeId: 'nod_1', since, region: 'default' }, T0)).toMatchObject([
    old,
    { ...now, probes: 1 },
  ]);
  // Unfiltered, a balancer's rollups merge every region's rows of an hour.
  expect(await getRollups(store, { balancerId: 'bal_1', since }, T0)).toMatchObject([
    old,
    { ...now, probes: 3 },
  ]);

  // Retention reaches every region's range: the old hour goes, the current hour of both regions stays.
  const pruned = await pruneOldData(store, hourOf(T0) * HOUR_MS);
  expect(pruned.rollups).toBe(1);
  expect(await getRollups(store, { balancerId: 'bal_1', since }, T0)).toMatchObject([{ ...now, probes: 3 }]);
  expect(await getRollups(store, { nodeId: 'nod_1', since, region: 'eu-west' }, T0)).toMatchObject([
    { ...now, probes: 2 },
  ]);
}

describe('rollups per node and region (SQLite)', () => {
  it('keeps the rollups stored before regions as region default, beside a new region', async () => {
    const file = path.join(dir, 'old.db');
    const old = new Database(file);
    old.pragma('foreign_keys = ON');
    migrateSqlite(drizzleSqlite(old), {
      migrationsFolder: migrationsUpTo(migrationsFolder(), 'migrations', BEFORE_REGIONS.sqlite),
    });
    old.exec(oldRows((b) => (b ? '1' : '0')));
    old.close();

    const store = await openStore(file, { settings: processSettings() });
    try {
      await checkMigrated(store);
    } finally {
      await store.close();
    }
  });
});

describePostgres('rollups per node and region (PostgreSQL)', () => {
  it('keeps the rollups stored before regions as region default, beside a new region', async () => {
    const url = await createDatabase('region-rollups');
    const client = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await migratePg(drizzlePg(client), {
        migrationsFolder: migrationsUpTo(
          postgresMigrationsFolder(),
          'migrations-pg',
          BEFORE_REGIONS.postgres,
        ),
      });
      await client.unsafe(oldRows((b) => String(b)));
    } finally {
      await client.end({ timeout: 5 });
    }
    const store = await openStore(url, { settings: processSettings() });
    try {
      await checkMigrated(store);
    } finally {
      await store.close();
    }
  });
});
