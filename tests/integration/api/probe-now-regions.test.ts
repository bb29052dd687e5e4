// Probe-now and the fresh gate go through the poll units: the web side (route handlers in this process, which
// runs no poll role) asks through the store, and the real `erawatch worker` of each region runs the cycle and
// stores it. A front door that routes by source address counts who probed: each region's worker probes from
// its own address, and this process never probes at all. A region with no live worker is named in the answer.
import { processSettings } from '@/lib/settings';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { startSourceRoutingProxy, type SourceRoutingProxy } from '../../support/source-routing-proxy';
import { storeLocation } from '../../support/store';
import { startWorkerProcess, type WorkerProcess } from '../../support/worker-process';
import { waitFor } from '../poller/support';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-probe-now-regions-'));
const location = await storeLocation(dir, 'regions.db');
process.env.ERAWATCH_DB = location;
process.env.ERAWATCH_ADMIN_SECRET = 'regions-admin-secret-0123456789abcdef';
process.env.ERAWATCH_BIND = '127.0.0.1';
process.env.ERAWATCH_ALLOW_LOOPBACK = '1';
process.env.ERAWATCH_RATE_LIMIT = '0';
process.env.ERAWATCH_GATE_FRESH_WAIT_MS = '30000';
const ADMIN = process.env.ERAWATCH_ADMIN_SECRET;
const SOURCES = { 'us-east': '127.0.0.2', 'eu-west': '127.0.0.3' } as const;

type Handler = (req: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response>;
let peer: RunningPeer | null = null;
let door: SourceRoutingProxy | null = null;
const workers: WorkerProcess[] = [];

function request(url: string, init: { method?: string; body?: unknown } = {}) {
  return new Request(`http://127.0.0.1:3999${url}`, {
    method: init.method ?? 'GET',
    headers: {
      host: '127.0.0.1:3999',
      authorization: `Bearer ${ADMIN}`,
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

async function handler(mod: Promise<unknown>, method: string): Promise<Handler> {
  const h = ((await mod) as Record<string, Handler | undefined>)[method];
  if (!h) throw new Error(`no ${method}`);
  return h;
}

async function createBalancer(name: string, regions: string[] | null): Promise<string> {
  const create = await handler(import('@/app/api/v1/balancers/route'), 'POST');
  const url = door?.url ?? '';
  const res = await create(
    request('/api/v1/balancers', {
      method: 'POST',
      // One modern node, no samples, no catalog: each region's cycle is one request (server/discover); the
      // interval keeps scheduled cycles out after the first.
      body: {
        name,
        publicUrl: url,
        nodeUrls: [url],
        samplesPerCycle: 0,
        catalog: false,
        intervalMs: 3_600_000,
        regions,
      },
    }),
  );
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

const seenFrom = () => ({
  web: door?.seen('127.0.0.1') ?? 0,
  'us-east': door?.seen(SOURCES['us-east']) ?? 0,
  'eu-west': door?.seen(SOURCES['eu-west']) ?? 0,
});

beforeAll(async () => {
  peer = await startPeer('v2-modern', { name: 'regional-node', version: '1.0.0' });
  door = await startSourceRoutingProxy({ [SOURCES['us-east']]: peer.url, [SOURCES['eu-west']]: peer.url });
  for (const [region, source] of Object.entries(SOURCES)) {
    workers.push(
      startWorkerProcess({
        ERAWATCH_REGION: region,
        ERAWATCH_PROBE_SOURCE_ADDRESS: source,
        ERAWATCH_CONFIG: path.join(dir, 'absent.yaml'),
      }),
    );
  }
  const { listPollWorkers } = await import('@/db/queries/units');
  const { getStore } = await import('@/db/index');
  const store = await getStore({ settings: processSettings() });
  await waitFor('both regions’ poll workers', 120_000, async () => {
    const regions = new Set((await listPollWorkers(store, Date.now())).map((w) => w.region));
    return regions.has('us-east') && regions.has('eu-west');
  });
});

afterAll(async () => {
  for (const w of workers) w.child.kill('SIGTERM');
  await Promise.all(workers.map((w) => w.exited));
  await door?.close();
  await peer?.stop();
  const { getStore } = await import('@/db/index');
  await (await getStore({ settings: processSettings() })).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('probe-now and the fresh gate across regions', () => {
  it('are answered from a cycle of each region’s worker, probed from its network; this process probes nothing', async () => {
    const id = await createBalancer('two-regions', null);
    // The first scheduled cycle of each region (a new unit is due at once), so the asks below are counted apart.
    await waitFor('each region’s first cycle', 120_000, () => {
      const seen = seenFrom();
      return seen['us-east'] >= 1 && seen['eu-west'] >= 1;
    });
    const before = seenFrom();
    const probe = await handler(import('@/app/api/v1/balancers/[id]/probe/route'), 'POST');
    const res = await probe(request(`/api/v1/balancers/${id}/probe`, { method: 'POST' }), {
      params: Promise.resolve({ id }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      probes: number;
      regions: Array<{ region: string; probes: number }>;
      analysis: { status: string };
    };
    expect(body.regions.map((r) => [r.region, r.probes])).toEqual([
      ['eu-west', 1],
      ['us-east', 1],
    ]);
    expect(body.probes).toBe(2);
    expect(body.analysis.status).toBe('uniform');
    const after = seenFrom();
    expect(after['us-east'] - before['us-east']).toBe(1);
    expect(after['eu-west'] - before['eu-west']).toBe(1);

    const gate = await handler(import('@/app/api/v1/balancers/[id]/gate/route'), 'GET');
    const answer = await gate(request(`/api/v1/balancers/${id}/gate?revision=2026-07-28&fresh=true`), {
      params: Promise.resolve({ id }),
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ state: 'open', ready: true, fresh: true });
    const fresh = seenFrom();
    expect(fresh['us-east'] - after['us-east']).toBe(1);
    expect(fresh['eu-west'] - after['eu-west']).toBe(1);
    expect(fresh.web).toBe(0);
  });

  it('a region with no live worker is named: probe-now is a 503 problem, the fresh gate cannot judge', async () => {
    const id = await createBalancer('far-away', ['us-east', 'ap-south']);
    const before = seenFrom();
    const probe = await handler(import('@/app/api/v1/balancers/[id]/probe/route'), 'POST');
    const res = await probe(request(`/api/v1/balancers/${id}/probe`, { method: 'POST' }), {
      params: Promise.resolve({ id }),
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(await res.json()).toMatchObject({
      status: 503,
      type: 'https://erawatch.dev/problems/no_poll_worker',
      detail: 'no poll worker of region ap-south is running: its nodes cannot be probed from there',
    });
    const gate = await handler(import('@/app/api/v1/balancers/[id]/gate/route'), 'GET');
    const answer = await gate(request(`/api/v1/balancers/${id}/gate?revision=2026-07-28&fresh=true`), {
      params: Promise.resolve({ id }),
    });
    expect(answer.status).toBe(200);
    const judged = (await answer.json()) as { state: string; fresh: boolean; reasons: string[] };
    expect(judged).toMatchObject({ state: 'cannot_judge', fresh: false });
    expect(judged.reasons[0]).toBe(
      'no poll worker of region ap-south is running: its nodes cannot be probed from there',
    );
    // Asking never probed anything, here or elsewhere (the us-east worker's own first cycle aside).
    expect(seenFrom().web).toBe(before.web);
    expect(seenFrom()['eu-west']).toBe(before['eu-west']);
  });
});
