import { processSettings } from '@/lib/settings';
import { sqliteOf } from '@/db';
// Probe-now, /metrics, /healthz and /readyz against a real MCP SDK server on loopback and a real SQLite file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { onPostgres, storeLocation } from '../../support/store';
import { startLocalPoller } from '../../support/local-poller';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-ops-'));
process.env.ERAWATCH_DB = await storeLocation(dir, 'ops.db');
process.env.ERAWATCH_ADMIN_SECRET = 'ops-admin-secret-0123456789abcdef';
process.env.ERAWATCH_BIND = '127.0.0.1';
process.env.ERAWATCH_ALLOW_LOOPBACK = '1';
process.env.ERAWATCH_RATE_LIMIT = '0';

type Handler = (req: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response>;
const ADMIN = process.env.ERAWATCH_ADMIN_SECRET;
let peer: RunningPeer | null = null;

function request(url: string, init: { method?: string; token?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = { host: '127.0.0.1:3999' };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return new Request(`http://127.0.0.1:3999${url}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

async function handler(modulePath: Promise<unknown>, method: string): Promise<Handler> {
  const mod = (await modulePath) as Record<string, Handler | undefined>;
  const h = mod[method];
  if (!h) throw new Error(`no ${method}`);
  return h;
}

beforeAll(async () => {
  peer = await startPeer('v2-dual', { name: 'ops-node', version: '2.4.0' });
});

afterAll(async () => {
  await peer?.stop();
  const { closeDefaultProbe } = await import('@/lib/poller/default-probe');
  await closeDefaultProbe();
  const { getStore } = await import('@/db/index');
  await (await getStore({ settings: processSettings() })).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('operations', () => {
  it('probe-now runs a real cycle; /metrics then shows the era counts and probe histogram without URLs', async () => {
    const url = peer?.url ?? '';
    const create = await handler(import('@/app/api/v1/balancers/route'), 'POST');
    const created = await create(
      request('/api/v1/balancers', {
        method: 'POST',
        token: ADMIN,
        body: { name: 'ops-fleet', publicUrl: url, nodeUrls: [url], samplesPerCycle: 0 },
      }),
    );
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { id: string }).id;

    const probe = await handler(import('@/app/api/v1/balancers/[id]/probe/route'), 'POST');
    // Probe-now asks a poll worker of this region: this process's own, as `next start` runs one.
    const poller = await startLocalPoller();
    const res = await probe(request(`/api/v1/balancers/${id}/probe`, { method: 'POST', token: ADMIN }), {
      params: Promise.resolve({ id }),
    });
    // Stopping the role flushes its probe series to the store, where /metrics reads them.
    await poller.stop();
    expect(res.status).toBe(200);
    const result = (await res.json()) as {
      probes: number;
      analysis: { status: string; counts: { availableNodes: number } };
    };
    expect(result.probes).toBe(1);
    expect(result.analysis.status).toBe('uniform');
    expect(result.analysis.counts.availableNodes).toBe(1);

    const gate = await handler(import('@/app/api/v1/balancers/[id]/gate/route'), 'GET');
    const answer = await gate(request(`/api/v1/balancers/${id}/gate?revision=2026-07-28`, { token: ADMIN }), {
      params: Promise.resolve({ id }),
    });
    expect(((await answer.json()) as { ready: boolean }).ready).toBe(true);

    const metrics = await handler(import('@/app/(ops)/metrics/route'), 'GET');
    const denied = await metrics(request('/metrics'));
    expect(denied.status).toBe(401);
    const scraped = await metrics(request('/metrics', { token: ADMIN }));
    expect(scraped.status).toBe(200);
    const text = await scraped.text();
    expect(text).toContain('erawatch_nodes{era="modern"} 1');
    expect(text).toContain('erawatch_balancer_state{balancer="ops-fleet",state="uniform"} 1');
    expect(text).toMatch(/erawatch_probe_duration_seconds_count\{era="modern"\} 1/);
    expect(text).not.toContain(String(peer?.port));
    expect(text).not.toContain(ADMIN);
  });

  it('/healthz answers while the process is up', async () => {
    const health = await handler(import('@/app/(ops)/healthz/route'), 'GET');
    const res = await health(request('/healthz'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('/readyz is 503 while no process holds the poll role (ERAWATCH_POLLER=off included), 200 once one does', async () => {
    const ready = await handler(import('@/app/(ops)/readyz/route'), 'GET');
    const notReady = await ready(request('/readyz'));
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toMatchObject({
      ready: false,
      checks: {
        database: { ok: true, detail: 'store answers' },
        poller: { ok: false, detail: 'no worker runs the poll role' },
      },
    });
    // With the admin secret (or a token) the store also takes the heartbeat write.
    expect(await (await ready(request('/readyz', { token: ADMIN }))).json()).toMatchObject({
      checks: { database: { ok: true, detail: 'heartbeat written' } },
    });
    process.env.ERAWATCH_POLLER = 'off';
    (await import('@/lib/settings')).resetProcessSettings();
    try {
      const off = await ready(request('/readyz'));
      expect(off.status).toBe(503);
      expect(await off.json()).toMatchObject({
        ready: false,
        checks: {
          poller: {
            ok: false,
            detail: expect.stringMatching(/no worker runs the poll role.*erawatch worker/),
          },
        },
      });
      // A worker on another host takes the poll role: this web process is ready without polling itself.
      const { getStore } = await import('@/db/index');
      const { heartbeatPollWorker, removePollWorker } = await import('@/db/queries/units');
      const worker = { holder: 'worker-elsewhere', pid: 4242, hostname: 'worker-host', region: 'eu-west' };
      await heartbeatPollWorker(
        await getStore({ settings: processSettings() }),
        worker,
        60_000,
        Date.now(),
        3,
        null,
      );
      try {
        // Anonymous: the verdict, no host names or pids.
        const anonymous = await ready(request('/readyz'));
        expect(anonymous.status).toBe(200);
        const text = await anonymous.text();
        expect(JSON.parse(text)).toMatchObject({
          ready: true,
          checks: { poller: { ok: true, detail: expect.stringMatching(/^1 worker in 1 region; /) } },
        });
        expect(text).not.toContain('worker-host');
        expect(text).not.toContain('4242');
        const held = await ready(request('/readyz', { token: ADMIN }));
        expect(held.status).toBe(200);
        expect(await held.json()).toMatchObject({
          ready: true,
          checks: {
            poller: {
              ok: true,
              detail: expect.stringMatching(/region eu-west: worker-host \(pid 4242, 3 units in flight\)/),
            },
          },
        });
      } finally {
        await removePollWorker(await getStore({ settings: processSettings() }), worker.holder);
      }
    } finally {
      delete process.env.ERAWATCH_POLLER;
      (await import('@/lib/settings')).resetProcessSettings();
    }
  });

  it('an anonymous /readyz writes nothing to the store', async () => {
    const { openReader } = await import('../../support/store');
    const reader = await openReader(process.env.ERAWATCH_DB ?? '');
    const newest = async () =>
      Number(
        (await reader.all<{ id: number | null }>('SELECT max(id) AS id FROM store_heartbeats'))[0]?.id ?? 0,
      );
    try {
      const ready = await handler(import('@/app/(ops)/readyz/route'), 'GET');
      const before = await newest();
      for (let i = 0; i < 3; i++) await ready(request('/readyz'));
      expect(await newest()).toBe(before);
      // A caller with the admin secret gets the write check: a new heartbeat row.
      await ready(request('/readyz', { token: ADMIN }));
      expect(await newest()).toBeGreaterThan(before);
    } finally {
      await reader.close();
    }
  });

  it.skipIf(onPostgres)(
    'a SQLite file removed or replaced under the process: /readyz 503 and writes 503 until it is back',
    async () => {
      const file = process.env.ERAWATCH_DB ?? '';
      const ready = await handler(import('@/app/(ops)/readyz/route'), 'GET');
      const create = await handler(import('@/app/api/v1/balancers/route'), 'POST');
      const list = await handler(import('@/app/api/v1/balancers/route'), 'GET');
      const post = (name: string) =>
        create(
          request('/api/v1/balancers', {
            method: 'POST',
            token: ADMIN,
            body: { name, publicUrl: 'http://127.0.0.1:9/mcp' },
          }),
        );
      const names = async () =>
        (
          (await (await list(request('/api/v1/balancers', { token: ADMIN }))).json()) as {
            items: Array<{ name: string }>;
          }
        ).items.map((b) => b.name);
      const away = `${file}.away`;
      // Removed (the path names nothing; the open file lives on, unlinked).
      fs.renameSync(file, away);
      try {
        const gone = await ready(request('/readyz'));
        expect(gone.status).toBe(503);
        expect(await gone.json()).toMatchObject({
          ready: false,
          checks: { database: { ok: false, detail: 'the database file was removed' } },
        });
        const refused = await post('written-while-removed');
        expect(refused.status).toBe(503);
        expect(((await refused.json()) as { type: string }).type).toBe(
          'https://erawatch.dev/problems/store_unavailable',
        );
        // Replaced by another file at the same path.
        fs.copyFileSync(away, file);
        const replaced = await ready(request('/readyz', { token: ADMIN }));
        expect(replaced.status).toBe(503);
        expect(await replaced.json()).toMatchObject({
          checks: { database: { ok: false, detail: 'the database file was replaced by another file' } },
        });
        expect((await post('written-while-replaced')).status).toBe(503);
      } finally {
        fs.renameSync(away, file);
      }
      // Back: writes are taken again, and none of the refused ones was stored.
      expect((await post('written-when-back')).status).toBe(201);
      const stored = await names();
      expect(stored).toContain('written-when-back');
      expect(stored).not.toContain('written-while-removed');
      expect(stored).not.toContain('written-while-replaced');
    },
  );

  // SQLite's page limit stands in for a full disk; PostgreSQL has no such knob.
  it.skipIf(onPostgres)(
    'a full store turns /readyz to 503 (the heartbeat write fails) and back to 200 once it can grow',
    async () => {
      const { getStore } = await import('@/db/index');
      const { heartbeatPollWorker, removePollWorker } = await import('@/db/queries/units');
      const store = await getStore({ settings: processSettings() });
      const worker = { holder: 'worker-full', pid: 4243, hostname: 'worker-host', region: 'default' };
      await heartbeatPollWorker(store, worker, 60_000, Date.now(), 0, null);
      const ready = await handler(import('@/app/(ops)/readyz/route'), 'GET');
      const metrics = await handler(import('@/app/(ops)/metrics/route'), 'GET');
      const writeErrors = async () => {
        const text = await (await metrics(request('/metrics', { token: ADMIN }))).text();
        return Number(/^erawatch_store_write_errors_total (\d+)/m.exec(text)?.[1] ?? Number.NaN);
      };
      expect((await ready(request('/readyz', { token: ADMIN }))).status).toBe(200);
      const errorsBefore = await writeErrors();
      const pages = Number(sqliteOf(store).pragma('page_count', { simple: true }));
      // A store that may not grow past its current size: what a full disk looks like to SQLite.
      sqliteOf(store).pragma(`max_page_count = ${pages}`);
      const fill = sqliteOf(store).prepare(
        "INSERT INTO store_heartbeats (holder, at, pad) VALUES ('filler', 0, ?)",
      );
      try {
        for (const size of [65_536, 1_024, 64]) {
          for (let i = 0; i < 10_000; i++) {
            try {
              fill.run(Buffer.alloc(size));
            } catch (err) {
              expect((err as { code?: string }).code).toBe('SQLITE_FULL');
              break;
            }
          }
        }
        const full = await ready(request('/readyz', { token: ADMIN }));
        expect(full.status).toBe(503);
        expect(await full.json()).toMatchObject({
          ready: false,
          checks: {
            database: {
              ok: false,
              detail: expect.stringMatching(/heartbeat write failed: .*full.*\(SQLITE_FULL\)/),
            },
            poller: { ok: true },
          },
        });
        expect(await writeErrors()).toBeGreaterThan(errorsBefore);
      } finally {
        sqliteOf(store).pragma('max_page_count = 1073741823');
      }
      const back = await ready(request('/readyz', { token: ADMIN }));
      expect(back.status).toBe(200);
      expect(await back.json()).toMatchObject({ ready: true, checks: { database: { ok: true } } });
      sqliteOf(store).prepare("DELETE FROM store_heartbeats WHERE holder = 'filler'").run();
      await removePollWorker(store, worker.holder);
    },
  );
});
