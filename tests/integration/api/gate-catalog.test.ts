// A balancer in drift only because its nodes' tool catalogs differ: the revision is uniform, so the gate stays
// open, and its answer says that the catalogs differ and which tools. Real SDK servers on loopback, a real
// poll cycle, the route handlers as the server calls them.
import { processSettings } from '@/lib/settings';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { storeLocation } from '../../support/store';
import { startLocalPoller, type LocalPoller } from '../../support/local-poller';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-gate-catalog-'));
process.env.ERAWATCH_DB = await storeLocation(dir, 'gate-catalog.db');
process.env.ERAWATCH_ADMIN_SECRET = 'gate-catalog-secret-0123456789ab';
process.env.ERAWATCH_BIND = '127.0.0.1';
process.env.ERAWATCH_ALLOW_LOOPBACK = '1';
process.env.ERAWATCH_RATE_LIMIT = '0';

type Handler = (req: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response>;
const ADMIN = process.env.ERAWATCH_ADMIN_SECRET;
const peers: RunningPeer[] = [];
let poller: LocalPoller | null = null;
let balancerId = '';

async function call(mod: Promise<Record<string, unknown>>, method: string, url: string, body?: unknown) {
  const h = (await mod)[method] as Handler;
  const headers: Record<string, string> = { host: '127.0.0.1:3999', authorization: `Bearer ${ADMIN}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await h(
    new Request(`http://127.0.0.1:3999${url}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    { params: Promise.resolve({ id: balancerId }) },
  );
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  poller = await startLocalPoller();
  const same = { name: 'search-api', version: '2.4.0' };
  peers.push(
    ...(await Promise.all([
      startPeer('v2-modern', { ...same, tools: ['echo', 'search'] }),
      startPeer('v2-modern', { ...same, tools: ['echo', 'search'] }),
      startPeer('v2-modern', { ...same, tools: ['echo'] }),
    ])),
  );
  const created = await call(import('@/app/api/v1/balancers/route'), 'POST', '/api/v1/balancers', {
    name: 'catalog-drift',
    publicUrl: peers[0]?.url,
    nodeUrls: peers.map((p) => p.url),
    samplesPerCycle: 0,
  });
  expect(created.status).toBe(201);
  balancerId = String(created.json.id);
  const probed = await call(
    import('@/app/api/v1/balancers/[id]/probe/route'),
    'POST',
    `/api/v1/balancers/${balancerId}/probe`,
  );
  expect(probed.status).toBe(200);
}, 180_000);

afterAll(async () => {
  await poller?.stop();
  for (const p of peers) await p.stop();
  const { getStore } = await import('@/db/index');
  await (await getStore({ settings: processSettings() })).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the gate of a balancer whose tool catalogs differ', () => {
  it('is open on the uniform revision and names the tools that differ', async () => {
    const detail = await call(
      import('@/app/api/v1/balancers/[id]/route'),
      'GET',
      `/api/v1/balancers/${balancerId}`,
    );
    const analysis = detail.json.analysis as { status: string; severity: string; reasons: string[] };
    expect([analysis.status, analysis.severity, analysis.reasons]).toEqual([
      'non-uniform',
      'drift',
      ['catalog differs'],
    ]);
    const gate = await call(
      import('@/app/api/v1/balancers/[id]/gate/route'),
      'GET',
      `/api/v1/balancers/${balancerId}/gate?revision=2026-07-28`,
    );
    expect(gate.status).toBe(200);
    expect(gate.json).toMatchObject({ ready: true, state: 'open', reasons: [] });
    expect(gate.json.catalogDrift).toEqual({
      tools: ['search'],
      detail: expect.stringContaining('tool catalogs differ between nodes: search'),
    });
  });
});
