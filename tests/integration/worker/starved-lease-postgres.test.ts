// On PostgreSQL a poll worker whose connection pool is all taken (here: its one pool connection waits on a
// table lock the test holds, inside a cycle's write) still renews the units it holds, so a second live worker
// never takes them over while the first is alive; once the starved worker is killed with -9, the second takes
// its units over within the lease TTL, and no node is ever probed twice at once.
import { processSettings } from '@/lib/settings';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore, type Store } from '@/db';
import { createBalancer } from '@/lib/balancers';
import { listPollWorkers, listUnits, storeNow, syncUnits, type UnitRow } from '@/db/queries/units';
import { createDatabase, describePostgres, sharedCluster, stopSharedCluster } from '../../support/postgres';
import { pollUntil, PollAborted } from '../../support/wait';
import { startWorkerProcess, type WorkerProcess } from '../../support/worker-process';

const TTL_MS = 6_000;
const X_NODES = [1, 2, 3];
const Y_NODES = [11, 12, 13];

/** Modern MCP nodes at /m/<n>: records each probe's start, counts overlaps, and holds nodes' answers on demand. */
interface Fleet {
  url: string;
  probes: Map<number, number[]>;
  overlaps: number;
  hold: Set<number>;
  held: Array<{ node: number; answer: () => void }>;
  release(nodes: readonly number[]): void;
  close(): Promise<void>;
}

async function startFleet(): Promise<Fleet> {
  const inFlight = new Map<number, number>();
  const sockets = new Set<import('node:net').Socket>();
  const fleet = {
    probes: new Map<number, number[]>(),
    overlaps: 0,
    hold: new Set<number>(),
    held: [] as Fleet['held'],
  };
  const server = http.createServer((req, res) => {
    const node = Number(/^\/m\/(\d+)/.exec(req.url ?? '')?.[1] ?? NaN);
    if (!Number.isFinite(node) || req.method !== 'POST') {
      res.writeHead(404).end();
      return;
    }
    const n = (inFlight.get(node) ?? 0) + 1;
    inFlight.set(node, n);
    if (n > 1) fleet.overlaps += 1;
    res.once('close', () => inFlight.set(node, (inFlight.get(node) ?? 1) - 1));
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const msg = JSON.parse(body) as { id?: number | string; method?: string };
      const discover = msg.method === 'server/discover';
      const answer = () => {
        if (msg.id === undefined) {
          res.writeHead(202).end();
          return;
        }
        const reply = discover
          ? {
              jsonrpc: '2.0',
              id: msg.id,
              result: {
                supportedVersions: ['2026-07-28'],
                capabilities: { tools: {} },
                resultType: 'complete',
                ttlMs: 0,
                cacheScope: 'private',
                _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'fleet', version: '1.0.0' } },
              },
            }
          : { jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } };
        res.writeHead(discover ? 200 : 404, { 'content-type': 'application/json' });
        res.end(JSON.stringify(reply));
      };
      if (discover) fleet.probes.set(node, [...(fleet.probes.get(node) ?? []), Date.now()]);
      if (fleet.hold.has(node)) fleet.held.push({ node, answer });
      else answer();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fleet, {
    url: `http://127.0.0.1:${port}`,
    release(nodes: readonly number[]) {
      for (const n of nodes) fleet.hold.delete(n);
      const go = fleet.held.filter((h) => nodes.includes(h.node));
      fleet.held = fleet.held.filter((h) => !nodes.includes(h.node));
      go.forEach((h) => h.answer());
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  });
}

describePostgres('a poll worker starved of pool connections', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-starved-'));
  const workers: WorkerProcess[] = [];
  let fleet: Fleet | null = null;
  let store: Store | null = null;
  let blocker: postgres.ReservedSql | null = null;
  let admin: postgres.Sql | null = null;
  let location = '';
  let xId = '';
  let yId = '';

  const theStore = () => {
    if (!store) throw new Error('no store');
    return store;
  };
  const theFleet = () => {
    if (!fleet) throw new Error('no fleet');
    return fleet;
  };

  function startWorker(db: string, extra: Record<string, string>): WorkerProcess {
    const w = startWorkerProcess({
      ERAWATCH_DB: db,
      ERAWATCH_ALLOW_LOOPBACK: '1',
      ERAWATCH_POLL_LEASE_TTL_MS: String(TTL_MS),
      ERAWATCH_CONFIG: path.join(dir, 'absent.yaml'),
      ...extra,
    });
    workers.push(w);
    return w;
  }

  const unitOf = async (id: string): Promise<UnitRow | undefined> =>
    (await listUnits(theStore())).find((u) => u.unitId === id);
  const probedAfter = (nodes: readonly number[], t: number) =>
    nodes.every((n) => (theFleet().probes.get(n) ?? []).some((at) => at > t));

  beforeAll(async () => {
    const cluster = await sharedCluster();
    location = await createDatabase('starved-lease');
    admin = postgres(cluster.url(new URL(location).pathname.slice(1)), { max: 2, onnotice: () => {} });
    fleet = await startFleet();
    store = await openStore(location, { settings: processSettings() });
    const make = async (name: string, nodes: number[]) =>
      (
        await createBalancer(theStore(), {
          name,
          publicUrl: `${theFleet().url}/m/${900 + (nodes[0] ?? 0)}`,
          nodeUrls: nodes.map((n) => `${theFleet().url}/m/${n}`),
          samplesPerCycle: 0,
          // Long enough that neither is due again during the test, and that a held probe never times out.
          intervalMs: 600_000,
          timeoutMs: 60_000,
          legacyProbeTimeoutMs: 10_000,
        })
      ).id;
    xId = await make('starved-x', X_NODES);
    yId = await make('starved-y', Y_NODES);
    // Due at once (a unit the poll role creates itself waits for its phase slot).
    await syncUnits(theStore(), 'default', [
      { kind: 'balancer', unitId: xId, dueAt: 0 },
      { kind: 'balancer', unitId: yId, dueAt: 0 },
    ]);
  });

  afterAll(async () => {
    for (const w of workers) if (w.alive()) process.kill(w.pid, 'SIGKILL');
    await Promise.all(workers.map((w) => w.exited));
    await blocker?.unsafe('ROLLBACK').catch(() => undefined);
    blocker?.release();
    await admin?.end({ timeout: 5 });
    fleet?.held.splice(0).forEach((h) => h.answer());
    await fleet?.close();
    await store?.close();
    fs.rmSync(dir, { recursive: true, force: true });
    await stopSharedCluster();
  });

  it('keeps its units while alive, and loses them to a live peer within the TTL after kill -9', async () => {
    const f = theFleet();
    const sql = admin;
    if (!sql) throw new Error('no admin connection');
    // Every cycle write stores the region's analysis first: with this lock held, the starved worker's write
    // of X waits inside its transaction, on the only connection of its pool.
    blocker = await sql.reserve();
    await blocker.unsafe('BEGIN');
    await blocker.unsafe('LOCK TABLE balancer_region_states IN SHARE MODE');
    [...X_NODES, ...Y_NODES].forEach((n) => f.hold.add(n));

    const starved = startWorker(`${location}?application_name=erawatch-starved`, {
      ERAWATCH_PG_POOL: '1',
      ERAWATCH_PG_STATEMENT_TIMEOUT_MS: '0',
    });
    const check = <T>(what: string, ms: number, fn: () => T | Promise<T>) =>
      pollUntil(what, ms, () => {
        if (!starved.alive()) throw new PollAborted(`the starved worker exited:\n${starved.output()}`);
        return fn();
      });
    await check('X and Y both held by the starved worker, their probes in flight', 60_000, async () => {
      const units = await listUnits(theStore());
      const mine = units.filter((u) => u.pid === starved.pid && (u.unitId === xId || u.unitId === yId));
      return (
        mine.length === 2 &&
        f.held.some((h) => X_NODES.includes(h.node)) &&
        f.held.some((h) => Y_NODES.includes(h.node))
      );
    });
    // X's probes answer: its write opens, takes X's row under the fence and waits on the lock.
    f.release(X_NODES);
    await check("X's write waiting on the lock, holding the pool's only connection", 60_000, async () => {
      const rows = await sql<Array<{ n: number }>>`
        SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = 'erawatch-starved' AND wait_event_type = 'Lock'`;
      return (rows[0]?.n ?? 0) >= 1;
    });
    const y0 = await unitOf(yId);
    if (!y0 || y0.pid !== starved.pid) throw new Error('Y is not held by the starved worker');

    const peer = startWorker(location, {});
    await pollUntil('the peer polling', 60_000, () => /polling region default/.test(peer.output()));
    // Wait, by the database's clock, until Y's lease as it stood would have lapsed a full TTL ago, with the
    // peer alive throughout; a worker that cannot renew has lost Y to the peer by then.
    const outcome = await check(
      'Y taken over, or renewed a TTL past its lapse with the peer alive',
      120_000,
      async () => {
        const y = await unitOf(yId);
        if (!y) throw new Error('Y has no unit row');
        if (y.pid !== starved.pid || y.token !== y0.token) return 'taken over' as const;
        const peerRow = (await listPollWorkers(theStore(), Date.now())).find((w) => w.pid === peer.pid);
        const farEnough = y0.expiresAt + 2 * TTL_MS;
        return y.expiresAt >= farEnough && (peerRow?.expiresAt ?? 0) >= farEnough ? ('kept' as const) : null;
      },
    );
    expect(outcome).toBe('kept');
    expect(await storeNow(theStore(), Date.now())).toBeGreaterThan(y0.expiresAt);
    const x = await unitOf(xId);
    expect(x?.pid).toBe(starved.pid);
    // The peer probed none of Y's nodes: each has only the starved worker's one (held) probe.
    for (const n of Y_NODES) expect(f.probes.get(n)?.length).toBe(1);

    // kill -9 of the starved worker, still starved: the lock is let go after, so its write can never commit.
    process.kill(starved.pid, 'SIGKILL');
    await starved.exited;
    const killedAt = Date.now();
    await blocker.unsafe('COMMIT');
    blocker.release();
    blocker = null;
    f.release(Y_NODES);
    await pollUntil("the peer probing X's and Y's nodes", 60_000, () => {
      if (!peer.alive()) throw new PollAborted(`the peer exited:\n${peer.output()}`);
      return probedAfter(X_NODES, killedAt) && probedAfter(Y_NODES, killedAt);
    });
    for (const n of [...X_NODES, ...Y_NODES]) {
      const first = (f.probes.get(n) ?? []).find((at) => at > killedAt) ?? Infinity;
      expect(first - killedAt).toBeLessThan(TTL_MS);
    }
    const units = await pollUntil('both units handed back by the peer', 60_000, async () => {
      const rows = await listUnits(theStore());
      return rows.filter(
        (u) => (u.unitId === xId || u.unitId === yId) && u.pid === peer.pid && (u.lastCycleAt ?? 0) > 0,
      ).length === 2
        ? rows
        : null;
    });
    expect(units.filter((u) => u.unitId === xId || u.unitId === yId).every((u) => u.token > 1)).toBe(true);
    expect(f.overlaps).toBe(0);
    // Nothing of the killed worker's write of X landed: X's stored state is from the peer's cycle.
    const states = await theStore().read((db) => db.select().from(theStore().t.balancerRegionStates));
    const xStates = states.filter((s) => s.balancerId === xId);
    expect(xStates).toHaveLength(1);
    expect(xStates[0]?.analyzedAt).toBeGreaterThan(killedAt);
  }, 450_000);
});
