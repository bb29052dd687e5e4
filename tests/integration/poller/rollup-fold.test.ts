// Hourly rollups are folded from the minute ring: a probe writes only its minute slot, and a node's first probe
// in a later hour sums its previous hour's slots into that hour's row. Readers see every hour whole all along:
// the ring's hours (and a node's last probed hour, not folded until it is probed again) from the ring, older
// ones from their rows. Real cycles on a real store, on each engine, with the clock and the probe's answers set.
import { afterAll, describe, expect, it } from 'vitest';
import { createBalancer } from '@/lib/balancers';
import { getRollups, listNodes } from '@/db/queries/nodes';
import { pruneOldData } from '@/db/queries/subjects';
import type { ProbeFn } from '@/lib/poller';
import { runOneCycle } from '@/tests/support/cycle';
import type { Verdict } from '@/lib/probe/types';
import { TEST_ENGINE } from '../../support/store';
import { tempStore } from './support';

const env = await tempStore('rollup-fold');
afterAll(() => env.cleanup());

const HOUR = 3_600_000;
const MINUTE = 60_000;
/** 10:00 UTC: the hours below are 10:00, 11:00 and 18:00 of that day. */
const T10 = Date.UTC(2026, 5, 1, 10);

function verdict(url: string, at: number, durationMs: number, up: boolean): Verdict {
  return {
    url,
    verdict: up ? 'modern' : 'unavailable',
    reason: up ? 'discover_result' : 'connect_refused',
    negotiatedVersion: up ? '2026-07-28' : null,
    supported: up ? ['2026-07-28'] : [],
    servedEras: up ? 'modern-only' : 'unknown',
    serverInfo: up ? { name: 'fake', version: '1' } : null,
    cache: { ttlMs: 0, cacheScope: 'private' },
    initializeSent: false,
    anomaly: null,
    evidence: [],
    probedAt: at,
    durationMs,
    address: null,
    servedBy: null,
  };
}

/** One cycle at `at`, its node answering in `ms` (down when `up` is false). */
async function cycleAt(balancerId: string, at: number, ms: number, up = true): Promise<void> {
  const probe: ProbeFn = async (target) => verdict(target.url, at, ms, up);
  await runOneCycle(env.store, balancerId, { probe, now: () => at });
}

const hourRows = () => env.store.read((db) => db.select().from(env.store.t.nodeRollups));

describe(`hourly rollups folded from the minute ring (${TEST_ENGINE})`, () => {
  it('writes no hourly row while a node stays in its hour, folds the hour when the next one starts, and reads both whole', async () => {
    const b = await createBalancer(env.store, {
      name: 'fold',
      publicUrl: 'http://10.9.0.1/mcp',
      nodeUrls: ['http://10.9.0.2/mcp'],
      intervalMs: 60_000,
      timeoutMs: 300,
      legacyProbeTimeoutMs: 300,
      samplesPerCycle: 0,
    });
    // Three probes in hour 10 (one of them down, one slow), two of them in the same minute.
    await cycleAt(b.id, T10 + 10 * MINUTE, 4);
    await cycleAt(b.id, T10 + 10 * MINUTE + 30_000, 40, false);
    await cycleAt(b.id, T10 + 50 * MINUTE, 4);
    const [node] = await listNodes(env.store, b.id);
    const nodeId = node?.id ?? '';
    expect(await hourRows()).toEqual([]);
    const hour10 = { hourStart: T10, probes: 3, failures: 1 };
    expect(await getRollups(env.store, { nodeId, since: T10 }, T10 + 55 * MINUTE)).toMatchObject([hour10]);

    // The first probe of hour 11 folds hour 10 into its row: the three probes, their failure and latencies.
    await cycleAt(b.id, T10 + HOUR + 5 * MINUTE, 4);
    const rows = await hourRows();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ probes: 3, failures: 1 });
    // Buckets of 4 ms (twice) and 40 ms (once), merged into one sorted histogram.
    expect(rows[0]?.latency).toMatch(/^\d+:2,\d+:1$/);
    const both = await getRollups(env.store, { nodeId, since: T10 }, T10 + HOUR + 10 * MINUTE);
    expect(both).toMatchObject([hour10, { hourStart: T10 + HOUR, probes: 1, failures: 0 }]);
    expect(both[0]?.p95Ms).toBeGreaterThan(both[0]?.p50Ms ?? Infinity);

    // Seven hours without a probe: hour 10 is read from its row, and hour 11 (never folded: no probe came
    // after it) from the ring, though both are older than the ring's six hours.
    const later = T10 + 8 * HOUR;
    expect(await getRollups(env.store, { nodeId, since: T10 }, later)).toMatchObject([
      hour10,
      { hourStart: T10 + HOUR, probes: 1 },
    ]);
    // The next probe folds hour 11 before its own minute can take one of that hour's slots.
    await cycleAt(b.id, later + MINUTE, 4);
    expect((await hourRows()).map((r) => r.probes).sort()).toEqual([1, 3]);
    expect(await getRollups(env.store, { nodeId, since: T10 }, later + 2 * MINUTE)).toMatchObject([
      hour10,
      { hourStart: T10 + HOUR, probes: 1 },
      { hourStart: later, probes: 1 },
    ]);
    // The balancer's figures are its node's, and retention takes the folded hours away for good.
    expect(
      (await getRollups(env.store, { balancerId: b.id, since: T10 }, later + 2 * MINUTE)).map(
        (r) => r.probes,
      ),
    ).toEqual([3, 1, 1]);
    await pruneOldData(env.store, T10 + 2 * HOUR);
    expect(await getRollups(env.store, { nodeId, since: T10 }, later + 2 * MINUTE)).toMatchObject([
      { hourStart: later, probes: 1 },
    ]);
  });
});
