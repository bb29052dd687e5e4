// A 1,000-node balancer through the route handlers, as the server calls them, on both engines: the node rows
// query (every filter, a stable order across cycles, cursor pages that cover every node once, 400 on bad
// values), ETag revalidation (304 with no body), responses that count a group instead of listing it, and gate
// reasons whose filters select exactly the nodes they name. The nodes are written by the cycle writer, as a
// poll cycle writes them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processSettings } from '@/lib/settings';
import type { Verdict } from '@/lib/probe/types';
import { openReader, storeLocation } from '../../support/store';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-node-rows-'));
const location = await storeLocation(dir, 'node-rows.db');
process.env.ERAWATCH_DB = location;
process.env.ERAWATCH_ADMIN_SECRET = 'node-rows-admin-secret-0123456789';
process.env.ERAWATCH_BIND = '127.0.0.1';
process.env.ERAWATCH_RATE_LIMIT = '0';
process.env.ERAWATCH_AUTH_FAILURE_LIMIT = '0';

const { getStore } = await import('@/db/index');
const { createBalancer } = await import('@/lib/balancers');
const { listNodes } = await import('@/db/queries/nodes');
const { writeSyntheticCycle } = await import('@/bench/support/synthetic-cycle');

type Handler = (req: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response>;
const APP = path.resolve(import.meta.dirname, '../../../app');
const ADMIN = process.env.ERAWATCH_ADMIN_SECRET;
const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';
const N = 1_000;
const T1 = Date.UTC(2026, 11, 6, 10, 0, 0);

type Kind = 'modern' | 'dual' | 'legacy' | 'down' | 'gated';

/** The fleet: mostly modern, every 7th legacy, every 11th dual-era, every 50th down, every 97th auth-gated. */
function kindOf(i: number): Kind {
  if (i % 97 === 0) return 'gated';
  if (i % 50 === 0) return 'down';
  if (i % 7 === 0) return 'legacy';
  if (i % 11 === 0) return 'dual';
  return 'modern';
}

const spec = Array.from({ length: N }, (_, i) => ({
  id: `nod_rows_${String(i).padStart(4, '0')}`,
  kind: kindOf(i),
  url: `http://search-${i}.pods.example:8080/mcp`,
  address: `10.1.${Math.floor(i / 200)}.${i % 200}`,
  latency: 5 + (i % 13),
}));

function verdictOf(s: (typeof spec)[number], at: number): Verdict {
  const base = {
    url: s.url,
    probedAt: at,
    durationMs: s.latency,
    address: s.address,
    servedBy: null,
    anomaly: null,
    cache: null,
    evidence: [],
    initializeSent: false,
  };
  if (s.kind === 'down' || s.kind === 'gated')
    return {
      ...base,
      verdict: 'unavailable',
      reason: s.kind === 'down' ? 'timeout' : 'auth_required',
      negotiatedVersion: null,
      supported: [],
      servedEras: 'unknown',
      serverInfo: null,
    };
  if (s.kind === 'legacy')
    return {
      ...base,
      verdict: 'legacy',
      reason: 'legacy_positive_evidence',
      negotiatedVersion: LEGACY,
      supported: [LEGACY],
      servedEras: 'legacy-only',
      serverInfo: { name: 'search', version: '1.0.0' },
      initializeSent: true,
    };
  const dual = s.kind === 'dual';
  return {
    ...base,
    verdict: 'modern',
    reason: 'discover_result',
    negotiatedVersion: MODERN,
    supported: dual ? [MODERN, LEGACY] : [MODERN],
    servedEras: dual ? 'dual-era' : 'modern-only',
    serverInfo: { name: 'search', version: '2.0.0' },
  };
}

let balancerId = '';

/** One cycle of the whole fleet at `at`, written as the poller writes it (the first one creates the nodes). */
async function writeCycle(at: number): Promise<void> {
  const store = await getStore({ settings: processSettings() });
  const known = new Map((await listNodes(store, balancerId)).map((n) => [n.id, n]));
  const reader = await openReader(location);
  const seqs = new Map(
    (await reader.all<{ id: string; seq: number | null }>('SELECT id, seq FROM nodes')).map((r) => [
      r.id,
      r.seq,
    ]),
  );
  await reader.close();
  const results = spec.map((s) => {
    const st = known.get(s.id)?.state ?? null;
    return {
      nodeId: s.id,
      seq: seqs.get(s.id) ?? null,
      verdict: verdictOf(s, at),
      prior: st && {
        fingerprintKey: st.fingerprintKey,
        verdictDigest: null,
        lastAvailableKey: st.fingerprintKey === 'unavailable' ? null : st.fingerprintKey,
        fingerprintSince: st.fingerprintSince,
        probes: st.probes,
        failures: st.failures,
        consecutiveFailures: st.consecutiveFailures,
        lastSeenAt: known.get(s.id)?.lastSeenAt ?? at,
        probedAt: st.probedAt,
      },
    };
  });
  await writeSyntheticCycle(store, {
    balancerId,
    at,
    newNodes: known.size > 0 ? [] : spec.map((s) => ({ id: s.id, url: s.url, address: s.address })),
    results,
    gateRevisions: [MODERN],
  });
}

async function handlerOf(tablePath: string): Promise<Handler> {
  const file = path.join(
    APP,
    ...tablePath.split('/').map((s) => s.replace(/^\{(\w+)\}$/, '[$1]')),
    'route.ts',
  );
  const h = ((await import(file)) as Record<string, Handler | undefined>).GET;
  if (!h) throw new Error(`no GET in ${file}`);
  return h;
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: Record<string, unknown> | null;
}

async function get(tablePath: string, query = '', headers: Record<string, string> = {}): Promise<Answer> {
  const url = tablePath.replace('{id}', balancerId);
  const res = await (
    await handlerOf(tablePath)
  )(
    new Request(`http://127.0.0.1:3999${url}${query}`, {
      headers: { host: '127.0.0.1:3999', authorization: `Bearer ${ADMIN}`, ...headers },
    }),
    { params: Promise.resolve({ id: balancerId }) },
  );
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    json: text ? (JSON.parse(text) as Record<string, unknown>) : null,
  };
}

const API_NODES = '/api/v1/balancers/{id}/nodes';
const UI_NODES = '/dashboard-data/balancers/{id}/nodes';

interface Row {
  id: string;
  url: string;
  groupKey?: string | null;
  state: { region?: string } | null;
}
interface RowPage {
  items: Row[];
  matched: number;
  total: number;
  nextCursor: string | null;
}

/** Every page of a query, following nextCursor. */
async function allPages(
  tablePath: string,
  params: Record<string, string>,
): Promise<{ ids: string[]; pages: RowPage[] }> {
  const pages: RowPage[] = [];
  let cursor: string | null = null;
  do {
    const q = new URLSearchParams({ ...params, ...(cursor ? { cursor } : {}) });
    const res = await get(tablePath, `?${q.toString()}`);
    expect(res.status, res.text).toBe(200);
    const page = res.json as unknown as RowPage;
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor !== null && pages.length <= N);
  return { ids: pages.flatMap((p) => p.items.map((r) => r.id)), pages };
}

const idsOf = (pred: (s: (typeof spec)[number]) => boolean) =>
  spec
    .filter(pred)
    .map((s) => s.id)
    .sort();

let legacyGroup = '';

beforeAll(async () => {
  const store = await getStore({ settings: processSettings() });
  const b = await createBalancer(store, { name: 'big', publicUrl: 'http://search.example/mcp' }, T1);
  balancerId = b.id;
  await writeCycle(T1);
  const detail = await get('/api/v1/balancers/{id}');
  const partition = (
    detail.json?.analysis as { partition: Array<{ key: string; fingerprint: { era: string } }> }
  ).partition;
  legacyGroup = partition.find((g) => g.fingerprint.era === 'legacy')?.key ?? '';
  expect(legacyGroup).not.toBe('');
}, 180_000);

afterAll(async () => {
  await (await getStore({ settings: processSettings() })).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('filters', () => {
  const cases: Array<[string, Record<string, string>, () => string[]]> = [
    ['clientEra=legacy', { clientEra: 'legacy' }, () => idsOf((s) => s.kind === 'legacy')],
    [
      'clientEra=unavailable',
      { clientEra: 'unavailable' },
      () => idsOf((s) => s.kind === 'down' || s.kind === 'gated'),
    ],
    ['served=dual-era', { served: 'dual-era' }, () => idsOf((s) => s.kind === 'dual')],
    ['availability=auth-gated', { availability: 'auth-gated' }, () => idsOf((s) => s.kind === 'gated')],
    ['availability=unavailable', { availability: 'unavailable' }, () => idsOf((s) => s.kind === 'down')],
    ['lacks a revision (available nodes only)', { lacks: MODERN }, () => idsOf((s) => s.kind === 'legacy')],
    ['group=KEY', { group: '' }, () => idsOf((s) => s.kind === 'legacy')],
    ['region=default', { region: 'default' }, () => idsOf(() => true)],
    ['region of nobody', { region: 'eu-west' }, () => []],
    ['q: a URL, case-insensitive', { q: 'SEARCH-42.' }, () => ['nod_rows_0042']],
    ['q: an address', { q: '10.1.4.199' }, () => ['nod_rows_0999']],
    [
      'filters together',
      { clientEra: 'modern', served: 'dual-era', q: 'search-1' },
      () => idsOf((s) => s.kind === 'dual' && s.url.includes('search-1')),
    ],
  ];

  it.each(cases)(
    '%s selects exactly its nodes, on the API and the matrix',
    async (_name, params, expected) => {
      const query = { ...params, ...(params.group === '' ? { group: legacyGroup } : {}), limit: '1000' };
      for (const route of [API_NODES, UI_NODES]) {
        const { ids, pages } = await allPages(route, query);
        expect([...ids].sort()).toEqual(expected());
        expect(pages[0]?.matched).toBe(expected().length);
        expect(pages[0]?.total).toBe(N);
      }
    },
  );

  it('a matrix row carries its group key: the group filter and the rows agree', async () => {
    const { pages } = await allPages(UI_NODES, { group: legacyGroup, limit: '1000' });
    expect(pages.flatMap((p) => p.items).every((r) => r.groupKey === legacyGroup)).toBe(true);
    const down = await allPages(UI_NODES, { clientEra: 'unavailable', limit: '1000' });
    expect(down.pages.flatMap((p) => p.items).every((r) => r.groupKey === null)).toBe(true);
  });
});

describe('sort and pages', () => {
  const SORTS = ['name', 'url', 'clientEra', 'served', 'group', 'region', 'probedAt', 'latency'];

  it('sorts by the column asked, ties by node id, and keeps the same order after another cycle', async () => {
    const before: Record<string, string[]> = {};
    for (const sort of SORTS)
      for (const order of ['asc', 'desc'])
        before[`${sort} ${order}`] = (await allPages(API_NODES, { sort, order, limit: '1000' })).ids;
    const byUrl = before['url asc'] ?? [];
    expect(byUrl).toEqual([...spec].sort((a, b) => (a.url < b.url ? -1 : 1)).map((s) => s.id));
    // Equal values keep node id order, in either direction.
    const byEraDesc = before['clientEra desc'] ?? [];
    const rank = (id: string) => ['modern', 'legacy', 'unavailable'].indexOf(eraOf(id));
    for (let i = 1; i < byEraDesc.length; i++) {
      const [a, b] = [byEraDesc[i - 1] ?? '', byEraDesc[i] ?? ''];
      expect(rank(a) > rank(b) || (rank(a) === rank(b) && a < b)).toBe(true);
    }
    await writeCycle(T1 + 60_000);
    for (const sort of SORTS)
      for (const order of ['asc', 'desc'])
        expect((await allPages(API_NODES, { sort, order, limit: '1000' })).ids, `${sort} ${order}`).toEqual(
          before[`${sort} ${order}`],
        );
  }, 120_000);

  it.each([
    [API_NODES, 'name', 'asc', 37],
    [UI_NODES, 'clientEra', 'desc', 64],
    [UI_NODES, 'latency', 'asc', 100],
  ])('pages of %s by %s %s (%i a page) cover every node once', async (route, sort, order, limit) => {
    const { ids, pages } = await allPages(route, { sort, order, limit: String(limit) });
    expect(ids).toHaveLength(N);
    expect(new Set(ids).size).toBe(N);
    expect(pages).toHaveLength(Math.ceil(N / limit));
    expect(pages.at(-1)?.nextCursor).toBeNull();
    expect(pages.slice(0, -1).every((p) => p.items.length === limit)).toBe(true);
  });

  it('answers 100 rows by default, sorted by name', async () => {
    const res = await get(UI_NODES);
    const page = res.json as unknown as RowPage;
    expect(page.items).toHaveLength(100);
    expect(page.nextCursor).not.toBeNull();
    expect(page.matched).toBe(N);
  });

  it('the API answers every node of a 1,000-node balancer without a limit, as before it paged', async () => {
    const res = await get(API_NODES);
    const page = res.json as unknown as RowPage;
    expect(page.items).toHaveLength(N);
    expect(page.nextCursor).toBeNull();
  });
});

function eraOf(id: string): string {
  const kind = spec.find((s) => s.id === id)?.kind;
  return kind === 'legacy' ? 'legacy' : kind === 'down' || kind === 'gated' ? 'unavailable' : 'modern';
}

describe('bad query values', () => {
  it.each([
    ['limit', '0'],
    ['limit', '1001'],
    ['limit', 'many'],
    ['sort', 'colour'],
    ['order', 'up'],
    ['clientEra', 'ancient'],
    ['served', 'some'],
    ['availability', 'maybe'],
    ['lacks', 'yesterday'],
    ['region', 'EU West'],
    ['group', 'not a key!'],
    ['q', '   '],
    ['cursor', 'bm90LWpzb24'],
  ])('%s=%s is 400 naming the parameter, on both routes', async (name, value) => {
    for (const route of [API_NODES, UI_NODES]) {
      const res = await get(route, `?${new URLSearchParams({ [name]: value }).toString()}`);
      expect(res.status, res.text).toBe(400);
      expect(res.json?.type).toBe('https://erawatch.dev/problems/invalid_query');
      expect(res.json?.errors).toEqual([expect.objectContaining({ pointer: `/${name}`, in: 'query' })]);
    }
  });

  it('a cursor of another sort order is 400', async () => {
    const first = (await get(API_NODES, '?sort=url&limit=5')).json as unknown as RowPage;
    const res = await get(API_NODES, `?sort=name&limit=5&cursor=${first.nextCursor ?? ''}`);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.json?.errors)).toMatch(/another sort order/);
  });
});

describe('ETag', () => {
  const READS = ['/api/v1/balancers/{id}', API_NODES, '/dashboard-data/balancers/{id}', UI_NODES];

  it.each(READS)('%s answers a weak ETag, and 304 with no body while it holds', async (route) => {
    const first = await get(route);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]+"$/);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    const again = await get(route, '', { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    const listed = await get(route, '', { 'if-none-match': `W/"other", ${etag}` });
    expect(listed.status).toBe(304);
    const stale = await get(route, '', { 'if-none-match': 'W/"not-this-one"' });
    expect(stale.status).toBe(200);
    expect(stale.text).toBe(first.text);
  });

  it('a cycle that changes the nodes changes the tag: the old one gets the new body', async () => {
    const before = await get(UI_NODES);
    await writeCycle(T1 + 120_000);
    const after = await get(UI_NODES, '', { 'if-none-match': before.headers.get('etag') ?? '' });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
  }, 60_000);
});

describe('a 1,000-node balancer', () => {
  it('no partition group, unavailable list or page lists every node id of a group', async () => {
    const largest = idsOf((s) => s.kind === 'modern');
    const legacy = idsOf((s) => s.kind === 'legacy');
    const bodies = [
      (await get('/dashboard-data/balancers/{id}')).text,
      JSON.stringify((await get('/api/v1/balancers/{id}')).json?.analysis),
      (await get(UI_NODES)).text,
      // A node list lists nodes only when asked for them: a screen's worth here (the API's default is a
      // whole 1,000-node balancer, as before it paged).
      (await get(API_NODES, '?limit=100')).text,
      (await get('/api/v1/balancers/{id}/gate', `?revision=${MODERN}`)).text,
    ];
    for (const body of bodies) {
      for (const group of [largest, legacy]) expect(group.every((id) => body.includes(id))).toBe(false);
    }
    const analysis = (await get('/dashboard-data/balancers/{id}')).json?.analysis as {
      partition: Array<{ nodeCount: number; nodeIds?: unknown }>;
      degradedNodes: unknown[];
      degradedNodeCount: number;
    };
    expect(analysis.partition.every((g) => g.nodeIds === undefined)).toBe(true);
    expect(analysis.partition.reduce((n, g) => n + g.nodeCount, 0)).toBe(
      idsOf((s) => !['down', 'gated'].includes(s.kind)).length,
    );
    expect(analysis.degradedNodeCount).toBe(idsOf((s) => s.kind === 'down' || s.kind === 'gated').length);
    expect(analysis.degradedNodes.length).toBeLessThanOrEqual(50);
  });
});

describe('gate details', () => {
  it('each reason with nodes gives the filter that selects exactly the nodes it counts and names', async () => {
    const res = await get('/api/v1/balancers/{id}/gate', `?revision=${MODERN}`);
    const gate = res.json as {
      reasons: string[];
      details: Array<{ text: string; nodes: { count: number; filter: Record<string, string> } | null }>;
    };
    expect(gate.details.map((d) => d.text)).toEqual(gate.reasons);
    const withNodes = gate.details.filter((d) => d.nodes !== null);
    expect(withNodes.map((d) => d.nodes?.filter)).toEqual([
      { availability: 'unavailable' },
      { lacks: MODERN },
      { availability: 'auth-gated' },
    ]);
    for (const d of withNodes) {
      const { pages } = await allPages(API_NODES, { ...d.nodes?.filter, sort: 'url', limit: '1000' });
      const rows = pages.flatMap((p) => p.items);
      expect(rows).toHaveLength(d.nodes?.count ?? -1);
      // The reason names its first nodes by URL (no names here), sorted, then how many more.
      const named = rows
        .map((r) => r.url)
        .sort()
        .slice(0, 10);
      for (const url of named) expect(d.text).toContain(url);
      if (rows.length > 10) expect(d.text).toContain(`and ${rows.length - 10} more`);
      expect(d.text).not.toMatch(/nod_rows_/);
    }
  });
});

describe('a second region', () => {
  it('adds a matrix row per node it probed; region selects its rows, and pages cover every row once', async () => {
    const store = await getStore({ settings: processSettings() });
    const reader = await openReader(location);
    const seqs = new Map(
      (await reader.all<{ id: string; seq: number | null }>('SELECT id, seq FROM nodes')).map((r) => [
        r.id,
        r.seq,
      ]),
    );
    await reader.close();
    const probed = spec.slice(0, 10);
    const at = T1 + 180_000;
    const results = probed.map((s) => ({
      nodeId: s.id,
      seq: seqs.get(s.id) ?? null,
      verdict: verdictOf(s, at),
    }));
    await writeSyntheticCycle(store, {
      balancerId,
      at,
      region: 'eu-west',
      newNodes: [],
      results,
      gateRevisions: [MODERN],
    });
    const eu = await allPages(UI_NODES, { region: 'eu-west', limit: '1000' });
    expect([...eu.ids].sort()).toEqual(probed.map((s) => s.id));
    expect(eu.pages[0]?.items.every((r) => r.state?.region === 'eu-west')).toBe(true);
    expect(eu.pages[0]?.total).toBe(N + probed.length);
    const api = await allPages(API_NODES, { region: 'eu-west', limit: '1000' });
    expect([...api.ids].sort()).toEqual(probed.map((s) => s.id));
    expect(api.pages[0]?.total).toBe(N);
    const rows = await allPages(UI_NODES, { sort: 'region', limit: '77' });
    const keys = rows.pages.flatMap((p) => p.items.map((r) => `${r.id}@${r.state?.region ?? ''}`));
    expect(keys).toHaveLength(N + probed.length);
    expect(new Set(keys).size).toBe(N + probed.length);
  }, 60_000);
});
