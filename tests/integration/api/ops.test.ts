// Probe-now, /metrics, /healthz and /readyz against a real MCP SDK server on loopback and a real SQLite file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-ops-'));
process.env.ERAWATCH_DB = path.join(dir, 'ops.db');
process.env.ERAWATCH_ADMIN_SECRET = 'ops-admin-secret-0123456789abcdef';
process.env.ERAWATCH_BIND = '127.0.0.1';
process.env.ERAWATCH_ALLOW_LOOPBACK = '1';
process.env.ERAWATCH_RATE_LIMIT = '0';

type Handler = (req: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response>;
const ADMIN = process.env.ERAWATCH_ADMIN_SECRET;
let peer: RunningPeer | null = null;

function request(url: string, init: { method?: string; token?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = { host: '127.0.0.1:3999' };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return new Request(`http://127.0.0.1:3999${url}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

async function handler(modulePath: Promise<unknown>, method: string): Promise<Handler> {
  const mod = (await modulePath) as Record<string, Handler | undefined>;
  const h = mod[method];
  if (!h) throw new Error(`no ${method}`);
  return h;
}

beforeAll(async () => {
  peer = await startPeer('v2-dual', { name: 'ops-node', version: '2.4.0' });
});

afterAll(async () => {
  await peer?.stop();
  const { closeDefaultProbe } = await import('@/lib/poller/probe');
  await closeDefaultProbe();
  const { getStore } = await import('@/db/index');
  getStore().close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('operations', () => {
  it('probe-now runs a real cycle; /metrics then shows the era counts and probe histogram without URLs', async () => {
    const url = peer?.url ?? '';
    const create = await handler(import('@/app/api/v1/balancers/route'), 'POST');
    const created = await create(
      request('/api/v1/balancers', {
        method: 'POST',
        token: ADMIN,
        body: { name: 'ops-fleet', publicUrl: url, nodeUrls: [url], samplesPerCycle: 0 },
      }),
    );
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { id: string }).id;

    const probe = await handler(import('@/app/api/v1/balancers/[id]/probe/route'), 'POST');
    const res = await probe(request(`/api/v1/balancers/${id}/probe`, { method: 'POST', token: ADMIN }), {
      params: Promise.resolve({ id }),
    });
    expect(res.status).toBe(200);
    const result = (await res.json()) as {
      probes: number;
      analysis: { state: string; counts: { availableNodes: number } };
    };
    expect(result.probes).toBe(1);
    expect(result.analysis.state).toBe('uniform');
    expect(result.analysis.counts.availableNodes).toBe(1);

    const gate = await handler(import('@/app/api/v1/balancers/[id]/gate/route'), 'GET');
    const answer = await gate(request(`/api/v1/balancers/${id}/gate?revision=2026-07-28`, { token: ADMIN }), {
      params: Promise.resolve({ id }),
    });
    expect(((await answer.json()) as { ready: boolean }).ready).toBe(true);

    const metrics = await handler(import('@/app/(ops)/metrics/route'), 'GET');
    const denied = await metrics(request('/metrics'));
    expect(denied.status).toBe(401);
    const scraped = await metrics(request('/metrics', { token: ADMIN }));
    expect(scraped.status).toBe(200);
    const text = await scraped.text();
    expect(text).toContain('erawatch_nodes{era="modern"} 1');
    expect(text).toContain('erawatch_balancer_state{balancer="ops-fleet",state="uniform"} 1');
    expect(text).toMatch(/erawatch_probe_duration_seconds_count\{era="modern"\} 1/);
    expect(text).not.toContain(String(peer?.port));
    expect(text).not.toContain(ADMIN);
  });

  it('/healthz answers while the process is up', async () => {
    const health = await handler(import('@/app/(ops)/healthz/route'), 'GET');
    const res = await health(request('/healthz'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('/readyz is 503 naming the poller when none holds the lease, 200 when polling is deliberately off', async () => {
    const ready = await handler(import('@/app/(ops)/readyz/route'), 'GET');
    const notReady = await ready(request('/readyz'));
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toMatchObject({
      ready: false,
      checks: { database: { ok: true }, poller: { ok: false, detail: 'no poller holds the lease' } },
    });
    process.env.ERAWATCH_POLLER = 'off';
    try {
      const off = await ready(request('/readyz'));
      expect(off.status).toBe(200);
      expect(await off.json()).toMatchObject({ ready: true, checks: { poller: { ok: true } } });
    } finally {
      delete process.env.ERAWATCH_POLLER;
    }
  });
});
