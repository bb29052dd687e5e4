import { processSettings } from '@/lib/settings';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '@/db';
import { createBalancer } from '@/lib/balancers';
import { tableBytes, tableRows } from '@/db/stats';

let dir: string;
let store: Store;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-stats-'));
  store = await openStore(path.join(dir, 'stats.db'), { settings: processSettings() });
});
afterAll(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('tableRows', () => {
  it('counts each table and gives its indexes the same count, under the names tableBytes uses', async () => {
    const empty = await tableRows(store);
    expect(empty.balancers).toBe(0);
    for (const i of [1, 2, 3])
      await createBalancer(store, { name: `b${i}`, publicUrl: `http://127.0.0.1:900${i}/mcp` });
    const rows = await tableRows(store);
    expect(rows.balancers).toBe(3);
    // Every name dbstat weighs has a row count, so growth can be split by whether rows were added.
    const bytes = await tableBytes(store);
    const balancerIndexes = Object.keys(bytes).filter((n) => n.startsWith('sqlite_autoindex_balancers'));
    expect(balancerIndexes.length).toBeGreaterThan(0);
    for (const name of balancerIndexes) expect(rows[name]).toBe(3);
    for (const name of Object.keys(bytes)) expect(rows[name], name).toBeTypeOf('number');
  });
});
