// Writes while PostgreSQL is out get 503 `store_unavailable` with Retry-After, never 500, and nothing is
// written. The web process reaches a cluster of this test's own through a door the test can turn silent (a hung
// server behind a load balancer: connections accepted, never answered), then the cluster itself is stopped.
// A silent server costs a write its answer deadline (the one /readyz keeps), not the connect timeout: the URL
// sets a connect timeout far beyond it, so a write that waited for the driver would not be answered here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPgDatabase,
  killPgClusterNow,
  startPgCluster,
  stopPgCluster,
  type PgCluster,
} from '../../support/pg-cluster';
import { describePostgres } from '../../support/postgres';
import { onPostgres } from '../../support/store';
import { startTcpRelay, type TcpRelay } from '../../support/tcp-relay';

const ADMIN = 'writes-outage-admin-secret-0123';

(onPostgres ? describePostgres : describe.skip)('writes while PostgreSQL is out', () => {
  let cluster: PgCluster | null = null;
  let door: TcpRelay | null = null;

  beforeAll(async () => {
    cluster = await startPgCluster();
    const url = new URL(await createPgDatabase(cluster, 'writes_outage'));
    door = await startTcpRelay({ host: url.hostname, port: Number(url.port) });
    url.port = String(door.port);
    url.searchParams.set('connect_timeout', '600');
    process.env.ERAWATCH_DB = url.toString();
    process.env.ERAWATCH_ADMIN_SECRET = ADMIN;
    process.env.ERAWATCH_BIND = '127.0.0.1';
    process.env.ERAWATCH_ALLOW_LOOPBACK = '1';
    (await import('@/lib/settings')).resetProcessSettings();
  }, 180_000);

  afterAll(async () => {
    door?.restore();
    const { getStore } = await import('@/db/index');
    const { processSettings } = await import('@/lib/settings');
    await (await getStore({ settings: processSettings() })).close();
    await door?.close();
    if (cluster) await stopPgCluster(cluster).catch(() => killPgClusterNow(cluster as PgCluster));
  });

  const call = async (method: 'GET' | 'POST', body?: unknown) => {
    const { GET, POST } = await import('@/app/api/v1/balancers/route');
    const req = new Request('http://127.0.0.1:3999/api/v1/balancers', {
      method,
      headers: {
        host: '127.0.0.1:3999',
        authorization: `Bearer ${ADMIN}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const res = await (method === 'GET' ? GET(req) : POST(req));
    return {
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      body: (await res.json()) as { type?: string; detail?: string; items?: Array<{ name: string }> },
    };
  };
  const balancer = (name: string) => ({ name, publicUrl: 'http://127.0.0.1:9/mcp' });

  it('a silent server: 503 by the answer deadline, nothing written; a stopped one: 503 at once', async () => {
    const before = await call('POST', balancer('before'));
    expect(before.status, JSON.stringify(before.body)).toBe(201);

    door?.silence();
    // A write on a pooled connection the silence dropped fails at once (unreachable); one that needs a new
    // connection waits for an answer that never comes, until the deadline.
    const during: Array<Awaited<ReturnType<typeof call>>> = [];
    for (let i = 0; i < 5 && !during.some((r) => r.body.detail?.includes('did not answer')); i++)
      during.push(await call('POST', balancer(`during-silence-${i}`)));
    for (const r of during) {
      expect(r.status).toBe(503);
      expect(r.body.type).toBe('https://erawatch.dev/problems/store_unavailable');
      expect(Number(r.retryAfter)).toBeGreaterThan(0);
    }
    expect(during.at(-1)?.body.detail).toBe('the database did not answer within 2 s; nothing was written');
    const read = await call('GET');
    expect(read.status).toBe(503);

    // Back: the write given up is not made later, when its connection finally gets through.
    door?.restore();
    let after = await call('POST', balancer('after'));
    for (let i = 0; i < 50 && after.status === 503; i++) after = await call('POST', balancer('after'));
    expect(after.status).toBe(201);
    const names = (await call('GET')).body.items?.map((b) => b.name).sort();
    expect(names).toEqual(['after', 'before']);

    // The server itself stops: its sessions end and new connections are refused.
    await stopPgCluster({ pid: cluster?.pid ?? 0, dir: '' });
    for (const name of ['stopped-1', 'stopped-2']) {
      const stopped = await call('POST', balancer(name));
      expect(stopped.status).toBe(503);
      expect(stopped.body.type).toBe('https://erawatch.dev/problems/store_unavailable');
      expect(Number(stopped.retryAfter)).toBeGreaterThan(0);
    }
  }, 240_000);
});
