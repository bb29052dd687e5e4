// GET /api/v1/balancers/{id}/history on both engines: a scripted fleet of four nodes moves from legacy to
// modern one node per cycle (a dual-era node on the way, a drift, then an outage), written by the production
// cycle (the poll worker's path, tests/support/cycle.ts, with a scripted probe and clock), and the route answers each minute's state, era
// counts, nodes serving the target and availability from the minute ring, and the hour from the hourly fold
// without counting a probe twice. Bad ranges and steps are refused with problem+json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getStore } from '@/db';
import { openRolloutWindow } from '@/db/queries/rollouts';
import { HOUR_MS, MINUTE_MS } from '@/db/rollup-key';
import { createBalancer } from '@/lib/balancers';
import { processSettings } from '@/lib/settings';
import { runOneCycle } from '@/tests/support/cycle';
import type { ProbeFn } from '@/lib/poller/types';
import type { Verdict } from '@/lib/probe/types';
import type { BalancerHistory } from '@/lib/schemas/history';
import { storeLocation } from '../../support/store';
import {
  dualVerdict,
  legacyVerdict,
  LEGACY,
  MODERN,
  modernVerdict,
  unavailableVerdict,
} from '../../unit/rollout/verdict-factory';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-history-'));
process.env.ERAWATCH_DB = await storeLocation(dir, 'history.db');
process.env.ERAWATCH_ADMIN_SECRET = 'history-secret-0123456789abcdef';
process.env.ERAWATCH_BIND = '127.0.0.1';
process.env.ERAWATCH_ALLOW_LOOPBACK = '1';
process.env.ERAWATCH_RATE_LIMIT = '0';

type Handler = (req: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response>;
const ADMIN = process.env.ERAWATCH_ADMIN_SECRET;
const URLS = [1, 2, 3, 4].map((i) => `http://127.0.0.1:9/n${i}`);

// Each cycle, what each node presents: L legacy, D dual-era, M modern, V modern of another build (drift),
// U unavailable. One node moves per cycle.
const SCRIPT = ['LLLL', 'DLLL', 'MMLL', 'MMMV', 'MMMM', 'MMMU'];

function verdictOf(letter: string, url: string, at: number): Verdict {
  const base = { url, probedAt: at };
  if (letter === 'L') return legacyVerdict(base);
  if (letter === 'D') return dualVerdict(base);
  if (letter === 'V')
    return modernVerdict({ ...base, serverInfo: { name: 'fleet-server', version: '2.5.0' } });
  if (letter === 'U') return unavailableVerdict('timeout', base);
  return modernVerdict(base);
}

let balancerId = '';
// Two hours before the current hour, ten minutes in: every cycle lands in one hour the minute ring still holds.
const BASE = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - 2 * HOUR_MS + 10 * MINUTE_MS;

async function history(query: string, id = balancerId) {
  const { GET } = (await import('@/app/api/v1/balancers/[id]/history/route')) as unknown as { GET: Handler };
  const res = await GET(
    new Request(`http://127.0.0.1:3999/api/v1/balancers/${id}/history?${query}`, {
      headers: { host: '127.0.0.1:3999', authorization: `Bearer ${ADMIN}` },
    }),
    { params: Promise.resolve({ id }) },
  );
  return { status: res.status, type: res.headers.get('content-type'), json: (await res.json()) as unknown };
}

async function cycle(at: number, letters: string) {
  const store = await getStore({ settings: processSettings() });
  const probe: ProbeFn = async (t) => verdictOf(letters[URLS.indexOf(t.url)] ?? 'U', t.url, at);
  await runOneCycle(store, balancerId, { probe, now: () => at, resolve: async () => ['127.0.0.1'] });
}

beforeAll(async () => {
  const store = await getStore({ settings: processSettings() });
  const b = await createBalancer(store, {
    name: 'history',
    publicUrl: 'http://127.0.0.1:9/mcp',
    nodeUrls: URLS,
    samplesPerCycle: 0,
    allowLegacy: true,
    intervalMs: 60_000,
  });
  balancerId = b.id;
  await cycle(BASE, SCRIPT[0] ?? '');
  // The rollout is declared as the first minute ends: from then on the target is its revision.
  await openRolloutWindow(
    store,
    balancerId,
    { target: { supportedIncludes: MODERN }, deadline: BASE + 7 * 86_400_000 },
    BASE + MINUTE_MS,
  );
  for (let k = 1; k < SCRIPT.length; k++) await cycle(BASE + k * MINUTE_MS, SCRIPT[k] ?? '');
}, 120_000);

afterAll(async () => {
  await (await getStore({ settings: processSettings() })).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('balancer history', () => {
  it('answers each minute from the minute ring: state, eras (dual-era apart), target, availability', async () => {
    const r = await history(`from=${BASE}&to=${BASE + 6 * MINUTE_MS}&step=1m`);
    expect(r.status).toBe(200);
    const h = r.json as BalancerHistory;
    expect(h).toMatchObject({ balancerId, from: BASE, stepMs: MINUTE_MS, source: 'minutes' });
    expect(h.steps.map((s) => s.at)).toEqual(SCRIPT.map((_, k) => BASE + k * MINUTE_MS));
    expect(h.steps.map((s) => s.band)).toEqual([
      'uniform',
      'era-split',
      'era-split',
      'drift',
      'uniform',
      'degraded',
    ]);
    expect(h.steps.map((s) => s.severity)).toEqual([null, 'era-split', 'era-split', 'drift', null, null]);
    expect(h.steps.map((s) => s.eras)).toEqual([
      { modern: 0, dualEra: 0, legacy: 4 },
      { modern: 0, dualEra: 1, legacy: 3 },
      { modern: 2, dualEra: 0, legacy: 2 },
      { modern: 4, dualEra: 0, legacy: 0 },
      { modern: 4, dualEra: 0, legacy: 0 },
      { modern: 3, dualEra: 0, legacy: 0 },
    ]);
    // Before the window the target is the newest revision served; inside it, the window's.
    expect(h.steps.map((s) => [s.windowOpen, s.targetRevision, s.servingTarget])).toEqual([
      [false, LEGACY, 4],
      [true, MODERN, 1],
      [true, MODERN, 2],
      [true, MODERN, 4],
      [true, MODERN, 4],
      [true, MODERN, 3],
    ]);
    expect(h.steps.map((s) => [s.nodes, s.available, s.unavailable, s.probes, s.failures])).toEqual([
      [4, 4, 0, 4, 0],
      [4, 4, 0, 4, 0],
      [4, 4, 0, 4, 0],
      [4, 4, 0, 4, 0],
      [4, 4, 0, 4, 0],
      [4, 3, 1, 4, 1],
    ]);
    expect(h.steps[3]?.fingerprints).toBe(2);
  });

  it('sums wider minute steps, and shows no data where nothing was probed', async () => {
    const h = (await history(`from=${BASE - 2 * MINUTE_MS}&to=${BASE + 6 * MINUTE_MS}&step=2m`))
      .json as BalancerHistory;
    expect(h.steps.map((s) => [s.band, s.probes])).toEqual([
      ['no-data', 0],
      ['era-split', 8],
      ['drift', 8],
      ['degraded', 8],
    ]);
  });

  it('answers the hour from the ring, and from its row once folded, counting each probe once', async () => {
    const hour = Math.floor(BASE / HOUR_MS) * HOUR_MS;
    const ask = `from=${hour}&to=${hour + HOUR_MS}&step=1h`;
    const before = (await history(ask)).json as BalancerHistory;
    expect(before.source).toBe('hours');
    expect(before.steps).toHaveLength(1);
    expect(before.steps[0]).toMatchObject({ band: 'degraded', probes: 24, failures: 1, available: 3 });
    // A probe in the next hour folds this hour into its row; the ring still holds it too.
    await cycle(hour + HOUR_MS + 5 * MINUTE_MS, 'MMMM');
    const after = (await history(ask)).json as BalancerHistory;
    expect(after.steps[0]).toMatchObject({ band: 'degraded', probes: 24, failures: 1 });
    const two = (await history(`from=${hour}&to=${hour + 2 * HOUR_MS}&step=1h`)).json as BalancerHistory;
    expect(two.steps.map((s) => [s.band, s.probes])).toEqual([
      ['degraded', 24],
      ['uniform', 4],
    ]);
  });

  it('refuses bad ranges and steps with problem+json, and an unknown balancer with 404', async () => {
    const now = Date.now();
    const cases: Array<[string, string, RegExp]> = [
      [`from=${BASE}&to=${BASE - 1}`, '/from', /before to/],
      [`from=${now + HOUR_MS}`, '/from', /before now/],
      [`from=${BASE}&step=30s`, '/step', /whole number of minutes/],
      [`from=${BASE}&step=90s`, '/step', /whole number of minutes/],
      [`from=${now - 7 * 86_400_000}&step=5m`, '/step', /six hours/],
      [`from=${now - 90 * 86_400_000}&step=1h`, '/step', /at most 1000/],
      [`from=${now - 500 * 86_400_000}&step=1d`, '/from', /400 days/],
      ['step=soon', '/step', /duration/],
      ['from=yesterday', '/from', /ISO 8601/],
    ];
    for (const [query, pointer, detail] of cases) {
      const r = await history(query);
      expect(r.status, query).toBe(400);
      expect(r.type).toContain('application/problem+json');
      const errors = (r.json as { errors: Array<{ pointer: string; detail: string }> }).errors;
      expect(errors.find((e) => e.pointer === pointer)?.detail, query).toMatch(detail);
    }
    expect((await history('', 'bal_missing')).status).toBe(404);
  });

  it('is in the OpenAPI document with its response schema', async () => {
    const { GET } = (await import('@/app/api/v1/openapi.json/route')) as unknown as { GET: Handler };
    const res = await GET(
      new Request('http://127.0.0.1:3999/api/v1/openapi.json', { headers: { host: '127.0.0.1:3999' } }),
    );
    const doc = (await res.json()) as {
      paths: Record<string, { get?: { operationId?: string } }>;
      components: { schemas: Record<string, unknown> };
    };
    expect(doc.paths['/balancers/{id}/history']?.get?.operationId).toBe('getBalancerHistory');
    expect(doc.components.schemas.BalancerHistory).toBeDefined();
  });
});

describe('events by node, page by page', () => {
  async function events(query: string) {
    const { GET } = (await import('@/app/api/v1/events/route')) as unknown as { GET: Handler };
    const res = await GET(
      new Request(`http://127.0.0.1:3999/api/v1/events?${query}`, {
        headers: { host: '127.0.0.1:3999', authorization: `Bearer ${ADMIN}` },
      }),
    );
    return {
      status: res.status,
      json: (await res.json()) as {
        items: Array<{ id: string; nodeId: string | null; type: string }>;
        nextCursor: string | null;
        errors?: Array<{ pointer: string }>;
      },
    };
  }

  it("lists one node's events only, and walks them with the cursor without repeats", async () => {
    const nodes = await (
      await import('@/db/queries/nodes')
    ).listNodes(await getStore({ settings: processSettings() }), balancerId);
    const fourth = nodes.find((n) => n.url === URLS[3]);
    const all = await events(`balancerId=${balancerId}&limit=500`);
    const mine = all.json.items.filter((e) => e.nodeId === fourth?.id);
    // The fourth node changed era, drifted, came back and went down: several events of its own.
    expect(mine.length).toBeGreaterThanOrEqual(3);
    expect(all.json.items.length).toBeGreaterThan(mine.length);
    const only = await events(`nodeId=${fourth?.id}&limit=500`);
    expect(only.json.items.map((e) => e.id)).toEqual(mine.map((e) => e.id));
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await events(`nodeId=${fourth?.id}&limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.json.items.length).toBeLessThanOrEqual(1);
      walked.push(...page.json.items.map((e) => e.id));
      cursor = page.json.nextCursor;
    } while (cursor);
    expect(walked).toEqual(mine.map((e) => e.id));
    expect((await events('nodeId=nod_missing')).json.items).toEqual([]);
    const bad = await events('nodeId=not%20an%20id');
    expect(bad.status).toBe(400);
    expect(bad.json.errors?.[0]?.pointer).toBe('/nodeId');
  });
});
