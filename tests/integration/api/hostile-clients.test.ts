// What a hostile client sends to the route handlers, on a real store (SQLite, and PostgreSQL in its project):
// a malformed session cookie, control characters in free-text fields, guesses through the Flagger hook, a
// busy local caller, and X-Forwarded-For from a proxy that is trusted or is not. The client's socket address
// is what the server's front door stamps on a request (lib/api/front-door.ts); these tests stamp it the same way.
import { processSettings } from '@/lib/settings';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Store } from '@/db/index';
import { stampClientAddress } from '@/lib/api/front-door';
import { onPostgres, storeLocation } from '../../support/store';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-hostile-'));
process.env.ERAWATCH_DB = await storeLocation(dir, 'hostile.db');
process.env.ERAWATCH_ADMIN_SECRET = 'hostile-admin-secret-0123456789ab';
process.env.ERAWATCH_BIND = '127.0.0.1';
process.env.ERAWATCH_ALLOW_LOOPBACK = '1';
const ADMIN = process.env.ERAWATCH_ADMIN_SECRET;

type Handler = (req: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response>;

interface Send {
  method?: string;
  token?: string;
  client?: string;
  body?: unknown;
  headers?: Record<string, string>;
  origin?: boolean;
}

function request(url: string, o: Send = {}): Request {
  const headers = new Headers({ host: '127.0.0.1:3999', ...o.headers });
  if (o.token) headers.set('authorization', `Bearer ${o.token}`);
  if (o.body !== undefined) headers.set('content-type', 'application/json');
  if (o.origin) headers.set('origin', 'http://127.0.0.1:3999');
  stampClientAddress(headers, o.client ?? '192.0.2.1');
  return new Request(`http://127.0.0.1:3999${url}`, {
    method: o.method ?? 'GET',
    headers,
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
  });
}

async function send(h: Handler, url: string, o: Send = {}) {
  const res = await h(request(url, o), { params: Promise.resolve({}) });
  const text = await res.text();
  const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  return { status: res.status, type: body.type as string | undefined, body };
}

async function route(modulePath: Promise<unknown>, method: string): Promise<Handler> {
  const h = ((await modulePath) as Record<string, Handler | undefined>)[method];
  if (!h) throw new Error(`no ${method}`);
  return h;
}

async function limits(env: Record<string, string | undefined>) {
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  (await import('@/lib/settings')).resetProcessSettings();
  (await import('@/lib/api/rate-limit')).resetRateLimiters();
}

const problem = (code: string) => `https://erawatch.dev/problems/${code}`;
let store: Store;
let balancers: { GET: Handler; POST: Handler };
let hook: Handler;
let readToken = '';

beforeAll(async () => {
  await limits({ ERAWATCH_RATE_LIMIT: '0', ERAWATCH_AUTH_FAILURE_LIMIT: '1000' });
  const { getStore } = await import('@/db/index');
  store = await getStore({ settings: processSettings() });
  const { createApiToken } = await import('@/lib/auth/api-tokens');
  readToken = (await createApiToken(store, { name: 'flagger', scope: 'read' })).token;
  balancers = {
    GET: await route(import('@/app/api/v1/balancers/route'), 'GET'),
    POST: await route(import('@/app/api/v1/balancers/route'), 'POST'),
  };
  hook = await route(import('@/app/api/v1/hooks/flagger/route'), 'POST');
  expect(
    (
      await send(balancers.POST, '/api/v1/balancers', {
        method: 'POST',
        token: ADMIN,
        body: { name: 'gated', publicUrl: 'http://127.0.0.1:9/mcp' },
      })
    ).status,
  ).toBe(201);
});

afterAll(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const hookBody = (token: string) => ({
  name: 'app',
  namespace: 'prod',
  metadata: { balancer: 'gated', revision: '2026-07-28', token },
});

describe('a malformed session cookie', () => {
  it.each(['erawatch_session=%zz', 'erawatch_session=%E0%A4%A', 'erawatch_session="%', '=;;=%zz; a=b'])(
    '%s is an anonymous request, not a 500',
    async (cookie) => {
      const anonymous = await send(balancers.GET, '/api/v1/balancers', { headers: { cookie } });
      expect(anonymous.status).toBe(401);
      expect(anonymous.type).toBe(problem('credentials_required'));
      const withToken = await send(balancers.GET, '/api/v1/balancers', {
        headers: { cookie },
        token: readToken,
      });
      expect(withToken.status).toBe(200);
    },
  );
});

describe('control characters in free-text fields', () => {
  it.each([
    ['a token name', '/api/v1/tokens', { name: 'ci\u0000reader', scope: 'read' }, '/name'],
    ['a token name (escape)', '/api/v1/tokens', { name: 'ci\u001b[31mreader', scope: 'read' }, '/name'],
    [
      'a webhook description',
      '/api/v1/webhooks',
      { name: 'nul-hook', url: 'https://hooks.example.com/x', description: 'pager\u0000duty' },
      '/description',
    ],
    [
      'an alert-sink user name',
      '/api/v1/alert-sinks',
      {
        name: 'nul-sink',
        urls: ['https://am.example.com'],
        auth: { type: 'basic', username: 'ops\u0000', password: 'literal-password-123' },
      },
      '/auth/username',
    ],
    [
      'an alert-sink password',
      '/api/v1/alert-sinks',
      {
        name: 'nul-sink-2',
        urls: ['https://am.example.com'],
        auth: { type: 'basic', username: 'ops', password: 'literal\u0000password' },
      },
      '/auth/password',
    ],
  ] as const)('%s: 422 with a pointer, nothing stored', async (_name, url, body, pointer) => {
    const modulePath =
      url === '/api/v1/tokens'
        ? import('@/app/api/v1/tokens/route')
        : url === '/api/v1/webhooks'
          ? import('@/app/api/v1/webhooks/route')
          : import('@/app/api/v1/alert-sinks/route');
    const post = await route(modulePath, 'POST');
    const get = await route(modulePath, 'GET');
    const before = await send(get, url, { token: ADMIN });
    const res = await send(post, url, { method: 'POST', token: ADMIN, body });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ pointer, detail: 'must not contain control characters' }),
      ]),
    );
    expect((await send(get, url, { token: ADMIN })).body).toEqual(before.body);
  });

  it('a description may still span lines', async () => {
    const post = await route(import('@/app/api/v1/webhooks/route'), 'POST');
    const res = await send(post, '/api/v1/webhooks', {
      method: 'POST',
      token: ADMIN,
      body: {
        name: 'lines-hook',
        url: 'https://hooks.example.com/y',
        description: 'first line\nsecond\tline',
      },
    });
    expect(res.status).toBe(201);
  });

  it.skipIf(!onPostgres)(
    'a database error is logged by name, code and message, never with its parameters',
    async () => {
      const { errorToResponse } = await import('@/lib/api/with-api');
      const secret = 'whsec_c2VjcmV0LXRoYXQtbXVzdC1ub3QtYmUtbG9nZ2VkLTAx';
      // What the schema now refuses, written past it: PostgreSQL rejects the NUL with every parameter in hand.
      const err = await store
        .write((tx) =>
          tx.insert(store.t.webhookEndpoints).values({
            id: 'whk_nul',
            name: 'nul-direct',
            url: 'https://hooks.example.com/z',
            description: 'a\u0000b',
            eventTypes: [],
            balancerIds: [],
            secret,
            enabled: true,
            createdAt: 1,
            updatedAt: 1,
          }),
        )
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(Error);
      const logged: string[] = [];
      const spy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
        logged.push(args.map(String).join(' '));
      });
      try {
        const res = errorToResponse(err);
        expect(res.status).toBe(500);
      } finally {
        spy.mockRestore();
      }
      const line = logged.join('\n');
      expect(line).toMatch(/PostgresError 22021: invalid byte sequence/);
      expect(line).not.toContain(secret);
      expect(line).not.toContain('hooks.example.com/z');
    },
  );
});

describe('the Flagger hook and the failed-credential lockout', () => {
  it('wrong tokens with random prefixes lock the client out; then even the right token is refused', async () => {
    await limits({ ERAWATCH_RATE_LIMIT: '0', ERAWATCH_AUTH_FAILURE_LIMIT: '3' });
    const random = () => `ewt_read_${Math.random().toString(36).slice(2).padEnd(32, 'q').slice(0, 32)}`;
    for (let i = 0; i < 3; i++) {
      const res = await send(hook, '/api/v1/hooks/flagger', {
        method: 'POST',
        client: '198.51.100.7',
        body: hookBody(random()),
      });
      expect(res.type).toBe(problem('invalid_token'));
    }
    const right = await send(hook, '/api/v1/hooks/flagger', {
      method: 'POST',
      client: '198.51.100.7',
      body: hookBody(readToken),
    });
    expect(right.status).toBe(429);
    expect(right.type).toBe(problem('too_many_failed_attempts'));
    // The login is behind the same lock.
    const login = await route(import('@/app/api/v1/session/route'), 'POST');
    const session = await send(login, '/api/v1/session', {
      method: 'POST',
      client: '198.51.100.7',
      origin: true,
      body: { secret: ADMIN },
    });
    expect(session.type).toBe(problem('too_many_failed_attempts'));
    // Another client is unaffected.
    const other = await send(hook, '/api/v1/hooks/flagger', {
      method: 'POST',
      client: '198.51.100.8',
      body: hookBody(readToken),
    });
    expect(other.type).toBe(problem('gate_closed'));
  });

  it("the hook spends its token's request bucket, the same one the token's bearer requests spend", async () => {
    await limits({ ERAWATCH_RATE_LIMIT: '2', ERAWATCH_AUTH_FAILURE_LIMIT: '1000' });
    expect((await send(balancers.GET, '/api/v1/balancers', { token: readToken })).status).toBe(200);
    expect(
      (await send(hook, '/api/v1/hooks/flagger', { method: 'POST', body: hookBody(readToken) })).type,
    ).toBe(problem('gate_closed'));
    const spent = await send(hook, '/api/v1/hooks/flagger', { method: 'POST', body: hookBody(readToken) });
    expect(spent.status).toBe(429);
    expect(spent.type).toBe(problem('rate_limited'));
    expect((await send(balancers.GET, '/api/v1/balancers', { token: readToken })).status).toBe(429);
  });
});

describe('X-Forwarded-For', () => {
  const guessFrom = (socket: string, forwarded: string) =>
    send(balancers.GET, '/api/v1/balancers', {
      token: 'not-the-admin-secret-0000',
      client: socket,
      headers: { 'x-forwarded-for': forwarded },
    });

  it('from an untrusted peer it is ignored: a fresh header per guess is the same client', async () => {
    await limits({
      ERAWATCH_RATE_LIMIT: '0',
      ERAWATCH_AUTH_FAILURE_LIMIT: '3',
      ERAWATCH_TRUSTED_PROXIES: undefined,
    });
    for (let i = 0; i < 3; i++) expect((await guessFrom('203.0.113.50', `10.1.${i}.1`)).status).toBe(401);
    expect((await guessFrom('203.0.113.50', '10.1.99.1')).type).toBe(problem('too_many_failed_attempts'));
  });

  it('across a trusted proxy it names the client: clients behind one proxy have their own buckets', async () => {
    await limits({
      ERAWATCH_RATE_LIMIT: '0',
      ERAWATCH_AUTH_FAILURE_LIMIT: '3',
      ERAWATCH_TRUSTED_PROXIES: '10.0.0.0/8',
    });
    for (let i = 0; i < 3; i++) expect((await guessFrom('10.0.0.2', '203.0.113.9')).status).toBe(401);
    expect((await guessFrom('10.0.0.2', '203.0.113.9')).type).toBe(problem('too_many_failed_attempts'));
    // Another client behind the same proxy.
    expect((await guessFrom('10.0.0.2', '203.0.113.10')).status).toBe(401);
    // A client cannot step around the proxy's entry by prepending its own.
    expect((await guessFrom('10.0.0.2', '10.5.5.5, 203.0.113.9')).type).toBe(
      problem('too_many_failed_attempts'),
    );
    await limits({ ERAWATCH_TRUSTED_PROXIES: undefined });
  });
});

describe('local mode', () => {
  it('each client address has its own request bucket', async () => {
    await limits({ ERAWATCH_ADMIN_SECRET: undefined, ERAWATCH_RATE_LIMIT: '2' });
    try {
      for (let i = 0; i < 2; i++)
        expect((await send(balancers.GET, '/api/v1/balancers', { client: '127.0.0.1' })).status).toBe(200);
      const busy = await send(balancers.GET, '/api/v1/balancers', { client: '127.0.0.1' });
      expect(busy.type).toBe(problem('rate_limited'));
      expect((await send(balancers.GET, '/api/v1/balancers', { client: '::1' })).status).toBe(200);
    } finally {
      await limits({ ERAWATCH_ADMIN_SECRET: ADMIN, ERAWATCH_RATE_LIMIT: '0' });
    }
  });

  it('the Flagger hook takes metadata.token with no Origin', async () => {
    await limits({ ERAWATCH_ADMIN_SECRET: undefined, ERAWATCH_RATE_LIMIT: '0' });
    try {
      const res = await send(hook, '/api/v1/hooks/flagger', {
        method: 'POST',
        client: '127.0.0.1',
        body: hookBody(readToken),
      });
      expect(res.type).toBe(problem('gate_closed'));
    } finally {
      await limits({ ERAWATCH_ADMIN_SECRET: ADMIN });
    }
  });
});
