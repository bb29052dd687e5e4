// Progress toward the demo's declared target through GET /api/v1/balancers/{id} and the list, on the store of
// the run's engine: the scripted rollout moves one node per step, each step followed by a real poll cycle.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoFleet } from '@/lib/demo/fleet';
import { openDemoRolloutWindow } from '@/lib/demo/register';
import { runRolloutScript } from '@/lib/demo/rollout-script';
import { closeDefaultProbe } from '@/lib/poller/default-probe';
import { storeLocation } from '../../support/store';
import { processSettings } from '@/lib/settings';
import { testSettings } from '../../support/settings';
import { runOneCycle } from '../../support/cycle';
import { startDemoSearch } from '../../support/demo-search';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-progress-'));
process.env.ERAWATCH_DB = await storeLocation(dir, 'progress.db');
process.env.ERAWATCH_ADMIN_SECRET = 'progress-secret-0123456789abcdef';
process.env.ERAWATCH_BIND = '127.0.0.1';
process.env.ERAWATCH_ALLOW_LOOPBACK = '1';
process.env.ERAWATCH_RATE_LIMIT = '0';

type Handler = (req: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response>;
let fleet: DemoFleet | undefined;
let searchId = '';
const HOUR = 3_600_000;

async function get(mod: Promise<Record<string, unknown>>, url: string) {
  const h = (await mod).GET as Handler;
  const res = await h(
    new Request(`http://127.0.0.1:3999${url}`, {
      headers: { host: '127.0.0.1:3999', authorization: `Bearer ${process.env.ERAWATCH_ADMIN_SECRET}` },
    }),
    { params: Promise.resolve({ id: searchId }) },
  );
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

beforeAll(async () => {
  const { getStore } = await import('@/db/index');
  const store = await getStore({ settings: processSettings() });
  ({ fleet, searchId } = await startDemoSearch(store));
  // A window declared an hour ago in which nothing has moved yet: stalled until the first node moves.
  await openDemoRolloutWindow(store, searchId, 2 * HOUR, Date.now() - HOUR);
}, 180_000);

afterAll(async () => {
  await closeDefaultProbe();
  await fleet?.stop();
  const { getStore } = await import('@/db/index');
  await (await getStore({ settings: processSettings() })).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('progress toward the demo rollout window', () => {
  it('counts nodes on the target step by step, with trend, estimate and stalled', async () => {
    const f = fleet;
    if (!f) throw new Error('fleet did not start');
    const { getStore } = await import('@/db/index');
    const store = await getStore({ settings: processSettings() });
    const seen: Array<Record<string, unknown>> = [];
    const step = async () => {
      await runOneCycle(store, searchId, { settings: testSettings() });
      const detail = await get(import('@/app/api/v1/balancers/[id]/route'), `/api/v1/balancers/${searchId}`);
      seen.push(detail.progress as Record<string, unknown>);
    };
    await step();
    const report = await runRolloutScript(
      {
        async replaceNode(node, release) {
          await f.replaceNode(node, release);
          await step();
        },
        wait: async () => undefined,
        log: () => undefined,
        now: Date.now,
      },
      { stepMs: 0, signal: new AbortController().signal },
    );
    expect(report.outcome).toBe('finished');

    const brief = seen.map((p) => `${String(p.onTarget)}/${String(p.available)}`);
    // dual dual legacy legacy → search-3, search-4 modern → rollback of search-4 → search-1, search-4, search-2.
    expect(brief).toEqual(['0/4', '1/4', '2/4', '1/4', '2/4', '3/4', '4/4']);
    for (const p of seen) {
      expect(p.basis).toBe('window');
      expect(p.targetRevision).toBe('2026-07-28');
    }
    // Nothing moved in the hour since the window opened: stalled, no estimate.
    expect(seen[0]).toMatchObject({ stalled: true, etaAt: null, complete: false, servingTargetRevision: 2 });
    // One node moved: no longer stalled, trending up, and an estimate at that rate.
    expect(seen[1]).toMatchObject({ stalled: false, trend: 'up', change10m: 1, complete: false });
    expect(typeof seen[1]?.etaAt).toBe('number');
    // The rollback counts: 1 on target, down from 2 a step ago, yet still up on 10 minutes ago.
    expect(seen[3]).toMatchObject({ onTarget: 1, change10m: 1 });
    expect(seen[6]).toMatchObject({ complete: true, etaAt: null, stalled: false, servingTargetRevision: 4 });

    const list = await get(import('@/app/api/v1/balancers/route'), '/api/v1/balancers');
    const item = (list.items as Array<Record<string, unknown>>).find((b) => b.id === searchId);
    expect(item?.progress).toMatchObject({ basis: 'window', onTarget: 4, available: 4, complete: true });

    // The dashboard's reads carry the same measure: the balancer page's bar and the fleet list's.
    const { readFleetRows } = await import('@/lib/api/read-model');
    const { readBalancerDetail } = await import('@/db/queries/dashboard');
    const row = (await readFleetRows(store)).find((r) => r.id === searchId);
    expect(row?.progressMeasure).toMatchObject({ onTarget: 4, available: 4, trend: 'up' });
    expect((await readBalancerDetail(store, searchId)).progress).toMatchObject({
      onTarget: 4,
      complete: true,
    });
  }, 300_000);
});
