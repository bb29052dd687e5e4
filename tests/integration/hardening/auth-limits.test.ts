import { processSettings } from '@/lib/settings';
import { sqliteOf } from '@/db';
// The failed-credential lockout, the request limit and the Host allowlist, through the real route handlers
// against a real SQLite file. Every refusal is problem+json and stores nothing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Store } from '@/db/index';
import { stampClientAddress } from '@/lib/api/front-door';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-auth-limits-'));
process.env.ERAWATCH_DB = path.join(dir, 'limits.db');
process.env.ERAWATCH_ADMIN_SECRET = 'auth-limits-admin-secret-0123456789';
process.env.ERAWATCH_BIND = '127.0.0.1';
delete process.env.ERAWATCH_ALLOWED_HOSTS;

type Handler = (req: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response>;
const ADMIN = process.env.ERAWATCH_ADMIN_SECRET;
const FAILURES = 5;

interface Send {
  method?: string;
  token?: string;
  client?: string;
  host?: string;
  body?: unknown;
  origin?: boolean;
}

function request(url: string, o: Send = {}): Request {
  const host = o.host ?? '127.0.0.1:3999';
  const headers: Record<string, string> = { host };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  if (o.origin) headers.origin = `http://${host}`;
  const stamped = new Headers(headers);
  // The client's socket address, as the server's front door records it (lib/api/front-door.ts).
  stampClientAddress(stamped, o.client ?? '10.9.0.1');
  return new Request(`http://127.0.0.1:3999${url}`, {
    method: o.method ?? 'GET',
    headers: stamped,
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
  });
}

async function send(h: Handler, url: string, o: Send = {}) {
  const res = await h(request(url, o), { params: Promise.resolve({}) });
  const text = await res.text();
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    retryAfter: res.headers.get('retry-after'),
    cookie: res.headers.get('set-cookie'),
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

let store: Store;
let list: Handler;
let create: Handler;
let login: Handler;
let writeToken = '';
let otherToken = '';
const balancerNames = () =>
  (sqliteOf(store).prepare('SELECT name FROM balancers ORDER BY name').all() as Array<{ name: string }>).map(
    (r) => r.name,
  );

async function limitTo(requests: number, failures: number) {
  process.env.ERAWATCH_RATE_LIMIT = String(requests);
  process.env.ERAWATCH_AUTH_FAILURE_LIMIT = String(failures);
  (await import('@/lib/settings')).resetProcessSettings();
  (await import('@/lib/api/rate-limit')).resetRateLimiters();
}

beforeAll(async () => {
  // The buckets refill with time: a frozen clock keeps every count exact however slow the machine is.
  vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2026-12-01T07:00:00Z') });
  const { getStore } = await import('@/db/index');
  store = await getStore({ settings: processSettings() });
  const { createApiToken } = await import('@/lib/auth/api-tokens');
  writeToken = (await createApiToken(store, { name: 'writer', scope: 'write' })).token;
  otherToken = (await createApiToken(store, { name: 'other', scope: 'write' })).token;
  const balancers = await import('@/app/api/v1/balancers/route');
  list = balancers.GET as Handler;
  create = balancers.POST as Handler;
  login = (await import('@/app/api/v1/session/route')).POST as Handler;
});

afterAll(async () => {
  vi.useRealTimers();
  const { getStore } = await import('@/db/index');
  await (await getStore({ settings: processSettings() })).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('failed credentials lock out the client that failed, before any comparison', () => {
  beforeEach(() => limitTo(0, FAILURES));

  const wrongToken = () => `ewt_write_${'w'.repeat(32)}`;
  const cases: Array<{
    name: string;
    guess: (h: { client: string }) => Promise<{ status: number }>;
    right: (h: { client: string }) => Promise<Awaited<ReturnType<typeof send>>>;
  }> = [
    {
      name: 'admin secret guesses, then the right secret on a write',
      guess: ({ client }) => send(list, '/api/v1/balancers', { token: 'not-the-secret-0123456789', client }),
      right: ({ client }) =>
        send(create, '/api/v1/balancers', {
          method: 'POST',
          token: ADMIN,
          client,
          body: { name: 'locked-admin', publicUrl: 'https://10.2.0.1/mcp' },
        }),
    },
    {
      name: 'token guesses, then the right write token on a write',
      guess: ({ client }) => send(list, '/api/v1/balancers', { token: wrongToken(), client }),
      right: ({ client }) =>
        send(create, '/api/v1/balancers', {
          method: 'POST',
          token: writeToken,
          client,
          body: { name: 'locked-token', publicUrl: 'https://10.2.0.1/mcp' },
        }),
    },
    {
      name: 'malformed Authorization headers, then the right secret',
      guess: ({ client }) => send(list, '/api/v1/balancers', { token: 'two words', client }),
      right: ({ client }) => send(list, '/api/v1/balancers', { token: ADMIN, client }),
    },
    {
      name: 'dashboard login guesses, then the right secret',
      guess: ({ client }) =>
        send(login, '/api/v1/session', {
          method: 'POST',
          client,
          origin: true,
          body: { secret: 'wrong-guess' },
        }),
      right: ({ client }) =>
        send(login, '/api/v1/session', { method: 'POST', client, origin: true, body: { secret: ADMIN } }),
    },
  ];

  it.each(cases)('$name: 429 with Retry-After, nothing stored; another client is unaffected', async (c) => {
    const before = balancerNames();
    for (let i = 0; i < FAILURES; i++) expect((await c.guess({ client: '10.9.1.1' })).status).toBe(401);
    const locked = await c.right({ client: '10.9.1.1' });
    expect(locked.status).toBe(429);
    expect(locked.type).toBe('application/problem+json');
    expect(locked.body).toMatchObject({
      type: 'https://erawatch.dev/problems/too_many_failed_attempts',
      status: 429,
    });
    expect(Number(locked.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(locked.cookie).toBeNull();
    expect(JSON.stringify(locked.body)).not.toContain(ADMIN);
    expect(balancerNames()).toEqual(before);
    // Still locked: the lockout did not reset on the refused attempt.
    expect((await c.right({ client: '10.9.1.1' })).status).toBe(429);

    const other = await c.right({ client: '10.9.2.2' });
    expect(other.status).toBeLessThan(300);
  });

  it('requests without credentials (a scraper without a token) spend nothing', async () => {
    for (let i = 0; i < FAILURES * 3; i++) {
      const res = await send(list, '/api/v1/balancers', { client: '10.9.3.3' });
      expect(res.body.type).toBe('https://erawatch.dev/problems/credentials_required');
    }
    expect((await send(list, '/api/v1/balancers', { token: ADMIN, client: '10.9.3.3' })).status).toBe(200);
  });

  it('guesses at one token prefix spread over many addresses lock that prefix, not other tokens', async () => {
    const prefix = writeToken.slice(0, 'ewt_write_'.length + 6);
    const guesses = FAILURES * 10;
    for (let i = 0; i < guesses; i++) {
      // FAILURES - 1 guesses per address: no single address is locked.
      const client = `10.8.${Math.floor(i / (FAILURES - 1))}.1`;
      const guess = `${prefix}${String(i).padStart(26, 'g')}`;
      expect((await send(list, '/api/v1/balancers', { token: guess, client })).status).toBe(401);
    }
    const res = await send(list, '/api/v1/balancers', { token: writeToken, client: '10.7.0.1' });
    expect(res.status).toBe(429);
    expect(res.body.type).toBe('https://erawatch.dev/problems/too_many_failed_attempts');
    expect((await send(list, '/api/v1/balancers', { token: otherToken, client: '10.7.0.1' })).status).toBe(
      200,
    );
    expect((await send(list, '/api/v1/balancers', { token: ADMIN, client: '10.7.0.1' })).status).toBe(200);
  });
});

describe('the request limit', () => {
  it('allows the stated per-minute budget at once, then 429 with Retry-After; the refusal stores nothing', async () => {
    await limitTo(100, 0);
    for (let i = 0; i < 100; i++) {
      expect((await send(list, '/api/v1/balancers', { token: writeToken })).status).toBe(200);
    }
    const before = balancerNames();
    const refused = await send(create, '/api/v1/balancers', {
      method: 'POST',
      token: writeToken,
      body: { name: 'over-limit', publicUrl: 'https://10.2.0.1/mcp' },
    });
    expect(refused.status).toBe(429);
    expect(refused.type).toBe('application/problem+json');
    expect(refused.body).toMatchObject({ type: 'https://erawatch.dev/problems/rate_limited', status: 429 });
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(balancerNames()).toEqual(before);
    // Another credential has its own budget.
    expect((await send(list, '/api/v1/balancers', { token: otherToken })).status).toBe(200);
  });

  it('is checked before the token lookup: a spent token is refused without reading the store', async () => {
    await limitTo(3, 0);
    const { createApiToken } = await import('@/lib/auth/api-tokens');
    const { revokeApiToken } = await import('@/db/queries/tokens');
    const spent = await createApiToken(store, { name: 'spent', scope: 'read' });
    for (let i = 0; i < 3; i++) {
      expect((await send(list, '/api/v1/balancers', { token: spent.token })).status).toBe(200);
    }
    // Revoked now: a lookup would answer 401; the limit answers first.
    await revokeApiToken(store, spent.id);
    const res = await send(list, '/api/v1/balancers', { token: spent.token });
    expect(res.status).toBe(429);
    expect(res.body.type).toBe('https://erawatch.dev/problems/rate_limited');
  });
});

describe('ERAWATCH_ALLOWED_HOSTS with an admin secret', () => {
  beforeEach(() => limitTo(0, 0));

  const cases: Array<{ name: string; allowed?: string; host: string; status: number }> = [
    { name: 'a rebinding name is refused by default', host: 'attacker.example:3999', status: 403 },
    { name: 'the bind host is allowed by default', host: '127.0.0.1:3999', status: 201 },
    { name: 'localhost is allowed by default', host: 'localhost:3999', status: 201 },
    { name: "the machine's name is allowed by default", host: `${os.hostname()}:3999`, status: 201 },
    { name: 'a garbled Host is refused', host: 'a b', status: 403 },
    {
      name: 'a configured name is allowed',
      allowed: 'erawatch.example.com, ops.example',
      host: 'ERAWATCH.example.com',
      status: 201,
    },
    {
      name: 'with a list set, localhost is no longer allowed',
      allowed: 'erawatch.example.com',
      host: 'localhost:3999',
      status: 403,
    },
    { name: '* turns the check off', allowed: '*', host: 'anything.example', status: 201 },
  ];

  it.each(cases)('$name', async (c) => {
    if (c.allowed === undefined) delete process.env.ERAWATCH_ALLOWED_HOSTS;
    else process.env.ERAWATCH_ALLOWED_HOSTS = c.allowed;
    (await import('@/lib/settings')).resetProcessSettings();
    try {
      const before = balancerNames();
      const name = `host-${balancerNames().length}`;
      const res = await send(create, '/api/v1/balancers', {
        method: 'POST',
        token: ADMIN,
        host: c.host,
        body: { name, publicUrl: 'https://10.2.0.1/mcp' },
      });
      expect(res.status).toBe(c.status);
      if (c.status === 403) {
        expect(res.type).toBe('application/problem+json');
        expect(res.body).toMatchObject({
          type: 'https://erawatch.dev/problems/host_not_allowed',
          status: 403,
        });
        expect(String(res.body.detail)).toContain('ERAWATCH_ALLOWED_HOSTS');
        expect(balancerNames()).toEqual(before);
      } else {
        expect(balancerNames()).toContain(name);
      }
    } finally {
      delete process.env.ERAWATCH_ALLOWED_HOSTS;
      (await import('@/lib/settings')).resetProcessSettings();
    }
  });
});
