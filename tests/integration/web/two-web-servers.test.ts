// Two real `next start` web processes on one store (PostgreSQL 15, and one SQLite file), with the poller off:
// a balancer registered through one is read from the other, and a dashboard session made on one works on
// the other, for reads and for writes, until an admin ends it through either; each PostgreSQL connection
// names its web process and roles.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureNextBuild, startNextServer, type NextServer } from '@/lib/demo/next-app';
import { verifySession } from '@/lib/auth/session';
import { createDatabase, describePostgres, sharedCluster, stopSharedCluster } from '../../support/postgres';
import { freePort, pollUntil } from '../../support/wait';

const root = path.resolve(import.meta.dirname, '../../..');
const ADMIN = 'two-web-admin-secret-0123456789abcdef';

beforeAll(async () => {
  await ensureNextBuild(root);
}, 900_000);

interface Reply {
  status: number;
  json: Record<string, unknown> | null;
  setCookie: string | null;
}

async function call(
  server: NextServer,
  pathname: string,
  init: { method?: string; cookie?: string; body?: unknown } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { origin: server.url };
  if (init.cookie) headers.cookie = init.cookie;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${server.url}${pathname}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    redirect: 'manual',
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  let json: Record<string, unknown> | null = null;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = null;
  }
  return { status: res.status, json, setCookie: res.headers.get('set-cookie') };
}

const names = (r: Reply) => ((r.json?.items ?? []) as Array<{ name: string }>).map((b) => b.name).sort();

/** Two web processes on `store`; the body gets them once both answer, and they are stopped after. */
function twoWebServers(engine: string, store: () => Promise<string>, extra: (db: string) => Promise<void>) {
  const servers: NextServer[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `erawatch-two-web-${engine}-`));
  let db = '';
  const server = (i: number) => {
    const s = servers[i];
    if (!s) throw new Error(`web process ${i} did not start`);
    return s;
  };

  beforeAll(async () => {
    db = await store();
    const env = {
      ERAWATCH_DB: db,
      ERAWATCH_ADMIN_SECRET: ADMIN,
      ERAWATCH_POLLER: 'off',
      ERAWATCH_ALLOW_LOOPBACK: '1',
      ERAWATCH_CONFIG: path.join(dir, 'absent.yaml'),
    };
    // One after the other: the first applies the migrations, the second finds them applied.
    for (let i = 0; i < 2; i++) {
      servers.push(
        await startNextServer({
          root,
          host: '127.0.0.1',
          port: await freePort(),
          env,
          readyTimeoutMs: 120_000,
        }),
      );
    }
  }, 300_000);
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a balancer registered through one is listed by the other; a session made on one works on both', async () => {
    const [a, b] = [server(0), server(1)];
    expect((await call(b, '/api/v1/balancers')).status).toBe(401);
    const login = await call(a, '/api/v1/session', { method: 'POST', body: { secret: ADMIN } });
    expect(login.status).toBe(200);
    const cookie = login.setCookie?.split(';')[0] ?? '';
    expect(cookie).toMatch(/^erawatch_session=./);

    const created = await call(a, '/api/v1/balancers', {
      method: 'POST',
      cookie,
      body: { name: `${engine}-from-a`, publicUrl: 'http://127.0.0.1:9/mcp' },
    });
    expect(created.status).toBe(201);
    const onB = await call(b, '/api/v1/balancers', { cookie });
    expect(onB.status).toBe(200);
    expect(names(onB)).toEqual([`${engine}-from-a`]);
    expect(await call(b, '/api/v1/session', { cookie })).toMatchObject({
      status: 200,
      json: { authenticated: true, via: 'session' },
    });

    // A write with that session through the other process, read back through the first.
    const second = await call(b, '/api/v1/balancers', {
      method: 'POST',
      cookie,
      body: { name: `${engine}-from-b`, publicUrl: 'http://127.0.0.1:10/mcp' },
    });
    expect(second.status).toBe(201);
    expect(names(await call(a, '/api/v1/balancers', { cookie }))).toEqual([
      `${engine}-from-a`,
      `${engine}-from-b`,
    ]);
    // The dashboard's own data reads work on the other process with that session, and not without it.
    const fleet = await call(b, '/dashboard-data/fleet', { cookie });
    expect(fleet.status).toBe(200);
    expect(JSON.stringify(fleet.json)).toContain(`${engine}-from-b`);
    expect((await call(b, '/dashboard-data/fleet', { cookie: 'erawatch_session=forged.value' })).status).toBe(
      401,
    );
    await extra(db);
  });

  it('a session an admin ends through one process is refused by both', async () => {
    const [a, b] = [server(0), server(1)];
    const login = async () =>
      (await call(a, '/api/v1/session', { method: 'POST', body: { secret: ADMIN } })).setCookie?.split(
        ';',
      )[0] ?? '';
    const admin = await login();
    const other = await login();
    const listed = await call(b, '/api/v1/sessions', { cookie: admin });
    expect(listed.status).toBe(200);
    const items = listed.json?.items as Array<{ id: string; current: boolean }>;
    const sidOf = (cookie: string) =>
      verifySession(cookie.slice('erawatch_session='.length), ADMIN, Date.now())?.sid ?? '';
    const target = sidOf(other);
    expect(items.map((s) => s.id)).toContain(target);
    expect(items.filter((s) => s.current).map((s) => s.id)).toEqual([sidOf(admin)]);
    for (const s of [a, b]) expect((await call(s, '/api/v1/balancers', { cookie: other })).status).toBe(200);
    expect((await call(b, `/api/v1/sessions/${target}`, { method: 'DELETE', cookie: admin })).status).toBe(
      204,
    );
    for (const s of [a, b]) {
      expect((await call(s, '/api/v1/balancers', { cookie: other })).status).toBe(401);
      expect((await call(s, '/api/v1/balancers', { cookie: admin })).status).toBe(200);
    }
  });
}

describePostgres('two web processes on one PostgreSQL', () => {
  afterAll(async () => {
    await stopSharedCluster();
  });
  twoWebServers(
    'postgres',
    () => createDatabase('two-web'),
    async (url) => {
      // Both web processes run deliver and maintain (the poller is off) and say so in application_name.
      const cluster = await sharedCluster();
      const admin = postgres(cluster.url(), { max: 1, onnotice: () => {} });
      try {
        const database = new URL(url).pathname.slice(1);
        const rows = await pollUntil('both web processes’ connections', 30_000, async () => {
          const seen = await admin<Array<{ name: string }>>`
            SELECT DISTINCT application_name AS name FROM pg_stat_activity
            WHERE datname = ${database} AND application_name LIKE 'erawatch-%'`;
          return seen.length > 0 && seen;
        });
        expect(rows.map((r) => r.name)).toEqual(['erawatch-web:deliver,maintain']);
      } finally {
        await admin.end({ timeout: 5 });
      }
    },
  );
});

describe('two web processes on one SQLite file', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-two-web-file-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  twoWebServers(
    'sqlite',
    async () => path.join(dir, 'shared.db'),
    async () => {},
  );
});
