// One balancer cycle crosses the store's door twice: one read before probing (the balancer, its nodes and
// their prior state, the previous snapshot, recent changes, the open window, the live workers) and one write
// transaction. On PostgreSQL the write is multi-row: a cycle of four nodes sends as many statements as a
// cycle of one. A quiet cycle leaves the verdict rows alone and updates only the narrow ticks rows. Counted
// through the store's observer, with real SDK peers and a real store on each engine.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '@/db';
import { readBalancerAnalysis } from '@/db/queries/balancers';
import { createBalancer } from '@/lib/balancers';
import { readPreviousSnapshot } from '@/db/queries/subjects';
import { getNode, listNodes } from '@/db/queries/nodes';
import { runCycle, type CycleDeps } from '@/lib/poller/balancer-cycle';
import { closeDefaultProbe, createDefaultProbe, resolveAllAddresses } from '@/lib/poller/default-probe';
import { createLimiter } from '@/lib/poller/limiter';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { parseSettings } from '@/lib/settings';
import { openReader, storeLocation, TEST_ENGINE } from '../../support/store';
import { waitFor } from './support';
import { hourOf } from '@/db/rollup-key';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-cycle-statements-'));
const counts = { reads: 0, writes: 0, statements: [] as string[], raw: [] as string[] };
/**
 * The statements in one sent: a PostgreSQL cycle sends its rows as one statement of data-modifying CTEs
 * (`WITH w0 AS (…), w1 AS (…) SELECT 1`); each part is counted as the statement it would be on its own.
 */
function partsOf(q: string): string[] {
  if (!/^\s*WITH w0 AS \(/.test(q)) return [q];
  return q
    .split(/(?:^\s*WITH|,)\s*w\d+ AS \(/)
    .slice(1)
    .map((p) => p.trim());
}
const observer = {
  read: () => void (counts.reads += 1),
  write: () => void (counts.writes += 1),
  statement: (q: string) => {
    counts.raw.push(q);
    counts.statements.push(...partsOf(q));
  },
};
const settings = parseSettings({ ERAWATCH_ALLOW_LOOPBACK: '1' });
let location = '';
let store: Store;
let peer: RunningPeer;

beforeAll(async () => {
  location = await storeLocation(dir, 'erawatch.db');
  store = await openStore(location, { observer, settings });
  peer = await startPeer('v2-modern');
});

afterAll(async () => {
  await store?.close();
  await peer?.stop();
  await closeDefaultProbe();
  fs.rmSync(dir, { recursive: true, force: true });
});

function deps(): CycleDeps {
  return {
    probe: createDefaultProbe(settings),
    resolve: resolveAllAddresses,
    now: Date.now,
    variables: {},
    limiter: createLimiter(8),
    region: 'default',
  };
}

/** One cycle's door crossings: reads, write transactions and the statements sent. */
async function countedCycle(balancerId: string) {
  counts.reads = 0;
  counts.writes = 0;
  counts.statements = [];
  counts.raw = [];
  await runCycle(store, balancerId, deps());
  return {
    reads: counts.reads,
    writes: counts.writes,
    statements: counts.raw.length,
    sent: counts.statements,
    raw: counts.raw,
  };
}

/** One read before probing and one write transaction, on either engine. */
const READS_AND_WRITES = [1, 1, 1, 1];

const wide = { intervalMs: 60_000, timeoutMs: 15_000, legacyProbeTimeoutMs: 15_000 };

describe(`one cycle, one read and one write (${TEST_ENGINE})`, () => {
  it('reads before probing, writes one transaction, and sends one statement per kind of row for four nodes', async () => {
    const one = await createBalancer(store, {
      name: 'one-node',
      publicUrl: peer.url,
      nodeUrls: [`${peer.url}?n=1`],
      ...wide,
    });
    const four = await createBalancer(store, {
      name: 'four-nodes',
      publicUrl: peer.url,
      nodeUrls: [1, 2, 3, 4].map((n) => `${peer.url}?n=${n}`),
      ...wide,
    });
    // First cycles create the nodes and their first verdicts.
    const firstOne = await countedCycle(one.id);
    const firstFour = await countedCycle(four.id);
    expect([firstOne.reads, firstOne.writes, firstFour.reads, firstFour.writes]).toEqual(READS_AND_WRITES);
    const nodes = await listNodes(store, four.id);
    expect(nodes.map((n) => n.state?.clientEra)).toEqual(['modern', 'modern', 'modern', 'modern']);

    // Quiet cycles: same answers.
    const hourBefore = hourOf(Date.now());
    const quietOne = await countedCycle(one.id);
    const quietFour = await countedCycle(four.id);
    const sameHour = hourOf(Date.now()) === hourBefore;
    expect([quietOne.reads, quietOne.writes, quietFour.reads, quietFour.writes]).toEqual(READS_AND_WRITES);
    if (TEST_ENGINE === 'postgres') {
      // Multi-row statements: one statement per kind of row, whatever the number of nodes.
      const writesTo = (table: string) =>
        quietFour.sent.filter((q) => new RegExp(`^\\s*(INSERT INTO|UPDATE) ${table}\\b`, 'i').test(q)).length;
      expect([
        writesTo('subject_ticks'),
        writesTo('node_minute_rollups'),
        writesTo('balancer_states'),
      ]).toEqual([1, 1, 1]);
      // The hourly row is written only by a node's first probe in a later hour (folded from its minutes).
      if (sameHour) expect(writesTo('node_rollups')).toBe(0);
      // The quiet cycle's rows go in one statement: ticks, minute slots and the balancer's time together.
      const rowWrites = quietFour.raw.filter((q) => /subject_ticks/.test(q) && !/^\s*select/i.test(q));
      expect(rowWrites).toHaveLength(1);
      expect(rowWrites[0]).toMatch(/node_minute_rollups[\s\S]*balancer_states/);
      expect(writesTo('subject_states')).toBeLessThanOrEqual(1);
      expect(quietFour.statements).toBeLessThanOrEqual(quietOne.statements + 1);
    }
    const node = await getNode(store, nodes[0]?.id ?? '');
    expect(node.state?.probes).toBe(2);
  });

  it('a quiet cycle rewrites no verdict row, only the narrow ticks rows', async () => {
    const b = await createBalancer(store, {
      name: 'quiet',
      publicUrl: peer.url,
      nodeUrls: [1, 2, 3].map((n) => `${peer.url}?q=${n}`),
      // No tool listing on its cadence: every cycle gives the same answer.
      catalog: false,
      ...wide,
    });
    await countedCycle(b.id);
    await countedCycle(b.id);
    const verdictWrites = () =>
      counts.statements.filter((q) => /INSERT INTO "?subject_states"?|UPDATE "?subject_states"?/i.test(q));
    const tickWrites = () =>
      counts.statements.filter((q) => /subject_ticks/i.test(q) && !/SELECT/i.test(q.slice(0, 12)));
    counts.statements = [];
    const third = await runCycle(store, b.id, deps());
    expect(verdictWrites()).toEqual([]);
    expect(tickWrites().length).toBeGreaterThan(0);
    const probes = (await listNodes(store, b.id)).map((n) => n.state?.probes);
    expect(probes).toEqual([3, 3, 3]);
    // The balancer's analysis said the same: its JSON is not sent again, only its time and cycle count, and a
    // reader still sees this cycle's time and count.
    const analysisWrites = counts.statements.filter((q) =>
      /^\s*(insert into|update) "?balancer_(region_)?states"?/i.test(q),
    );
    expect(analysisWrites.length).toBe(2);
    expect(analysisWrites.filter((q) => /snapshot/i.test(q))).toEqual([]);
    expect((await readBalancerAnalysis(store, b.id))?.analyzedAt).toBe(third.at);
    expect((await readPreviousSnapshot(store, b.id, 'default'))?.cycle).toBe(3);
  });

  it('listing the same catalog again, or carrying it between listings, rewrites no verdict row', async () => {
    // Every second cycle lists tools/list; the peer's catalog never changes.
    const b = await createBalancer(store, {
      name: 'catalog-cadence',
      publicUrl: peer.url,
      nodeUrls: [1, 2].map((n) => `${peer.url}?c=${n}`),
      catalog: true,
      catalogEvery: 2,
      ...wide,
    });
    await countedCycle(b.id);
    const verdictWrites: number[] = [];
    for (let i = 0; i < 4; i++) {
      const cycle = await countedCycle(b.id);
      verdictWrites.push(
        cycle.sent.filter((q) => /INSERT INTO "?subject_states"?|UPDATE "?subject_states"?/i.test(q)).length,
      );
    }
    // Two of the four cycles listed (the cadence), two carried the listing; neither kind rewrote a verdict.
    const nodes = await listNodes(store, b.id);
    expect(nodes.every((n) => (n.state?.verdict?.catalog?.names.length ?? 0) > 0)).toBe(true);
    expect(verdictWrites).toEqual([0, 0, 0, 0]);
    expect(nodes.map((n) => n.state?.probes)).toEqual([5, 5]);
  });

  it.runIf(TEST_ENGINE === 'postgres')(
    'PostgreSQL: the tables rewritten in place have their fillfactor, and ticks updates are HOT',
    async () => {
      const reader = await openReader(location);
      try {
        const options = await reader.all<{ name: string; options: string[] | null }>(
          `SELECT relname AS name, reloptions AS options FROM pg_class
           WHERE relkind = 'r' AND relnamespace = to_regnamespace(current_schema())
             AND array_to_string(reloptions, ',') LIKE '%fillfactor=%' ORDER BY relname`,
        );
        const { TABLES } = await import('@/db/tables/declaration');
        const declared = Object.values(TABLES)
          .flatMap((t) => ('pgFillfactor' in t && t.pgFillfactor ? [[t.name, t.pgFillfactor] as const] : []))
          .sort((a, b) => (a[0] < b[0] ? -1 : 1));
        expect(options.map((o) => [o.name, Number((o.options ?? [])[0]?.split('=')[1])])).toEqual(declared);
        // A backend reports its counters to the statistics when it goes idle: wait for them to arrive.
        const hot = await waitFor('the ticks updates in pg_stat_user_tables', 60_000, async () => {
          await reader.all('SELECT pg_stat_clear_snapshot()');
          const [row] = await reader.all<{ upd: number; hot: number }>(
            `SELECT n_tup_upd::int AS upd, n_tup_hot_upd::int AS hot FROM pg_stat_user_tables
             WHERE relname = 'subject_ticks'`,
          );
          return row && row.upd > 0 ? row : null;
        });
        expect(hot.upd).toBeGreaterThan(0);
        expect(hot.hot).toBe(hot.upd);
      } finally {
        await reader.close();
      }
    },
  );
});
