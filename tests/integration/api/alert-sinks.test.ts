// The alert-sink routes through their handlers on a real SQLite file: create, read (credentials never shown),
// change, delete, the delivery log, and every bad input answered with problem+json and nothing stored.
import { processSettings } from '@/lib/settings';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { storeLocation } from '../../support/store';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-alert-sinks-'));
process.env.ERAWATCH_DB = await storeLocation(dir, 'sinks.db');
process.env.ERAWATCH_ADMIN_SECRET = 'sinks-admin-secret-0123456789abcd';
process.env.ERAWATCH_BIND = '127.0.0.1';
process.env.ERAWATCH_RATE_LIMIT = '0';
process.env.ERAWATCH_AUTH_FAILURE_LIMIT = '0';
delete process.env.ERAWATCH_ALLOW_LOOPBACK;

type Handler = (req: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response>;
const ADMIN = process.env.ERAWATCH_ADMIN_SECRET;

function request(url: string, init: { method?: string; body?: unknown; token?: string | null } = {}) {
  const headers: Record<string, string> = { host: '127.0.0.1:3999' };
  if (init.token !== null) headers.authorization = `Bearer ${init.token ?? ADMIN}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return new Request(`http://127.0.0.1:3999${url}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

async function handler(mod: Promise<unknown>, method: string): Promise<Handler> {
  const h = ((await mod) as Record<string, Handler | undefined>)[method];
  if (!h) throw new Error(`no ${method}`);
  return h;
}

const params = (p: Record<string, string>) => ({ params: Promise.resolve(p) });
const collection = () => import('@/app/api/v1/alert-sinks/route');
const item = () => import('@/app/api/v1/alert-sinks/[id]/route');

async function listNames(): Promise<string[]> {
  const res = await (await handler(collection(), 'GET'))(request('/api/v1/alert-sinks'));
  return ((await res.json()) as { items: Array<{ name: string }> }).items.map((s) => s.name);
}

afterAll(async () => {
  const { getStore } = await import('@/db/index');
  await (await getStore({ settings: processSettings() })).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('alert sink routes', () => {
  it('create returns the sink with credentials shown only as env:NAME or "stored"; patch, log and delete work', async () => {
    const create = await handler(collection(), 'POST');
    const res = await create(
      request('/api/v1/alert-sinks', {
        method: 'POST',
        body: {
          name: 'ops-alertmanager',
          urls: ['https://am-1.example.test', 'https://am-2.example.test/prefix'],
          auth: { type: 'basic', username: 'erawatch', password: 'pa55-literal-secret' },
          eventTypes: ['balancer.diverged'],
        },
      }),
    );
    expect(res.status).toBe(201);
    const text = await res.text();
    expect(text).not.toContain('pa55-literal-secret');
    const sink = JSON.parse(text) as { id: string };
    expect(res.headers.get('location')).toBe(`/api/v1/alert-sinks/${sink.id}`);
    expect(JSON.parse(text)).toMatchObject({
      kind: 'alertmanager',
      urls: ['https://am-1.example.test', 'https://am-2.example.test/prefix'],
      auth: { type: 'basic', username: 'erawatch', credential: 'stored' },
      eventTypes: ['balancer.diverged'],
      resendIntervalMs: 60_000,
      enabled: true,
      firing: 0,
    });

    const patch = await handler(item(), 'PATCH');
    const changed = await patch(
      request(`/api/v1/alert-sinks/${sink.id}`, {
        method: 'PATCH',
        body: { auth: { type: 'bearer', token: 'env:OPS_AM_TOKEN' }, resendIntervalMs: 120_000 },
      }),
      params({ id: sink.id }),
    );
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({
      auth: { type: 'bearer', username: null, credential: 'env:OPS_AM_TOKEN' },
      resendIntervalMs: 120_000,
      urls: ['https://am-1.example.test', 'https://am-2.example.test/prefix'],
    });

    const get = await handler(item(), 'GET');
    const shown = await (
      await get(request(`/api/v1/alert-sinks/${sink.id}`), params({ id: sink.id }))
    ).text();
    expect(shown).not.toContain('pa55-literal-secret');

    const log = await handler(import('@/app/api/v1/alert-sinks/[id]/deliveries/route'), 'GET');
    const page = await log(request(`/api/v1/alert-sinks/${sink.id}/deliveries`), params({ id: sink.id }));
    expect(await page.json()).toEqual({ items: [], nextCursor: null });

    // An alert sink is not a webhook, and a webhook route does not reach it.
    const hookGet = await handler(import('@/app/api/v1/webhooks/[id]/route'), 'GET');
    const asHook = await hookGet(request(`/api/v1/webhooks/${sink.id}`), params({ id: sink.id }));
    expect(asHook.status).toBe(404);
    const hooks = await (
      await handler(import('@/app/api/v1/webhooks/route'), 'GET')
    )(request('/api/v1/webhooks'));
    expect(((await hooks.json()) as { items: unknown[] }).items).toEqual([]);

    const del = await handler(item(), 'DELETE');
    expect((await del(request('/x', { method: 'DELETE' }), params({ id: sink.id }))).status).toBe(204);
    expect((await get(request('/x'), params({ id: sink.id }))).status).toBe(404);
  });

  const valid = { name: 'bad-input', urls: ['https://am.example.test'] };
  const cases: Array<{ what: string; body: unknown; status: number; pointer: string; detail: RegExp }> = [
    { what: 'no URL', body: { ...valid, urls: [] }, status: 422, pointer: '/urls', detail: /at least one/ },
    {
      what: 'a URL with a query',
      body: { ...valid, urls: ['https://am.example.test/?x=1'] },
      status: 422,
      pointer: '/urls/0',
      detail: /query or fragment/,
    },
    {
      what: 'a non-http URL',
      body: { ...valid, urls: ['ftp://am.example.test'] },
      status: 422,
      pointer: '/urls/0',
      detail: /http/,
    },
    {
      what: 'the same URL twice',
      body: { ...valid, urls: ['https://am.example.test', 'https://am.example.test'] },
      status: 422,
      pointer: '/urls',
      detail: /twice/,
    },
    {
      what: 'a cloud metadata address',
      body: { ...valid, urls: ['http://169.254.169.254'] },
      status: 422,
      pointer: '/urls/0',
      detail: /.+/,
    },
    {
      what: 'a loopback address without ERAWATCH_ALLOW_LOOPBACK',
      body: { ...valid, urls: ['https://am.example.test', 'http://127.0.0.1:9093'] },
      status: 422,
      pointer: '/urls/1',
      detail: /.+/,
    },
    {
      what: 'a malformed env reference',
      body: { ...valid, auth: { type: 'bearer', token: 'env:1-not-a-name' } },
      status: 422,
      pointer: '/auth/token',
      detail: /variable name/,
    },
    {
      what: 'a username with a colon',
      body: { ...valid, auth: { type: 'basic', username: 'a:b', password: 'env:X' } },
      status: 422,
      pointer: '/auth/username',
      detail: /":"/,
    },
    {
      what: 'an unknown auth type',
      body: { ...valid, auth: { type: 'digest' } },
      status: 422,
      pointer: '/auth/type',
      detail: /.+/,
    },
    {
      what: 'a resend interval under 10 s',
      body: { ...valid, resendIntervalMs: 5_000 },
      status: 422,
      pointer: '/resendIntervalMs',
      detail: /at least 10000/,
    },
    {
      what: 'an unknown event type',
      body: { ...valid, eventTypes: ['balancer.exploded'] },
      status: 422,
      pointer: '/eventTypes/0',
      detail: /.+/,
    },
    {
      what: 'an unknown field',
      body: { ...valid, secret: 'x' },
      status: 422,
      pointer: '/secret',
      detail: /secret/,
    },
  ];

  it.each(cases)(
    'refuses $what with problem+json and stores nothing',
    async ({ body, status, pointer, detail }) => {
      const before = await listNames();
      const create = await handler(collection(), 'POST');
      const res = await create(request('/api/v1/alert-sinks', { method: 'POST', body }));
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      const problem = (await res.json()) as {
        status: number;
        errors?: Array<{ pointer: string; detail: string }>;
      };
      expect(problem.status).toBe(status);
      const hit = problem.errors?.find((e) => e.pointer === pointer);
      expect(hit, JSON.stringify(problem)).toBeDefined();
      expect(hit?.detail).toMatch(detail);
      expect(await listNames()).toEqual(before);
    },
  );

  it.each<[string, Record<string, unknown>, number, string]>([
    ['an empty URL list', { urls: [] }, 422, '/urls'],
    ['a metadata URL', { urls: ['http://169.254.169.254'] }, 422, '/urls/0'],
    ['a bearer without a token', { auth: { type: 'bearer' } }, 422, '/auth/token'],
    ['a resend interval over an hour', { resendIntervalMs: 3_600_001 }, 422, '/resendIntervalMs'],
  ])('a PATCH with %s is refused and changes nothing', async (_what, body, status, pointer) => {
    const create = await handler(collection(), 'POST');
    const name = `patch-${pointer.replace(/\W/g, '')}-${status}`;
    const created = await create(
      request('/x', { method: 'POST', body: { name, urls: ['https://keep.example.test'] } }),
    );
    const sink = (await created.json()) as { id: string };
    const get = await handler(item(), 'GET');
    const before = await (await get(request('/x'), params({ id: sink.id }))).text();
    const patch = await handler(item(), 'PATCH');
    const res = await patch(request('/x', { method: 'PATCH', body }), params({ id: sink.id }));
    expect(res.status).toBe(status);
    const problem = (await res.json()) as { errors?: Array<{ pointer: string }> };
    expect(problem.errors?.map((e) => e.pointer)).toContain(pointer);
    expect(await (await get(request('/x'), params({ id: sink.id }))).text()).toBe(before);
    const del = await handler(item(), 'DELETE');
    await del(request('/x', { method: 'DELETE' }), params({ id: sink.id }));
  });

  it('refuses a duplicate name (409) and a request without a token (401), storing nothing', async () => {
    const create = await handler(collection(), 'POST');
    const first = await create(
      request('/x', { method: 'POST', body: { name: 'dup', urls: ['https://a.example.test'] } }),
    );
    expect(first.status).toBe(201);
    const dup = await create(
      request('/x', { method: 'POST', body: { name: 'dup', urls: ['https://b.example.test'] } }),
    );
    expect(dup.status).toBe(409);
    expect(((await dup.json()) as { detail: string }).detail).toContain("named 'dup' already exists");
    const anonymous = await create(
      request('/x', {
        method: 'POST',
        token: null,
        body: { name: 'anon', urls: ['https://c.example.test'] },
      }),
    );
    expect(anonymous.status).toBe(401);
    expect(await listNames()).toEqual(['dup']);
  });
});
