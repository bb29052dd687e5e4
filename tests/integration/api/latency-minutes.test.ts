// "Latency over time" for a node probed for a few minutes draws minute buckets, not one hourly dot: real SDK
// server, real cycles (probe now), the dashboard route as the server calls it, both engines. The minute
// buckets are a ring per node: a slot still holding a minute six hours old starts over.
import { processSettings } from '@/lib/settings';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { MINUTE_SLOTS, minuteOf, minuteRollupKey } from '@/db/rollup-key';
import { storeLocation } from '../../support/store';
import { startLocalPoller, type LocalPoller } from '../../support/local-poller';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-latency-'));
process.env.ERAWATCH_DB = await storeLocation(dir, 'latency.db');
process.env.ERAWATCH_ADMIN_SECRET = 'latency-minutes-secret-0123456789';
process.env.ERAWATCH_BIND = '127.0.0.1';
process.env.ERAWATCH_ALLOW_LOOPBACK = '1';
process.env.ERAWATCH_RATE_LIMIT = '0';

type Handler = (req: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response>;
const ADMIN = process.env.ERAWATCH_ADMIN_SECRET;
let peer: RunningPeer | null = null;
let poller: LocalPoller | null = null;
let balancerId = '';
let nodeId = '';

async function call(
  mod: Promise<Record<string, unknown>>,
  method: string,
  url: string,
  id: string,
  body?: unknown,
) {
  const h = (await mod)[method] as Handler;
  const headers: Record<string, string> = { host: '127.0.0.1:3999', authorization: `Bearer ${ADMIN}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await h(
    new Request(`http://127.0.0.1:3999${url}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    { params: Promise.resolve({ id }) },
  );
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const probeNow = async () =>
  expect(
    (
      await call(
        import('@/app/api/v1/balancers/[id]/probe/route'),
        'POST',
        `/api/v1/balancers/${balancerId}/probe`,
        balancerId,
      )
    ).status,
  ).toBe(200);

interface Point {
  at: number;
  spanMs: number;
  probes: number;
  p50Ms: number | null;
}
const points = async () =>
  (
    await call(
      import('@/app/dashboard-data/nodes/[id]/rollups/route'),
      'GET',
      `/dashboard-data/nodes/${nodeId}/rollups`,
      nodeId,
    )
  ).json.items as Point[];

beforeAll(async () => {
  poller = await startLocalPoller();
  peer = await startPeer('v2-modern', { name: 'latency', version: '1.0.0' });
  const created = await call(import('@/app/api/v1/balancers/route'), 'POST', '/api/v1/balancers', '', {
    name: 'latency',
    publicUrl: peer.url,
    nodeUrls: [peer.url],
    samplesPerCycle: 0,
  });
  expect(created.status).toBe(201);
  balancerId = String(created.json.id);
  await probeNow();
  const nodes = await call(import('@/app/api/v1/balancers/[id]/nodes/route'), 'GET', '/', balancerId);
  nodeId = (nodes.json.items as Array<{ id: string }>)[0]?.id ?? '';
}, 180_000);

afterAll(async () => {
  await poller?.stop();
  await peer?.stop();
  const { getStore } = await import('@/db/index');
  await (await getStore({ settings: processSettings() })).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('Latency over time', () => {
  it('draws the last minutes from minute buckets, each probe counted once', async () => {
    await probeNow();
    const pts = await points();
    expect(pts.length).toBeGreaterThan(0);
    expect(pts.every((p) => p.spanMs === 60_000)).toBe(true);
    // Every probe so far (the cycles of probe-now and any the poller ran) is in a minute bucket.
    const { getStore } = await import('@/db/index');
    const store = await getStore({ settings: processSettings() });
    const { subjectTicks } = store.t;
    const { eq } = await import('drizzle-orm');
    const [state] = await store.read((db) =>
      db.select({ probes: subjectTicks.probes }).from(subjectTicks).where(eq(subjectTicks.subjectId, nodeId)),
    );
    expect(pts.reduce((n, p) => n + p.probes, 0)).toBe(state?.probes);
    expect(pts.every((p) => p.p50Ms !== null && p.at % 60_000 === 0)).toBe(true);
  });

  it('starts a slot over when it still holds a minute from before the ring, and never reads that minute', async () => {
    const { getStore } = await import('@/db/index');
    const store = await getStore({ settings: processSettings() });
    const { nodes, nodeMinuteRollups: m } = store.t;
    const { eq } = await import('drizzle-orm');
    const [row] = await store.read((db) =>
      db.select({ seq: nodes.seq }).from(nodes).where(eq(nodes.id, nodeId)),
    );
    const seq = row?.seq ?? 0;
    // The slot the next probe lands in (or the one after, if the minute turns): both hold a minute from before the ring (twelve hours ago).
    const now = minuteOf(Date.now());
    for (const minute of [now, now + 1]) {
      const key = minuteRollupKey(minute, seq);
      await store.write((db) => db.delete(m).where(eq(m.key, key)));
      await store.write((db) =>
        db
          .insert(m)
          .values({ key, minute: minute - 2 * MINUTE_SLOTS, probes: 99, failures: 99, latency: '1:99' }),
      );
    }
    const before = (await points()).reduce((n, p) => n + p.probes, 0);
    await probeNow();
    const pts = await points();
    expect(pts.some((p) => p.probes >= 99)).toBe(false);
    expect(Math.max(...pts.map((p) => p.at))).toBeGreaterThanOrEqual(now * 60_000);
    expect(pts.reduce((n, p) => n + p.probes, 0)).toBeLessThanOrEqual(before + 1);
  });
});
