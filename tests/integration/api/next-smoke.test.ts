// The API through a real `next start` on loopback: auth, problem+json, tokens, a write and a read, the
// contracts, the ops endpoints, and the start-up refusal on a public bind without an admin secret.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureNextBuild, startNextServer, type NextServer } from '@/lib/demo/next-app';

const root = path.resolve(import.meta.dirname, '../../..');
const ADMIN = 'smoke-admin-secret-0123456789abcdef';
let dir = '';
let server: NextServer | null = null;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

async function api(pathname: string, init: { method?: string; token?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${server?.url ?? ''}${pathname}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  let json: Record<string, unknown> | null = null;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = null;
  }
  return { status: res.status, type: res.headers.get('content-type'), text, json };
}

beforeAll(async () => {
  await ensureNextBuild(root);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-smoke-'));
  server = await startNextServer({
    root,
    host: '127.0.0.1',
    port: await freePort(),
    env: {
      ERAWATCH_DB: path.join(dir, 'smoke.db'),
      ERAWATCH_ADMIN_SECRET: ADMIN,
      ERAWATCH_ALLOW_LOOPBACK: '1',
      ERAWATCH_POLLER: 'off',
      ERAWATCH_WEBHOOKS: 'off',
      ERAWATCH_CONFIG: path.join(dir, 'absent.yaml'),
    },
  });
}, 600_000);

afterAll(async () => {
  await server?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('next start smoke', () => {
  it('serves the API with bearer auth and problem+json errors', async () => {
    const anonymous = await api('/api/v1/balancers');
    expect(anonymous.status).toBe(401);
    expect(anonymous.type).toBe('application/problem+json');
    expect(anonymous.json).toMatchObject({
      status: 401,
      type: 'https://erawatch.dev/problems/credentials_required',
    });

    const read = await api('/api/v1/tokens', {
      method: 'POST',
      token: ADMIN,
      body: { name: 'smoke-read', scope: 'read' },
    });
    const write = await api('/api/v1/tokens', {
      method: 'POST',
      token: ADMIN,
      body: { name: 'smoke-write', scope: 'write' },
    });
    expect([read.status, write.status]).toEqual([201, 201]);
    const readToken = String(read.json?.token);
    const writeToken = String(write.json?.token);

    const body = { name: 'smoke-fleet', publicUrl: 'http://127.0.0.1:9/mcp' };
    const denied = await api('/api/v1/balancers', { method: 'POST', token: readToken, body });
    expect(denied.status).toBe(403);
    expect(denied.json?.type).toBe('https://erawatch.dev/problems/insufficient_scope');

    const invalid = await api('/api/v1/balancers', { method: 'POST', token: writeToken, body: { name: '' } });
    expect(invalid.status).toBe(422);
    expect((invalid.json?.errors as Array<{ pointer: string }>).map((e) => e.pointer)).toEqual(
      expect.arrayContaining(['/name', '/publicUrl']),
    );

    const created = await api('/api/v1/balancers', { method: 'POST', token: writeToken, body });
    expect(created.status).toBe(201);
    const list = await api('/api/v1/balancers', { token: readToken });
    expect((list.json?.items as Array<{ name: string }>).map((b) => b.name)).toEqual(['smoke-fleet']);
  });

  it('serves the contracts, the reference page and the ops endpoints', async () => {
    const openapi = await api('/api/v1/openapi.json');
    expect(openapi.json?.openapi).toBe('3.1.0');
    const schema = await api('/api/v1/config.schema.json');
    expect(Object.keys((schema.json?.properties as Record<string, unknown>) ?? {})).toEqual(
      expect.arrayContaining(['balancers', 'webhooks']),
    );
    const docs = await api('/api-docs');
    expect(docs.status).toBe(200);
    expect(docs.text).toContain('Erawatch API v1');
    expect((await api('/healthz')).status).toBe(200);
    // The web process runs no poller (ERAWATCH_POLLER=off) and none runs elsewhere yet: not ready.
    const ready = await api('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.json).toMatchObject({
      ready: false,
      checks: { database: { ok: true }, poller: { ok: false } },
    });
    expect((await api('/metrics', { token: ADMIN })).text).toContain('erawatch_nodes');
  });

  it('a write after the SQLite file was removed gets 503 store_unavailable, not 500; served again once it is back', async () => {
    // The store is opened at start-up by another bundle than the route's: its error is told by its code.
    const file = path.join(dir, 'smoke.db');
    const aside = path.join(dir, 'smoke.db.aside');
    fs.renameSync(file, aside);
    try {
      const refused = await api('/api/v1/tokens', {
        method: 'POST',
        token: ADMIN,
        body: { name: 'while-gone', scope: 'read' },
      });
      expect(refused.status).toBe(503);
      expect(refused.json).toMatchObject({ type: 'https://erawatch.dev/problems/store_unavailable' });
      expect((await api('/readyz')).status).toBe(503);
    } finally {
      fs.renameSync(aside, file);
    }
    const made = await api('/api/v1/tokens', {
      method: 'POST',
      token: ADMIN,
      body: { name: 'after-return', scope: 'read' },
    });
    expect(made.status).toBe(201);
    const names = (
      (await api('/api/v1/tokens', { token: ADMIN })).json?.items as Array<{ name: string }>
    ).map((t) => t.name);
    expect(names).toContain('after-return');
    expect(names).not.toContain('while-gone');
  });

  it('refuses to start on a public bind without an admin secret, saying how to set one', async () => {
    const port = await freePort();
    // The listener itself stays on loopback; ERAWATCH_BIND states the public bind the check must refuse.
    const attempt = startNextServer({
      root,
      host: '127.0.0.1',
      port,
      readyTimeoutMs: 60_000,
      env: {
        ERAWATCH_DB: path.join(dir, 'refused.db'),
        ERAWATCH_BIND: '0.0.0.0',
        ERAWATCH_POLLER: 'off',
        ERAWATCH_ADMIN_SECRET: '',
      },
    });
    const error = await attempt.then(
      async (s) => {
        await s.stop();
        return null;
      },
      (err: Error) => err,
    );
    expect(error?.message).toContain('exited with code 1');
    expect(error?.message).toContain('refusing to listen on 0.0.0.0');
    expect(error?.message).toContain('ERAWATCH_ADMIN_SECRET');
  });
});
