// OAuth client credentials on a balancer through the API and the config file: the secret is stored, never
// echoed, kept when the redacted value is sent back, exported as ${ENV}; bad settings are problem+json and
// change nothing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeLocation } from '../../support/store';
import { parseSettings, processSettings } from '@/lib/settings';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-api-oauth-'));
process.env.ERAWATCH_DB = await storeLocation(dir, 'api.db');
process.env.ERAWATCH_ADMIN_SECRET = 'admin-secret-for-tests-0123456789';
process.env.ERAWATCH_BIND = '127.0.0.1';
process.env.ERAWATCH_RATE_LIMIT = '0';
process.env.ERAWATCH_AUTH_FAILURE_LIMIT = '0';

type Handler = (req: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response>;
const ADMIN = process.env.ERAWATCH_ADMIN_SECRET;

async function call(handler: Handler, url: string, method = 'GET', body?: unknown, params = {}) {
  const headers: Record<string, string> = { host: '127.0.0.1:3999', authorization: `Bearer ${ADMIN}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await handler(
    new Request(`http://127.0.0.1:3999${url}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    { params: Promise.resolve(params) },
  );
  const text = await res.text();
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    text,
    json: text ? (JSON.parse(text) as Record<string, unknown>) : null,
  };
}

let collection: Record<string, Handler>;
let item: Record<string, Handler>;
let dashboard: Record<string, Handler>;
const handler = (h: Record<string, Handler>, m: string): Handler => {
  const f = h[m];
  if (!f) throw new Error(`no ${m}`);
  return f;
};

beforeAll(async () => {
  collection = (await import('@/app/api/v1/balancers/route')) as unknown as Record<string, Handler>;
  item = (await import('@/app/api/v1/balancers/[id]/route')) as unknown as Record<string, Handler>;
  dashboard = (await import('@/app/dashboard-data/balancers/[id]/route')) as unknown as Record<
    string,
    Handler
  >;
});

afterAll(async () => {
  const { getStore } = await import('@/db/index');
  await (await getStore({ settings: processSettings() })).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const auth = {
  type: 'oauth-client-credentials',
  clientId: 'erawatch',
  clientSecret: 'literal-client-secret-77',
  scope: 'mcp:read',
  tokenUrl: 'https://as.example.com/token',
};

describe('balancer auth settings through the API', () => {
  it('stores the secret, never echoes it, keeps it when the redacted value comes back, exports ${ENV}', async () => {
    const created = await call(handler(collection, 'POST'), '/api/v1/balancers', 'POST', {
      name: 'oauth-one',
      publicUrl: 'https://mcp.example.com/mcp',
      auth,
    });
    expect(created.status).toBe(201);
    expect(created.json?.auth).toEqual({ ...auth, clientSecret: '[redacted]' });
    expect(created.text).not.toContain('literal-client-secret-77');
    const id = String(created.json?.id);

    const got = await call(handler(item, 'GET'), `/api/v1/balancers/${id}`, 'GET', undefined, { id });
    expect(got.text).not.toContain('literal-client-secret-77');
    const detail = await call(
      handler(dashboard, 'GET'),
      `/dashboard-data/balancers/${id}`,
      'GET',
      undefined,
      {
        id,
      },
    );
    expect(detail.status).toBe(200);
    expect(detail.json?.auth).toEqual({ ...auth, clientSecret: '[redacted]' });
    expect(detail.text).not.toContain('literal-client-secret-77');
    const patched = await call(
      handler(item, 'PATCH'),
      `/api/v1/balancers/${id}`,
      'PATCH',
      {
        auth: { ...(got.json?.auth as object), scope: 'mcp:read mcp:list' },
      },
      { id },
    );
    expect(patched.status).toBe(200);
    const { getBalancer } = await import('@/db/queries/balancers');
    const { getStore } = await import('@/db/index');
    expect((await getBalancer(await getStore({ settings: processSettings() }), id)).auth).toMatchObject({
      clientSecret: 'literal-client-secret-77',
      scope: 'mcp:read mcp:list',
    });

    const list = await call(handler(collection, 'GET'), '/api/v1/balancers?limit=50');
    expect(list.text).not.toContain('literal-client-secret-77');
    expect((list.json?.items as Array<Record<string, unknown>>)[0]).not.toHaveProperty('auth');

    const { exportConfig } = await import('@/lib/config/export');
    const { parseConfig } = await import('@/lib/config/load');
    const { yaml, envNeeded } = await exportConfig(await getStore({ settings: processSettings() }), {
      includeSecrets: false,
    });
    expect(yaml).not.toContain('literal-client-secret-77');
    expect(envNeeded).toContain('ERAWATCH_OAUTH_ONE_OAUTH_CLIENT_SECRET');
    expect(yaml).toContain('clientSecret: ${ERAWATCH_OAUTH_ONE_OAUTH_CLIENT_SECRET}');
    const back = parseConfig(
      yaml,
      'export.yaml',
      parseSettings({ ERAWATCH_OAUTH_ONE_OAUTH_CLIENT_SECRET: 'literal-client-secret-77' }),
    );
    expect(back.balancers[0]?.auth).toMatchObject({ clientSecret: 'literal-client-secret-77' });

    const detach = await call(
      handler(item, 'PATCH'),
      `/api/v1/balancers/${id}`,
      'PATCH',
      { auth: null },
      { id },
    );
    expect(detach.json?.auth).toBeNull();
  });

  it('takes an issuer without a token URL or a scope, and gives it back', async () => {
    const bound = {
      type: 'oauth-client-credentials',
      clientId: 'erawatch',
      clientSecret: 'env:MCP_CLIENT_SECRET',
      issuer: 'https://as.example.com',
    };
    const created = await call(handler(collection, 'POST'), '/api/v1/balancers', 'POST', {
      name: 'oauth-issuer',
      publicUrl: 'https://mcp.example.com/mcp',
      auth: bound,
    });
    expect(created.status).toBe(201);
    expect(created.json?.auth).toEqual(bound);
  });

  it('shows an env:NAME secret as written', async () => {
    const created = await call(handler(collection, 'POST'), '/api/v1/balancers', 'POST', {
      name: 'oauth-env',
      publicUrl: 'https://mcp.example.com/mcp',
      auth: { ...auth, clientSecret: 'env:MCP_CLIENT_SECRET' },
    });
    expect(created.json?.auth).toMatchObject({ clientSecret: 'env:MCP_CLIENT_SECRET' });
  });

  it.each([
    ['an unknown type', { ...auth, type: 'api-key' }, '/auth/type'],
    ['no client id', { ...auth, clientId: ' ' }, '/auth/clientId'],
    ['no secret', { ...auth, clientSecret: '' }, '/auth/clientSecret'],
    ['a secret with a line break', { ...auth, clientSecret: 'a\nb' }, '/auth/clientSecret'],
    ['an empty scope', { ...auth, scope: ' ' }, '/auth/scope'],
    ['neither an issuer nor a token URL', { ...auth, tokenUrl: undefined }, '/auth/issuer'],
    ['an issuer that is not http(s)', { ...auth, issuer: 'ftp://as.example.com' }, '/auth/issuer'],
    ['a scope with a quote', { ...auth, scope: 'mcp:"read"' }, '/auth/scope'],
    [
      'a token URL that is not http(s)',
      { ...auth, tokenUrl: 'ftp://as.example.com/token' },
      '/auth/tokenUrl',
    ],
    ['a resource that is not a URL', { ...auth, resource: 'mcp' }, '/auth/resource'],
    ['an unknown field', { ...auth, clientAssertion: 'x' }, '/auth/clientAssertion'],
  ])('%s is 422 problem+json naming %s, and nothing is stored', async (_name, bad, pointer) => {
    const before = await call(handler(collection, 'GET'), '/api/v1/balancers?limit=500');
    const r = await call(handler(collection, 'POST'), '/api/v1/balancers', 'POST', {
      name: 'oauth-bad',
      publicUrl: 'https://mcp.example.com/mcp',
      auth: bad,
    });
    expect(r.status).toBe(422);
    expect(r.type).toBe('application/problem+json');
    expect(r.json?.type).toBe('https://erawatch.dev/problems/validation_failed');
    expect((r.json?.errors as Array<{ pointer: string }>).map((e) => e.pointer)).toContain(pointer);
    expect(r.text).not.toContain('literal-client-secret-77');
    const after = await call(handler(collection, 'GET'), '/api/v1/balancers?limit=500');
    expect(after.json?.items).toEqual(before.json?.items);
  });

  it('the config JSON Schema describes the auth block', async () => {
    const { configJsonSchema } = await import('@/lib/schemas/config');
    const text = JSON.stringify(configJsonSchema());
    expect(text).toContain('oauth-client-credentials');
    expect(text).toContain('clientSecret');
    expect(text).toContain('tokenUrl');
    expect(text).toContain('issuer');
  });
});
