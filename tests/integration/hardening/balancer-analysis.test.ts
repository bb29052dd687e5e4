// GET /api/v1/balancers/{id} carries the current analysis: a real cycle over a modern and a legacy MCP SDK
// server on loopback (plus a closed port) makes an era split with a degraded node, read back in one call.
import { processSettings } from '@/lib/settings';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { BalancerAnalysisView } from '@/lib/schemas/balancer-analysis';
import { startLocalPoller, type LocalPoller } from '../../support/local-poller';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-analysis-'));
process.env.ERAWATCH_DB = path.join(dir, 'analysis.db');
process.env.ERAWATCH_ADMIN_SECRET = 'analysis-admin-secret-0123456789';
process.env.ERAWATCH_BIND = '127.0.0.1';
process.env.ERAWATCH_ALLOW_LOOPBACK = '1';
process.env.ERAWATCH_RATE_LIMIT = '0';
process.env.ERAWATCH_AUTH_FAILURE_LIMIT = '0';

type Handler = (req: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response>;
const ADMIN = process.env.ERAWATCH_ADMIN_SECRET;
const peers: RunningPeer[] = [];

async function call(h: Handler, method: string, url: string, params: Record<string, string>, body?: unknown) {
  const headers: Record<string, string> = { host: '127.0.0.1:3999', authorization: `Bearer ${ADMIN}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await h(
    new Request(`http://127.0.0.1:3999${url}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    { params: Promise.resolve(params) },
  );
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    body: (await res.json()) as Record<string, unknown>,
  };
}

let routes: { create: Handler; get: Handler; probe: Handler };

let localPoll: LocalPoller | null = null;

beforeAll(async () => {
  // Probe-now asks this process's poll role, as `next start` runs one.
  localPoll = await startLocalPoller();
  peers.push(await startPeer('v2-modern', { name: 'modern-node', version: '2.0.0' }));
  peers.push(await startPeer('v1-stateful', { name: 'legacy-node', version: '1.0.0' }));
  routes = {
    create: (await import('@/app/api/v1/balancers/route')).POST as Handler,
    get: (await import('@/app/api/v1/balancers/[id]/route')).GET as Handler,
    probe: (await import('@/app/api/v1/balancers/[id]/probe/route')).POST as Handler,
  };
}, 60_000);

afterAll(async () => {
  await localPoll?.stop();
  for (const p of peers) await p.stop();
  const { closeDefaultProbe } = await import('@/lib/poller/default-probe');
  await closeDefaultProbe();
  const { getStore } = await import('@/db/index');
  await (await getStore({ settings: processSettings() })).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the single balancer view', () => {
  it('is null before the first cycle, then carries status, severity, partition, degraded nodes, cache hazard and since', async () => {
    const [modern, legacy] = peers;
    const closed = 'http://127.0.0.1:9/mcp';
    const created = await call(
      routes.create,
      'POST',
      '/api/v1/balancers',
      {},
      {
        name: 'split-fleet',
        publicUrl: modern?.url,
        nodeUrls: [modern?.url, legacy?.url, closed],
        samplesPerCycle: 2,
        allowLegacy: true,
      },
    );
    expect(created.status).toBe(201);
    const id = String(created.body.id);

    const before = await call(routes.get, 'GET', `/api/v1/balancers/${id}`, { id });
    expect(before.status).toBe(200);
    expect(before.body.analysis).toBeNull();

    const probed = await call(routes.probe, 'POST', `/api/v1/balancers/${id}/probe`, { id });
    expect(probed.status).toBe(200);

    const after = await call(routes.get, 'GET', `/api/v1/balancers/${id}`, { id });
    expect(after.status).toBe(200);
    const analysis = BalancerAnalysisView.parse(after.body.analysis);
    expect(analysis.status).toBe('non-uniform');
    expect(analysis.severity).toBe('era-split');
    expect(analysis.degraded).toBe(true);
    expect(analysis.partition.map((g) => g.fingerprint.era).sort()).toEqual(['legacy', 'modern']);
    expect(analysis.partition.find((g) => g.fingerprint.era === 'legacy')?.fingerprint.serverName).toBe(
      'legacy-node',
    );
    expect(analysis.degradedNodes).toEqual([
      expect.objectContaining({ url: closed, reason: expect.stringMatching(/refused|network/) }),
    ]);
    expect(analysis.cacheHazard.availableSamples).toBe(2);
    expect(analysis.counts).toEqual(expect.objectContaining({ nodes: 3, availableNodes: 2 }));
    const diverged = (probed.body.events as Array<{ type: string; at: number }>).find(
      (e) => e.type === 'balancer.diverged',
    );
    expect(diverged).toBeDefined();
    expect(analysis.since).toBe(diverged?.at);
    expect(analysis.analyzedAt).toBe(probed.body.at);
    // The partition counts the nodes the same response lists (available ones), without naming them.
    const available = (after.body.nodes as Array<{ state: { availability: string } | null }>).filter(
      (n) => n.state?.availability === 'available',
    );
    expect(analysis.partition.reduce((sum, g) => sum + g.nodeCount, 0)).toBe(available.length);
    expect(analysis.degradedNodeCount).toBe(analysis.degradedNodes.length);
  }, 60_000);

  it.each([
    ['an unknown id', 'bal_missing', 404, 'not_found'],
    ['an id that is not one', 'x'.repeat(80), 404, 'not_found'],
  ])('%s is problem+json', async (_name, id, status, code) => {
    const res = await call(routes.get, 'GET', `/api/v1/balancers/${id}`, { id });
    expect(res.status).toBe(status);
    expect(res.type).toBe('application/problem+json');
    expect(res.body.type).toBe(`https://erawatch.dev/problems/${code}`);
  });

  it('the OpenAPI document describes the analysis on the single view', async () => {
    const { buildOpenApiDocument } = await import('@/lib/api/openapi');
    const doc = buildOpenApiDocument('test') as {
      paths: Record<
        string,
        Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>
      >;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    const ok = doc.paths['/balancers/{id}']?.get?.responses['200']?.content?.['application/json']?.schema;
    expect(ok).toEqual({ $ref: '#/components/schemas/BalancerDetail' });
    const detail = doc.components.schemas.BalancerDetail;
    expect(Object.keys(detail?.properties ?? {})).toEqual(expect.arrayContaining(['analysis', 'nodes']));
    expect(Object.keys(doc.components.schemas.BalancerAnalysis?.properties ?? {})).toEqual(
      expect.arrayContaining(['status', 'severity', 'partition', 'degradedNodes', 'cacheHazard', 'since']),
    );
  });
});
