// The REST routes called as real Request → Response functions against a real SQLite file in a temp dir.
import { processSettings } from '@/lib/settings';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeLocation } from '../../support/store';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-api-'));
process.env.ERAWATCH_DB = await storeLocation(dir, 'api.db');
process.env.ERAWATCH_ADMIN_SECRET = 'admin-secret-for-tests-0123456789';
process.env.ERAWATCH_BIND = '127.0.0.1';
// The balancers registered here point at loopback ports.
process.env.ERAWATCH_ALLOW_LOOPBACK = '1';
process.env.ERAWATCH_RATE_LIMIT = '0';
process.env.ERAWATCH_AUTH_FAILURE_LIMIT = '0';

type Handler = (req: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response>;

const ADMIN = process.env.ERAWATCH_ADMIN_SECRET;
const BASE = 'http://127.0.0.1:3999';

interface CallOptions {
  method?: string;
  token?: string | null;
  body?: unknown;
  rawBody?: string;
  contentType?: string;
  params?: Record<string, string>;
  headers?: Record<string, string>;
}

async function call(handler: Handler, url: string, opts: CallOptions = {}) {
  const headers: Record<string, string> = { host: '127.0.0.1:3999', ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.rawBody !== undefined || opts.body !== undefined) {
    body = opts.rawBody ?? JSON.stringify(opts.body);
    headers['content-type'] = opts.contentType ?? 'application/json';
  }
  const res = await handler(new Request(`${BASE}${url}`, { method: opts.method ?? 'GET', headers, body }), {
    params: Promise.resolve(opts.params ?? {}),
  });
  const text = await res.text();
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    headers: res.headers,
    json:
      text && /json/.test(res.headers.get('content-type') ?? '')
        ? (JSON.parse(text) as Record<string, unknown>)
        : null,
  };
}

let routes: Record<string, Record<string, Handler>>;
function route(name: string, method: string): Handler {
  const handler = routes[name]?.[method];
  if (!handler) throw new Error(`no ${method} handler in ${name}`);
  return handler;
}
let readToken = '';
let writeToken = '';
let revokedToken = '';

beforeAll(async () => {
  routes = {
    balancers: (await import('@/app/api/v1/balancers/route')) as unknown as Record<string, Handler>,
    balancer: (await import('@/app/api/v1/balancers/[id]/route')) as unknown as Record<string, Handler>,
    gate: (await import('@/app/api/v1/balancers/[id]/gate/route')) as unknown as Record<string, Handler>,
    rollouts: (await import('@/app/api/v1/balancers/[id]/rollouts/route')) as unknown as Record<
      string,
      Handler
    >,
    close: (await import('@/app/api/v1/rollouts/[id]/close/route')) as unknown as Record<string, Handler>,
    events: (await import('@/app/api/v1/events/route')) as unknown as Record<string, Handler>,
    tokens: (await import('@/app/api/v1/tokens/route')) as unknown as Record<string, Handler>,
    token: (await import('@/app/api/v1/tokens/[id]/route')) as unknown as Record<string, Handler>,
    webhooks: (await import('@/app/api/v1/webhooks/route')) as unknown as Record<string, Handler>,
    webhook: (await import('@/app/api/v1/webhooks/[id]/route')) as unknown as Record<string, Handler>,
    session: (await import('@/app/api/v1/session/route')) as unknown as Record<string, Handler>,
    openapi: (await import('@/app/api/v1/openapi.json/route')) as unknown as Record<string, Handler>,
    nodes: (await import('@/app/api/v1/balancers/[id]/nodes/route')) as unknown as Record<string, Handler>,
    probe: (await import('@/app/api/v1/balancers/[id]/probe/route')) as unknown as Record<string, Handler>,
    node: (await import('@/app/api/v1/nodes/[id]/route')) as unknown as Record<string, Handler>,
    history: (await import('@/app/api/v1/nodes/[id]/history/route')) as unknown as Record<string, Handler>,
    rotate: (await import('@/app/api/v1/webhooks/[id]/rotate-secret/route')) as unknown as Record<
      string,
      Handler
    >,
    test: (await import('@/app/api/v1/webhooks/[id]/test/route')) as unknown as Record<string, Handler>,
    deliveries: (await import('@/app/api/v1/webhooks/[id]/deliveries/route')) as unknown as Record<
      string,
      Handler
    >,
    redeliver:
      (await import('@/app/api/v1/webhooks/[id]/deliveries/[deliveryId]/redeliver/route')) as unknown as Record<
        string,
        Handler
      >,
    metrics: (await import('@/app/(ops)/metrics/route')) as unknown as Record<string, Handler>,
  };
  const make = async (scope: string) => {
    const r = await call(route('tokens', 'POST'), '/api/v1/tokens', {
      method: 'POST',
      token: ADMIN,
      body: { name: `t-${scope}`, scope },
    });
    expect(r.status).toBe(201);
    return r.json as { id: string; token: string };
  };
  readToken = (await make('read')).token;
  writeToken = (await make('write')).token;
  const revoked = await make('write');
  revokedToken = revoked.token;
  const del = await call(route('token', 'DELETE'), `/api/v1/tokens/${revoked.id}`, {
    method: 'DELETE',
    token: ADMIN,
    params: { id: revoked.id },
  });
  expect(del.status).toBe(200);
});

afterAll(async () => {
  const { getStore } = await import('@/db/index');
  await (await getStore({ settings: processSettings() })).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const validBalancer = (name: string) => ({
  name,
  publicUrl: 'http://127.0.0.1:9/mcp',
  nodeUrls: ['http://127.0.0.1:9/a'],
});

describe('balancers', () => {
  it('creates, reads, lists, updates and deletes, never echoing header secrets', async () => {
    const created = await call(route('balancers', 'POST'), '/api/v1/balancers', {
      method: 'POST',
      token: writeToken,
      body: {
        ...validBalancer('crud-one'),
        headers: { authorization: 'Bearer probe-secret', 'x-key': 'env:PROBE_KEY' },
      },
    });
    expect(created.status).toBe(201);
    const id = created.json?.id as string;
    expect(created.headers.get('location')).toBe(`/api/v1/balancers/${id}`);
    expect(created.json?.headers).toEqual({ authorization: '[redacted]', 'x-key': 'env:PROBE_KEY' });
    expect(JSON.stringify(created.json)).not.toContain('probe-secret');

    const got = await call(route('balancer', 'GET'), `/api/v1/balancers/${id}`, {
      token: readToken,
      params: { id },
    });
    expect(got.status).toBe(200);
    expect(got.json?.name).toBe('crud-one');
    expect(got.json?.nodes).toEqual([]);
    expect(JSON.stringify(got.json)).not.toContain('probe-secret');

    // Sending the redacted value back keeps the stored secret; other fields change.
    const patched = await call(route('balancer', 'PATCH'), `/api/v1/balancers/${id}`, {
      method: 'PATCH',
      token: writeToken,
      params: { id },
      body: { samplesPerCycle: 7, headers: got.json?.headers },
    });
    expect(patched.status).toBe(200);
    expect(patched.json?.samplesPerCycle).toBe(7);
    expect(patched.json?.intervalMs).toBe(30_000);
    const { getBalancer } = await import('@/db/queries/balancers');
    const { getStore } = await import('@/db/index');
    expect(
      (await getBalancer(await getStore({ settings: processSettings() }), id)).headers.authorization,
    ).toBe('Bearer probe-secret');

    const list = await call(route('balancers', 'GET'), '/api/v1/balancers?limit=10', { token: readToken });
    expect(list.status).toBe(200);
    const item = (list.json?.items as Array<Record<string, unknown>>).find((b) => b.id === id);
    expect(item).toMatchObject({ name: 'crud-one', nodeUrlCount: 1, samplesPerCycle: 7 });
    expect(item).not.toHaveProperty('nodeUrls');
    expect(item).not.toHaveProperty('headers');

    const del = await call(route('balancer', 'DELETE'), `/api/v1/balancers/${id}`, {
      method: 'DELETE',
      token: writeToken,
      params: { id },
    });
    expect(del.status).toBe(204);
    const gone = await call(route('balancer', 'GET'), `/api/v1/balancers/${id}`, {
      token: readToken,
      params: { id },
    });
    expect(gone.status).toBe(404);
  });

  it('pages with a cursor', async () => {
    for (const n of ['page-a', 'page-b', 'page-c']) {
      const r = await call(route('balancers', 'POST'), '/api/v1/balancers', {
        method: 'POST',
        token: writeToken,
        body: validBalancer(n),
      });
      expect(r.status).toBe(201);
    }
    const first = await call(route('balancers', 'GET'), '/api/v1/balancers?limit=2&q=page-', {
      token: readToken,
    });
    expect((first.json?.items as Array<{ name: string }>).map((b) => b.name)).toEqual(['page-a', 'page-b']);
    const next = await call(
      route('balancers', 'GET'),
      `/api/v1/balancers?limit=2&q=page-&cursor=${String(first.json?.nextCursor)}`,
      { token: readToken },
    );
    expect((next.json?.items as Array<{ name: string }>).map((b) => b.name)).toEqual(['page-c']);
    expect(next.json?.nextCursor).toBeNull();
  });
});

describe('errors are problem+json and change nothing', () => {
  // Validation comes before the balancer is looked up: the unknown balancer 'x' answers 422, not 404.
  const openRollout = (body: unknown) =>
    call(route('rollouts', 'POST'), '/api/v1/balancers/x/rollouts', {
      method: 'POST',
      token: writeToken,
      params: { id: 'x' },
      body,
    });
  const cases: Array<{
    name: string;
    run: () => Promise<Awaited<ReturnType<typeof call>>>;
    status: number;
    code: string;
    pointer?: string;
  }> = [
    {
      name: 'malformed JSON',
      status: 400,
      code: 'malformed_json',
      run: () =>
        call(route('balancers', 'POST'), '/api/v1/balancers', {
          method: 'POST',
          token: writeToken,
          rawBody: '{"name": ',
        }),
    },
    {
      name: 'wrong content type',
      status: 415,
      code: 'unsupported_media_type',
      run: () =>
        call(route('balancers', 'POST'), '/api/v1/balancers', {
          method: 'POST',
          token: writeToken,
          rawBody: 'name=x',
          contentType: 'application/x-www-form-urlencoded',
        }),
    },
    {
      name: 'body too large',
      status: 413,
      code: 'body_too_large',
      run: () =>
        call(route('balancers', 'POST'), '/api/v1/balancers', {
          method: 'POST',
          token: writeToken,
          rawBody: JSON.stringify({ ...validBalancer('big'), pad: 'x'.repeat(300_000) }),
        }),
    },
    {
      name: 'invalid URL field',
      status: 422,
      code: 'validation_failed',
      pointer: '/publicUrl',
      run: () =>
        call(route('balancers', 'POST'), '/api/v1/balancers', {
          method: 'POST',
          token: writeToken,
          body: { name: 'bad-url', publicUrl: 'ftp://x' },
        }),
    },
    {
      name: 'invalid array item',
      status: 422,
      code: 'validation_failed',
      pointer: '/nodeUrls/1',
      run: () =>
        call(route('balancers', 'POST'), '/api/v1/balancers', {
          method: 'POST',
          token: writeToken,
          body: { ...validBalancer('bad-item'), nodeUrls: ['http://127.0.0.1:1/a', 'nope'] },
        }),
    },
    {
      name: 'deadline over interval',
      status: 422,
      code: 'validation_failed',
      pointer: '/timeoutMs',
      run: () =>
        call(route('balancers', 'POST'), '/api/v1/balancers', {
          method: 'POST',
          token: writeToken,
          body: { ...validBalancer('slow'), intervalMs: 5000, timeoutMs: 3000 },
        }),
    },
    {
      name: 'unknown field in update',
      status: 422,
      code: 'validation_failed',
      pointer: '/nmae',
      run: () =>
        call(route('balancer', 'PATCH'), '/api/v1/balancers/x', {
          method: 'PATCH',
          token: writeToken,
          params: { id: 'x' },
          body: { nmae: 'typo' },
        }),
    },
    {
      name: 'unknown balancer',
      status: 404,
      code: 'not_found',
      run: () =>
        call(route('balancer', 'GET'), '/api/v1/balancers/bal_missing', {
          token: readToken,
          params: { id: 'bal_missing' },
        }),
    },
    {
      name: 'bad limit',
      status: 400,
      code: 'invalid_query',
      pointer: '/limit',
      run: () => call(route('balancers', 'GET'), '/api/v1/balancers?limit=0', { token: readToken }),
    },
    {
      name: 'forged cursor',
      status: 400,
      code: 'invalid_query',
      pointer: '/cursor',
      run: () => call(route('events', 'GET'), '/api/v1/events?cursor=abc', { token: readToken }),
    },
    {
      name: 'unknown event type',
      status: 400,
      code: 'invalid_query',
      pointer: '/type',
      run: () => call(route('events', 'GET'), '/api/v1/events?type=node.exploded', { token: readToken }),
    },
    {
      name: 'gate without revision',
      status: 400,
      code: 'invalid_query',
      pointer: '/revision',
      run: () =>
        call(route('gate', 'GET'), '/api/v1/balancers/x/gate', { token: readToken, params: { id: 'x' } }),
    },
    {
      name: 'rollout with empty target',
      status: 422,
      code: 'validation_failed',
      pointer: '/target',
      run: () => openRollout({ target: {}, deadline: Date.now() + 60_000 }),
    },
    {
      name: 'rollout with an unknown era',
      status: 422,
      code: 'validation_failed',
      pointer: '/target/era',
      run: () => openRollout({ target: { era: 'ancient' }, deadline: Date.now() + 60_000 }),
    },
    {
      name: 'rollout with a fractional deadline',
      status: 422,
      code: 'validation_failed',
      pointer: '/deadline',
      run: () => openRollout({ target: { era: 'modern' }, deadline: Date.now() + 0.5 }),
    },
    {
      name: 'rollout with a deadline already past',
      status: 422,
      code: 'validation_failed',
      pointer: '/deadline',
      run: () => openRollout({ target: { era: 'modern' }, deadline: 1_000 }),
    },
    {
      name: 'token with bad scope',
      status: 422,
      code: 'validation_failed',
      pointer: '/scope',
      run: () =>
        call(route('tokens', 'POST'), '/api/v1/tokens', {
          method: 'POST',
          token: ADMIN,
          body: { name: 'x', scope: 'root' },
        }),
    },
    {
      name: 'webhook to a private address',
      status: 422,
      code: 'egress_refused',
      pointer: '/url',
      run: () =>
        call(route('webhooks', 'POST'), '/api/v1/webhooks', {
          method: 'POST',
          token: writeToken,
          body: { name: 'priv', url: 'http://10.1.2.3/hook' },
        }),
    },
    {
      name: 'webhook to cloud metadata',
      status: 422,
      code: 'egress_refused',
      pointer: '/url',
      run: () =>
        call(route('webhooks', 'POST'), '/api/v1/webhooks', {
          method: 'POST',
          token: writeToken,
          body: { name: 'meta', url: 'http://169.254.169.254/latest' },
        }),
    },
    {
      name: 'webhook with a malformed secret',
      status: 422,
      code: 'validation_failed',
      pointer: '/secret',
      run: () =>
        call(route('webhooks', 'POST'), '/api/v1/webhooks', {
          method: 'POST',
          token: writeToken,
          body: { name: 'sec', url: 'https://hooks.example.com/x', secret: 'hunter2' },
        }),
    },
  ];

  it.each(cases)('$name → $status $code', async (c) => {
    const before = await call(route('balancers', 'GET'), '/api/v1/balancers?limit=500', { token: readToken });
    const r = await c.run();
    expect(r.status).toBe(c.status);
    expect(r.type).toBe('application/problem+json');
    expect(r.json?.status).toBe(c.status);
    expect(r.json?.type).toBe(`https://erawatch.dev/problems/${c.code}`);
    expect(typeof r.json?.title).toBe('string');
    expect(String(r.json?.detail).length).toBeGreaterThan(5);
    if (c.pointer)
      expect((r.json?.errors as Array<{ pointer: string }>).map((e) => e.pointer)).toContain(c.pointer);
    const after = await call(route('balancers', 'GET'), '/api/v1/balancers?limit=500', { token: readToken });
    expect(after.json?.items).toEqual(before.json?.items);
  });

  it('a duplicate name is 409 and leaves the first balancer unchanged', async () => {
    const a = await call(route('balancers', 'POST'), '/api/v1/balancers', {
      method: 'POST',
      token: writeToken,
      body: validBalancer('dup'),
    });
    expect(a.status).toBe(201);
    const b = await call(route('balancers', 'POST'), '/api/v1/balancers', {
      method: 'POST',
      token: writeToken,
      body: { ...validBalancer('dup'), samplesPerCycle: 9 },
    });
    expect(b.status).toBe(409);
    expect(b.json?.type).toBe('https://erawatch.dev/problems/conflict');
    expect(String(b.json?.detail)).toContain("'dup'");
    const got = await call(route('balancer', 'GET'), `/api/v1/balancers/${String(a.json?.id)}`, {
      token: readToken,
      params: { id: String(a.json?.id) },
    });
    expect(got.json?.samplesPerCycle).toBe(4);
  });
});

describe('auth on every route', () => {
  const routeCases: Array<{
    name: string;
    handler: () => Handler;
    url: string;
    method: string;
    access: 'read' | 'write' | 'admin';
    body?: unknown;
    params?: Record<string, string>;
  }> = [
    {
      name: 'GET /balancers',
      handler: () => route('balancers', 'GET'),
      url: '/api/v1/balancers',
      method: 'GET',
      access: 'read',
    },
    {
      name: 'POST /balancers',
      handler: () => route('balancers', 'POST'),
      url: '/api/v1/balancers',
      method: 'POST',
      access: 'write',
      body: validBalancer('auth-x'),
    },
    {
      name: 'GET /balancers/{id}',
      handler: () => route('balancer', 'GET'),
      url: '/api/v1/balancers/x',
      method: 'GET',
      access: 'read',
      params: { id: 'x' },
    },
    {
      name: 'PATCH /balancers/{id}',
      handler: () => route('balancer', 'PATCH'),
      url: '/api/v1/balancers/x',
      method: 'PATCH',
      access: 'write',
      body: {},
      params: { id: 'x' },
    },
    {
      name: 'DELETE /balancers/{id}',
      handler: () => route('balancer', 'DELETE'),
      url: '/api/v1/balancers/x',
      method: 'DELETE',
      access: 'write',
      params: { id: 'x' },
    },
    {
      name: 'GET /balancers/{id}/gate',
      handler: () => route('gate', 'GET'),
      url: '/api/v1/balancers/x/gate?revision=2026-07-28',
      method: 'GET',
      access: 'read',
      params: { id: 'x' },
    },
    {
      name: 'POST /balancers/{id}/rollouts',
      handler: () => route('rollouts', 'POST'),
      url: '/api/v1/balancers/x/rollouts',
      method: 'POST',
      access: 'write',
      body: {},
      params: { id: 'x' },
    },
    {
      name: 'POST /rollouts/{id}/close',
      handler: () => route('close', 'POST'),
      url: '/api/v1/rollouts/x/close',
      method: 'POST',
      access: 'write',
      params: { id: 'x' },
    },
    {
      name: 'GET /events',
      handler: () => route('events', 'GET'),
      url: '/api/v1/events',
      method: 'GET',
      access: 'read',
    },
    {
      name: 'GET /webhooks',
      handler: () => route('webhooks', 'GET'),
      url: '/api/v1/webhooks',
      method: 'GET',
      access: 'read',
    },
    {
      name: 'POST /webhooks',
      handler: () => route('webhooks', 'POST'),
      url: '/api/v1/webhooks',
      method: 'POST',
      access: 'write',
      body: {},
    },
    {
      name: 'DELETE /webhooks/{id}',
      handler: () => route('webhook', 'DELETE'),
      url: '/api/v1/webhooks/x',
      method: 'DELETE',
      access: 'write',
      params: { id: 'x' },
    },
    {
      name: 'GET /tokens',
      handler: () => route('tokens', 'GET'),
      url: '/api/v1/tokens',
      method: 'GET',
      access: 'admin',
    },
    {
      name: 'POST /tokens',
      handler: () => route('tokens', 'POST'),
      url: '/api/v1/tokens',
      method: 'POST',
      access: 'admin',
      body: { name: 'x', scope: 'read' },
    },
    ...(
      [
        ['DELETE /tokens/{id}', 'token', 'DELETE', '/api/v1/tokens/x', 'admin'],
        ['GET /balancers/{id}/nodes', 'nodes', 'GET', '/api/v1/balancers/x/nodes', 'read'],
        ['POST /balancers/{id}/probe', 'probe', 'POST', '/api/v1/balancers/x/probe', 'write'],
        ['GET /balancers/{id}/rollouts', 'rollouts', 'GET', '/api/v1/balancers/x/rollouts', 'read'],
        ['GET /nodes/{id}', 'node', 'GET', '/api/v1/nodes/x', 'read'],
        ['GET /nodes/{id}/history', 'history', 'GET', '/api/v1/nodes/x/history', 'read'],
        ['GET /webhooks/{id}', 'webhook', 'GET', '/api/v1/webhooks/x', 'read'],
        ['PATCH /webhooks/{id}', 'webhook', 'PATCH', '/api/v1/webhooks/x', 'write'],
        ['POST /webhooks/{id}/rotate-secret', 'rotate', 'POST', '/api/v1/webhooks/x/rotate-secret', 'write'],
        ['POST /webhooks/{id}/test', 'test', 'POST', '/api/v1/webhooks/x/test', 'write'],
        ['GET /webhooks/{id}/deliveries', 'deliveries', 'GET', '/api/v1/webhooks/x/deliveries', 'read'],
        ['POST .../redeliver', 'redeliver', 'POST', '/api/v1/webhooks/x/deliveries/y/redeliver', 'write'],
        ['GET /metrics', 'metrics', 'GET', '/metrics', 'read'],
      ] as const
    ).map(([name, mod, method, url, access]) => ({
      name,
      handler: () => route(mod, method),
      url,
      method,
      access,
      body: method === 'GET' || method === 'DELETE' ? undefined : {},
      params: { id: 'x', deliveryId: 'y' },
    })),
  ];

  it.each(routeCases)('$name: no token 401, revoked 401, insufficient scope 403', async (c) => {
    const opts = { method: c.method, body: c.body, params: c.params };
    const none = await call(c.handler(), c.url, opts);
    expect(none.status).toBe(401);
    expect(none.json?.type).toBe('https://erawatch.dev/problems/credentials_required');
    expect(none.headers.get('www-authenticate')).toContain('Bearer');

    const revoked = await call(c.handler(), c.url, { ...opts, token: revokedToken });
    expect(revoked.status).toBe(401);
    expect(revoked.json?.type).toBe('https://erawatch.dev/problems/invalid_token');

    const garbage = await call(c.handler(), c.url, { ...opts, headers: { authorization: 'Basic abc' } });
    expect(garbage.status).toBe(401);
    expect(garbage.json?.type).toBe('https://erawatch.dev/problems/invalid_authorization');

    if (c.access !== 'read') {
      const weak = await call(c.handler(), c.url, {
        ...opts,
        token: c.access === 'admin' ? writeToken : readToken,
      });
      expect(weak.status).toBe(403);
      expect(weak.json?.type).toBe('https://erawatch.dev/problems/insufficient_scope');
    } else {
      const ok = await call(c.handler(), c.url, { ...opts, token: readToken });
      expect([200, 404]).toContain(ok.status);
    }
  });

  it('a session cookie writes only with a same-origin Origin', async () => {
    const login = await call(route('session', 'POST'), '/api/v1/session', {
      method: 'POST',
      body: { secret: ADMIN },
      headers: { origin: BASE },
    });
    expect(login.status).toBe(200);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect(cookie).toMatch(/^erawatch_session=/);
    const crossSite = await call(route('balancers', 'POST'), '/api/v1/balancers', {
      method: 'POST',
      body: validBalancer('session-x'),
      headers: { cookie, origin: 'http://evil.example' },
    });
    expect(crossSite.status).toBe(403);
    expect(crossSite.json?.type).toBe('https://erawatch.dev/problems/origin_mismatch');
    const sameSite = await call(route('balancers', 'POST'), '/api/v1/balancers', {
      method: 'POST',
      body: validBalancer('session-x'),
      headers: { cookie, origin: BASE },
    });
    expect(sameSite.status).toBe(201);
    const wrong = await call(route('session', 'POST'), '/api/v1/session', {
      method: 'POST',
      body: { secret: 'not-the-secret' },
      headers: { origin: BASE },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.json?.type).toBe('https://erawatch.dev/problems/invalid_secret');
  });

  it('logging out ends the session for every copy of its cookie, not only the browser that held it', async () => {
    const login = await call(route('session', 'POST'), '/api/v1/session', {
      method: 'POST',
      body: { secret: ADMIN },
      headers: { origin: BASE },
    });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const other = await call(route('session', 'POST'), '/api/v1/session', {
      method: 'POST',
      body: { secret: ADMIN },
      headers: { origin: BASE },
    });
    const otherCookie = (other.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const tokens = () => call(route('tokens', 'GET'), '/api/v1/tokens', { headers: { cookie } });
    expect((await tokens()).status).toBe(200);
    // A logout from another site is refused and ends nothing.
    const crossSite = await call(route('session', 'DELETE'), '/api/v1/session', {
      method: 'DELETE',
      headers: { cookie, origin: 'http://evil.example' },
    });
    expect(crossSite.status).toBe(403);
    expect((await tokens()).status).toBe(200);
    const logout = await call(route('session', 'DELETE'), '/api/v1/session', {
      method: 'DELETE',
      headers: { cookie, origin: BASE },
    });
    expect(logout.status).toBe(200);
    expect(logout.headers.get('set-cookie')).toMatch(/^erawatch_session=; .*Max-Age=0/);
    // The same cookie, replayed (as a copy in another browser or another web process would be): refused.
    const replayed = await tokens();
    expect(replayed.status).toBe(401);
    const state = await call(route('session', 'GET'), '/api/v1/session', { headers: { cookie } });
    expect(state.json).toMatchObject({ authenticated: false });
    // Another login's session is untouched.
    const still = await call(route('tokens', 'GET'), '/api/v1/tokens', { headers: { cookie: otherCookie } });
    expect(still.status).toBe(200);
  });

  it('token listings never include the secret', async () => {
    const list = await call(route('tokens', 'GET'), '/api/v1/tokens', { token: ADMIN });
    expect(list.status).toBe(200);
    const text = JSON.stringify(list.json);
    expect(text).not.toContain(writeToken);
    expect(text).not.toContain(readToken.slice(20));
    expect((list.json?.items as Array<{ revokedAt: number | null }>).some((t) => t.revokedAt !== null)).toBe(
      true,
    );
  });
});

describe('rollouts, gate, events, openapi', () => {
  it('opens and closes a window; a second open window is 409', async () => {
    const b = await call(route('balancers', 'POST'), '/api/v1/balancers', {
      method: 'POST',
      token: writeToken,
      body: validBalancer('rollout-one'),
    });
    const id = String(b.json?.id);
    const body = {
      target: { negotiatedVersion: '2026-07-28' },
      deadline: new Date(Date.now() + 3_600_000).toISOString(),
    };
    const opened = await call(route('rollouts', 'POST'), `/api/v1/balancers/${id}/rollouts`, {
      method: 'POST',
      token: writeToken,
      params: { id },
      body,
    });
    expect(opened.status).toBe(201);
    const again = await call(route('rollouts', 'POST'), `/api/v1/balancers/${id}/rollouts`, {
      method: 'POST',
      token: writeToken,
      params: { id },
      body,
    });
    expect(again.status).toBe(409);
    const open = await call(route('rollouts', 'GET'), `/api/v1/balancers/${id}/rollouts`, {
      token: readToken,
      params: { id },
    });
    expect((open.json?.open as { id: string }).id).toBe(opened.json?.id);
    const wid = String(opened.json?.id);
    const closed = await call(route('close', 'POST'), `/api/v1/rollouts/${wid}/close`, {
      method: 'POST',
      token: writeToken,
      params: { id: wid },
    });
    expect(closed.status).toBe(200);
    expect(typeof closed.json?.closedAt).toBe('number');
  });

  it('the gate is not ready without probed nodes, with the reason', async () => {
    const b = await call(route('balancers', 'POST'), '/api/v1/balancers', {
      method: 'POST',
      token: writeToken,
      body: validBalancer('gate-one'),
    });
    const id = String(b.json?.id);
    const gate = await call(route('gate', 'GET'), `/api/v1/balancers/${id}/gate?revision=2026-07-28`, {
      token: readToken,
      params: { id },
    });
    expect(gate.status).toBe(200);
    expect(gate.json?.ready).toBe(false);
    expect(gate.json?.reasons).toEqual(['no probed nodes yet']);
  });

  it('filters events by balancer and type', async () => {
    const { getStore } = await import('@/db/index');
    const { insertEvents } = await import('@/db/queries/events');
    const b = await call(route('balancers', 'POST'), '/api/v1/balancers', {
      method: 'POST',
      token: writeToken,
      body: validBalancer('events-one'),
    });
    const id = String(b.json?.id);
    await insertEvents(await getStore({ settings: processSettings() }), [
      { type: 'balancer.diverged', balancerId: id, at: 1_000, data: { severity: 'era-split' } },
      { type: 'balancer.converged', balancerId: id, at: 2_000 },
    ]);
    const all = await call(route('events', 'GET'), `/api/v1/events?balancerId=${id}`, { token: readToken });
    expect((all.json?.items as Array<{ type: string }>).map((e) => e.type)).toEqual([
      'balancer.converged',
      'balancer.diverged',
    ]);
    const one = await call(
      route('events', 'GET'),
      `/api/v1/events?balancerId=${id}&type=balancer.diverged&since=500&until=1970-01-01T00:00:01.500Z`,
      { token: readToken },
    );
    expect((one.json?.items as Array<{ type: string; data: unknown }>).map((e) => [e.type, e.data])).toEqual([
      ['balancer.diverged', { severity: 'era-split' }],
    ]);
  });

  it('serves an OpenAPI 3.1 document built from the schemas', async () => {
    const doc = await call(route('openapi', 'GET'), '/api/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.json?.openapi).toBe('3.1.0');
    const paths = doc.json?.paths as Record<
      string,
      Record<
        string,
        {
          requestBody?: {
            content: Record<string, { schema: { properties: Record<string, unknown>; required?: string[] } }>;
          };
        }
      >
    >;
    const create = paths['/balancers']?.post?.requestBody?.content['application/json']?.schema;
    expect(Object.keys(create?.properties ?? {})).toEqual(
      expect.arrayContaining(['name', 'publicUrl', 'nodeUrls', 'allowLegacy']),
    );
    expect(create?.required).toEqual(expect.arrayContaining(['name', 'publicUrl']));
    expect(paths['/balancers/{id}/gate']?.get).toBeDefined();
    // Every reference points at a component that exists.
    const schemas = (doc.json?.components as { schemas: Record<string, unknown> }).schemas;
    const refs: string[] = [];
    JSON.stringify(doc.json, (k, v: unknown) => {
      if (k === '$ref' && typeof v === 'string') refs.push(v);
      return v;
    });
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) expect(Object.keys(schemas)).toContain(ref.replace('#/components/schemas/', ''));
  });
});
