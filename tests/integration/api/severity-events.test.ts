// The demo's scripted rollout, each step followed by a real poll cycle, on the store of the run's engine: the
// events API tells the story the console tells, severity changes and the rollback included, once each.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoFleet } from '@/lib/demo/fleet';
import { runRolloutScript } from '@/lib/demo/rollout-script';
import { closeDefaultProbe } from '@/lib/poller/default-probe';
import { storeLocation } from '../../support/store';
import { processSettings } from '@/lib/settings';
import { testSettings } from '../../support/settings';
import { runOneCycle } from '../../support/cycle';
import { startDemoSearch } from '../../support/demo-search';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-severity-events-'));
process.env.ERAWATCH_DB = await storeLocation(dir, 'severity-events.db');
process.env.ERAWATCH_ADMIN_SECRET = 'severity-events-secret-0123456789';
process.env.ERAWATCH_BIND = '127.0.0.1';
process.env.ERAWATCH_ALLOW_LOOPBACK = '1';
process.env.ERAWATCH_RATE_LIMIT = '0';

type Handler = (req: Request) => Promise<Response>;
let fleet: DemoFleet | undefined;
let searchId = '';

async function getJson(url: string) {
  const h = (await import('@/app/api/v1/events/route')).GET as Handler;
  const res = await h(
    new Request(`http://127.0.0.1:3999${url}`, {
      headers: { host: '127.0.0.1:3999', authorization: `Bearer ${process.env.ERAWATCH_ADMIN_SECRET}` },
    }),
  );
  return { status: res.status, json: (await res.json()) as { items: Array<Record<string, unknown>> } };
}

beforeAll(async () => {
  const { getStore } = await import('@/db/index');
  const store = await getStore({ settings: processSettings() });
  ({ fleet, searchId } = await startDemoSearch(store));
}, 180_000);

afterAll(async () => {
  await closeDefaultProbe();
  await fleet?.stop();
  const { getStore } = await import('@/db/index');
  await (await getStore({ settings: processSettings() })).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('severity changes of the demo rollout through the events API', () => {
  it('shows diverged, era-split → drift, the rollback drift → era-split, era-split → drift, converged', async () => {
    const f = fleet;
    if (!f) throw new Error('fleet did not start');
    const { getStore } = await import('@/db/index');
    const store = await getStore({ settings: processSettings() });
    const cycle = () => runOneCycle(store, searchId, { settings: testSettings() });
    await cycle();
    const report = await runRolloutScript(
      {
        async replaceNode(node, release) {
          await f.replaceNode(node, release);
          await cycle();
          // A second cycle on the same fleet changes nothing: each transition is recorded once.
          await cycle();
        },
        wait: async () => undefined,
        log: () => undefined,
        now: Date.now,
      },
      { stepMs: 0, signal: new AbortController().signal },
    );
    expect(report.outcome).toBe('finished');

    const { status, json } = await getJson(`/api/v1/events?balancerId=${searchId}&limit=500`);
    expect(status).toBe(200);
    const story = json.items
      .filter((e) => String(e.type).startsWith('balancer.'))
      .reverse()
      .map((e) => {
        const d = e.data as Record<string, unknown>;
        if (e.type === 'balancer.diverged') return `diverged ${String(d.severity)}`;
        if (e.type === 'balancer.converged') return `converged from ${String(d.fromSeverity)}`;
        if (e.type === 'balancer.severity_changed') return `${String(d.from)} -> ${String(d.to)}`;
        return String(e.type);
      });
    expect(story).toEqual([
      'diverged era-split',
      'era-split -> drift',
      'drift -> era-split',
      'era-split -> drift',
      'converged from drift',
    ]);

    // The API filters by the new type, as a webhook subscriber or the events page would.
    const only = await getJson(`/api/v1/events?balancerId=${searchId}&type=balancer.severity_changed`);
    expect(only.status).toBe(200);
    expect(only.json.items).toHaveLength(3);
    expect(only.json.items.every((e) => e.nodeId === null)).toBe(true);
  }, 300_000);
});
