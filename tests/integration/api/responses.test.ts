// Every documented GET answers what its schema in the route table says, on real data: real MCP SDK servers on
// loopback (a modern node, a legacy node and an auth-gated one), a real poll cycle, a webhook, an alert sink, a
// rollout window, and the route handlers called as the server calls them. A field the schema does not name,
// or one it names that is missing or mistyped, fails. A stored value that does not parse answers 500.
import { processSettings } from '@/lib/settings';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { startFaultPeer, type FaultPeer } from '@/tests/support/fault-peer';
import { storeLocation } from '../../support/store';
import { startLocalPoller, type LocalPoller } from '../../support/local-poller';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-responses-'));
process.env.ERAWATCH_DB = await storeLocation(dir, 'responses.db');
process.env.ERAWATCH_ADMIN_SECRET = 'responses-admin-secret-0123456789';
process.env.ERAWATCH_BIND = '127.0.0.1';
process.env.ERAWATCH_ALLOW_LOOPBACK = '1';
process.env.ERAWATCH_RATE_LIMIT = '0';
process.env.ERAWATCH_AUTH_FAILURE_LIMIT = '0';

const { routeEntries } = await import('@/lib/api/routes');

type Handler = (req: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response>;
const ADMIN = process.env.ERAWATCH_ADMIN_SECRET;
const APP = path.resolve(import.meta.dirname, '../../../app');
const peers: RunningPeer[] = [];
let gated: FaultPeer | null = null;
let poller: LocalPoller | null = null;
const params: Record<string, string> = {};

/** The route file of a table path: `/api/v1/balancers/{id}` → app/api/v1/balancers/[id]/route.ts. */
async function handlerOf(tablePath: string, method: string): Promise<Handler> {
  const file = path.join(
    APP,
    ...tablePath.split('/').map((s) => s.replace(/^\{(\w+)\}$/, '[$1]')),
    'route.ts',
  );
  const h = ((await import(file)) as Record<string, Handler | undefined>)[method];
  if (!h) throw new Error(`no ${method} in ${file}`);
  return h;
}

async function call(method: string, tablePath: string, body?: unknown, query = '') {
  const url = tablePath.replace(/\{(\w+)\}/g, (_m, k: string) => params[k] ?? `missing-${k}`);
  const headers: Record<string, string> = {
    host: '127.0.0.1:3999',
    origin: 'http://127.0.0.1:3999',
    authorization: `Bearer ${ADMIN}`,
  };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await (
    await handlerOf(tablePath, method)
  )(
    new Request(`http://127.0.0.1:3999${url}${query}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    { params: Promise.resolve({ ...params }) },
  );
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

/** The queries the GETs with required parameters need. */
const QUERIES: Record<string, string> = {
  getGate: '?revision=2026-07-28',
  dashboardNodeLabels: '',
};

beforeAll(async () => {
  poller = await startLocalPoller();
  peers.push(await startPeer('v2-modern', { name: 'contract-node', version: '2.0.0' }));
  peers.push(await startPeer('v1-stateless', { name: 'contract-node', version: '1.0.0' }));
  gated = await startFaultPeer((_req, res) => {
    res.writeHead(401, { 'www-authenticate': 'Bearer realm="mcp", scope="mcp:read"' });
    res.end();
  });
  const urls = [...peers.map((p) => p.url), gated.url];
  const created = await call('POST', '/api/v1/balancers', {
    name: 'contract',
    publicUrl: urls[0],
    nodeUrls: urls,
    samplesPerCycle: 2,
    allowLegacy: true,
  });
  expect(created.status).toBe(201);
  params.id = String(created.json?.id);
  const probed = await call('POST', '/api/v1/balancers/{id}/probe');
  expect(probed.status).toBe(200);
  const nodes = await call('GET', '/api/v1/balancers/{id}/nodes');
  const nodeIds = (nodes.json?.items as Array<{ id: string }>).map((n) => n.id);
  QUERIES.dashboardNodeLabels = `?ids=${nodeIds.join(',')}`;
  expect(
    (
      await call('POST', '/api/v1/balancers/{id}/rollouts', {
        target: { era: 'modern' },
        deadline: Date.now() + 3_600_000,
      })
    ).status,
  ).toBe(201);
  const hook = await call('POST', '/api/v1/webhooks', {
    name: 'contract-hook',
    url: 'http://127.0.0.1:9/hook',
  });
  expect(hook.status, JSON.stringify(hook.json)).toBe(201);
  const sink = await call('POST', '/api/v1/alert-sinks', { name: 'am', urls: ['http://127.0.0.1:9/'] });
  expect(sink.status, JSON.stringify(sink.json)).toBe(201);
  expect((await call('POST', '/api/v1/tokens', { name: 'ci', scope: 'read' })).status).toBe(201);
  // A live dashboard session for GET /api/v1/sessions to list: the admin secret's login.
  expect((await call('POST', '/api/v1/session', { secret: ADMIN })).status).toBe(200);
  // A stdio target comes only from the config file: one real SDK server launched as a command.
  const { applyConfig } = await import('@/lib/config/apply');
  const { parseConfig } = await import('@/lib/config/load');
  const { parseSettings } = await import('@/lib/settings');
  const { getStore } = await import('@/db/index');
  const { peerScript } = await import('../host-check/fixtures');
  const config = `version: 1\nstdio:\n  - name: contract-stdio\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(peerScript('v2-stdio'))}, --name, contract-stdio]\n`;
  await applyConfig(
    await getStore({ settings: processSettings() }),
    parseConfig(config, path.join(dir, 'erawatch.config.yaml'), parseSettings({})),
  );
  const stdio = (await call('GET', '/api/v1/stdio-targets')).json?.items as Array<{
    id: string;
    name: string;
  }>;
  Object.assign(params, {
    webhookId: String(hook.json?.id),
    sinkId: String(sink.json?.id),
    nodeId: nodeIds[0],
    stdioId: stdio.find((t) => t.name === 'contract-stdio')?.id ?? '',
  });
}, 180_000);

afterAll(async () => {
  await poller?.stop();
  for (const p of peers) await p.stop();
  await gated?.close();
  const { getStore } = await import('@/db/index');
  await (await getStore({ settings: processSettings() })).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The GETs whose success answer is JSON with a schema in the route table. */
const documentedGets = routeEntries().filter((r) => r.method === 'GET' && r.response !== undefined);

/** Path parameters by the resource the path names. */
function paramsFor(p: string): Record<string, string> {
  if (p.startsWith('/api/v1/webhooks/')) return { id: params.webhookId ?? '' };
  if (p.startsWith('/api/v1/alert-sinks/')) return { id: params.sinkId ?? '' };
  if (p.startsWith('/api/v1/stdio-targets/')) return { id: params.stdioId ?? '' };
  if (p.includes('/nodes/{id}')) return { id: params.nodeId ?? '' };
  return { id: params.id ?? '' };
}

describe('documented GET responses against their schemas', () => {
  it('covers the API and the dashboard read model', () => {
    expect(documentedGets.map((r) => r.operationId)).toEqual(
      expect.arrayContaining(['getBalancer', 'getNode', 'getGate', 'listEvents', 'dashboardBalancer']),
    );
  });

  it.each(documentedGets.map((r) => [r.operationId, r] as const))('%s', async (_id, r) => {
    const saved = { ...params };
    Object.assign(params, paramsFor(r.path));
    const res = await call('GET', r.path, undefined, QUERIES[r.operationId] ?? '');
    Object.assign(params, saved);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const schema = r.response as z.ZodType;
    const parsed = schema.safeParse(res.json);
    expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
    // zod drops keys a schema does not name: equal after parsing means nothing undocumented was sent.
    expect(parsed.data).toEqual(res.json);
  });

  it('the balancer has what the contract promises: an era split, an auth-gated node, evidence steps', async () => {
    const detail = (await call('GET', '/api/v1/balancers/{id}')).json as {
      analysis: { status: string; degradedNodes: Array<{ authGated: boolean }> };
      nodes: Array<{ state: { verdict: { evidence: unknown[] } } | null }>;
    };
    expect(detail.analysis.status).toBe('non-uniform');
    expect(detail.analysis.degradedNodes.map((d) => d.authGated)).toEqual([true]);
    expect(detail.nodes.every((n) => (n.state?.verdict.evidence.length ?? 0) > 0)).toBe(true);
  });
});

describe('a stored value that does not parse', () => {
  it('answers 500 stored_data_invalid on the API and the dashboard, not a silent null', async () => {
    const { getStore } = await import('@/db/index');
    const { eq } = await import('drizzle-orm');
    const store = await getStore({ settings: processSettings() });
    const { balancerStates } = store.t;
    const [before] = await store.read((db) =>
      db
        .select({ analysis: balancerStates.analysis })
        .from(balancerStates)
        .where(eq(balancerStates.balancerId, params.id ?? '')),
    );
    await store.write((db) =>
      db
        .update(balancerStates)
        .set({ analysis: { state: 'sideways', partition: 'none' } })
        .where(eq(balancerStates.balancerId, params.id ?? '')),
    );
    try {
      for (const p of ['/api/v1/balancers/{id}', '/dashboard-data/balancers/{id}']) {
        const res = await call('GET', p);
        expect(res.status).toBe(500);
        expect(res.json?.type).toBe('https://erawatch.dev/problems/stored_data_invalid');
        expect(String(res.json?.detail)).toContain('stored balancer analysis is invalid');
      }
    } finally {
      await store.write((db) =>
        db
          .update(balancerStates)
          .set({ analysis: before?.analysis })
          .where(eq(balancerStates.balancerId, params.id ?? '')),
      );
    }
    expect((await call('GET', '/api/v1/balancers/{id}')).status).toBe(200);
  });
});

describe('an analysis stored before the version field', () => {
  // As the poller stored it before `v`: the analysis's own names (`state`, `isDegraded`, the nodes under
  // `degraded`, `at`), and none of the fields that came later.
  const v1 = (balancerId: string) => ({
    balancerId,
    at: 1_000,
    state: 'non-uniform',
    severity: 'era-split',
    partition: [
      {
        key: 'k-modern',
        fingerprint: {
          era: 'modern',
          negotiatedVersion: '2026-07-28',
          supported: ['2026-07-28'],
          servedEras: 'modern-only',
          serverName: 'shop',
          serverVersion: '2.0.0',
        },
        nodeIds: ['nod_a'],
        sampleCount: 0,
        sampleNodeIds: [],
      },
      {
        key: 'k-legacy',
        fingerprint: {
          era: 'legacy',
          negotiatedVersion: '2025-11-25',
          supported: ['2025-11-25'],
          servedEras: 'legacy-only',
          serverName: 'shop',
          serverVersion: '1.0.0',
        },
        nodeIds: ['nod_b'],
        sampleCount: 0,
        sampleNodeIds: [],
      },
    ],
    degraded: [{ nodeId: 'nod_c', url: 'http://127.0.0.1:9/mcp', reason: 'refused', anomaly: null }],
    unavailableSamples: [{ nodeId: null, url: 'http://127.0.0.1:9/mcp', reason: 'timeout' }],
    isDegraded: true,
    flapping: [],
    cacheHazard: {
      maxTtlMs: null,
      availableSamples: 0,
      contradictingSamples: 0,
      contradictingShare: null,
      differingSamples: 0,
    },
    gates: [{ revision: '2026-07-28', ready: false, reasons: ['nod_b is legacy'] }],
    window: null,
    rolling: false,
    holdAlerts: false,
    displayStatus: 'era-split',
    counts: { nodes: 3, availableNodes: 2, samples: 1, availableSamples: 0 },
  });

  it('is read in the API names, its missing fields at their defaults; the next write stores the version', async () => {
    const { getStore } = await import('@/db/index');
    const { eq } = await import('drizzle-orm');
    const store = await getStore({ settings: processSettings() });
    const { balancerStates } = store.t;
    const where = eq(balancerStates.balancerId, params.id ?? '');
    const [before] = await store.read((db) =>
      db
        .select({ analysis: balancerStates.analysis, analyzedAt: balancerStates.analyzedAt })
        .from(balancerStates)
        .where(where),
    );
    // What the current poller writes carries the version and the API's names.
    expect(before?.analysis).toMatchObject({ v: 2, status: 'non-uniform', degraded: true });
    expect(before?.analysis).not.toHaveProperty('state');
    await store.write((db) =>
      db
        .update(balancerStates)
        .set({ analysis: v1(params.id ?? '') })
        .where(where),
    );
    try {
      for (const p of ['/api/v1/balancers/{id}', '/dashboard-data/balancers/{id}']) {
        const res = await call('GET', p);
        expect(res.status, JSON.stringify(res.json)).toBe(200);
        const analysis = (res.json as { analysis: Record<string, unknown> }).analysis;
        expect(analysis).toMatchObject({
          status: 'non-uniform',
          severity: 'era-split',
          displayStatus: 'era-split',
          degraded: true,
          degradedNodes: [
            {
              nodeId: 'nod_c',
              url: 'http://127.0.0.1:9/mcp',
              reason: 'refused',
              anomaly: null,
              authGated: false,
            },
          ],
          unavailableSamples: [
            { nodeId: null, url: 'http://127.0.0.1:9/mcp', reason: 'timeout', authGated: false },
          ],
          reasons: [],
          unplacedSamples: 0,
          regionSplit: false,
          regions: [],
          regionPartition: [],
          missingRegions: [],
          gates: [{ revision: '2026-07-28', ready: false, reasons: ['nod_b is legacy'] }],
        });
        // The row's time (a quiet cycle may have moved it on since), not the JSON's.
        expect(analysis.analyzedAt).toBeGreaterThanOrEqual(before?.analyzedAt ?? Infinity);
        expect(analysis.partition).toEqual([
          expect.objectContaining({ key: 'k-modern', toolNames: null, catalogDiff: null }),
          expect.objectContaining({ key: 'k-legacy', toolNames: null, catalogDiff: null }),
        ]);
        for (const old of ['state', 'isDegraded', 'at', 'v', 'balancerId'])
          expect(analysis).not.toHaveProperty(old);
      }
      const detail = routeEntries().find((r) => r.operationId === 'getBalancer');
      const res = await call('GET', '/api/v1/balancers/{id}');
      const parsed = (detail?.response as z.ZodType).safeParse(res.json);
      expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
      expect(parsed.data).toEqual(res.json);
    } finally {
      await store.write((db) => db.update(balancerStates).set({ analysis: before?.analysis }).where(where));
    }
  });
});
