// Stored metric series on a real PostgreSQL 15: three processes' pools adding to the same series at once, each
// listing them in its own order, all succeed (no deadlock) and the totals are the sums of every delta.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Store } from '@/db';
import { openPostgres } from '@/db/engines/postgres';
import { addToSeries, listSeries, type SeriesDelta } from '@/db/queries/metric-series';
import { createDatabase, describePostgres, stopSharedCluster } from '../../support/postgres';

describePostgres('metric series on PostgreSQL', () => {
  const stores: Store[] = [];

  beforeAll(async () => {
    const url = await createDatabase('metric_series');
    // The adapter's own Store type narrows `raw`; the query layer takes the door's.
    for (let i = 0; i < 3; i++) stores.push(await openPostgres(url));
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await stopSharedCluster();
  });

  it('concurrent adds in different orders neither deadlock nor lose a delta', async () => {
    const names = Array.from(
      { length: 40 },
      (_, i) => `erawatch_test_total{n="${String(i).padStart(2, '0')}"}`,
    );
    const deltas = (order: number): SeriesDelta[] => {
      const list = names.map((n) => ({ name: 'erawatch_test_total', labels: n, delta: 1 }));
      // Forward, backward, and interleaved: the orders in which two writers would lock rows crosswise.
      return order === 0
        ? list
        : order === 1
          ? list.reverse()
          : list.filter((_, i) => i % 2).concat(list.filter((_, i) => !(i % 2)));
    };
    const ROUNDS = 15;
    await Promise.all(
      stores.map(async (store, s) => {
        for (let r = 0; r < ROUNDS; r++)
          await Promise.all([addToSeries(store, deltas(s)), addToSeries(store, deltas((s + 1) % 3))]);
      }),
    );
    const first = stores[0];
    if (!first) throw new Error('no store');
    const rows = await listSeries(first, ['erawatch_test_total']);
    expect(rows).toHaveLength(names.length);
    for (const row of rows) expect(row.value).toBe(stores.length * ROUNDS * 2);
  });
});
