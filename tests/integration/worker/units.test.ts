// Three `erawatch worker --roles poll` processes on one store share 1,000 nodes of a fake fleet that counts
// every probe per node: none is probed twice at once and none misses one of its balancer's cycles; a kill -9'd worker's
// balancers are probed again by the others within the lease TTL; a worker SIGSTOPped past its lease and then
// SIGCONTed writes nothing (its fencing token moved) and says so.
import { processSettings } from '@/lib/settings';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '@/db';
import { createBalancer } from '@/lib/balancers';
import { listSeries } from '@/db/queries/metric-series';
import { listUnits, storeNow } from '@/db/queries/units';
import { storeLocation } from '../../support/store';
import { waitFor } from '../poller/support';
import { startWorkerProcess, type WorkerProcess } from '../../support/worker-process';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-units-'));
// A SQLite file, or a fresh PostgreSQL database in the `postgres` project: the workers share it either way.
const location = await storeLocation(dir, 'shared.db');
const BALANCERS = 50;
const NODES_PER_BALANCER = 20;
// 100 probes/s in all: a loaded 2-core machine keeps to it with the store on either engine.
const INTERVAL_MS = 10_000;
// The longest lease the settings allow: a take-over at once and one at the lease's end are told apart on a
// loaded machine.
const TTL_MS = 15_000;
/** The balancer the fencing test holds: its probe deadline leaves time to stop its worker mid-cycle. */
const FENCED_NODES = Array.from({ length: 5 }, (_, i) => 10_000 + i);
/** The balancer the kill -9 test holds mid-cycle, so its worker surely holds a unit when it dies. */
const HELD_NODES = Array.from({ length: 5 }, (_, i) => 20_000 + i);

/** The fake fleet: modern nodes at /m/<n>; counts probes (server/discover) and overlaps per node. */
interface Fleet {
  url: string;
  probes: Map<number, number[]>;
  overlaps: number;
  /** Nodes whose requests are held (not answered) until released. */
  hold: Set<number>;
  held: Array<() => void>;
  close(): Promise<void>;
}

async function startFleet(): Promise<Fleet> {
  const inFlight = new Map<number, number>();
  const fleet: Omit<Fleet, 'url' | 'close'> = { probes: new Map(), overlaps: 0, hold: new Set(), held: [] };
  const server = http.createServer((req, res) => {
    const m = /^\/m\/(\d+)/.exec(req.url ?? '');
    if (!m || req.method !== 'POST') {
      res.writeHead(404).end();
      return;
    }
    const node = Number(m[1]);
    const n = (inFlight.get(node) ?? 0) + 1;
    inFlight.set(node, n);
    if (n > 1) fleet.overlaps += 1;
    res.once('close', () => inFlight.set(node, (inFlight.get(node) ?? 1) - 1));
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const msg = JSON.parse(body) as { id?: number | string; method?: string };
      const answer = () => {
        if (msg.id === undefined) {
          res.writeHead(202).end();
          return;
        }
        const result =
          msg.method === 'server/discover'
            ? {
                result: {
                  supportedVersions: ['2026-07-28'],
                  capabilities: { tools: {} },
                  resultType: 'complete',
                  ttlMs: 0,
                  cacheScope: 'private',
                  _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'fleet', version: '1.0.0' } },
                },
                jsonrpc: '2.0',
                id: msg.id,
              }
            : { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: msg.id };
        const text = JSON.stringify(result);
        res.writeHead(msg.method === 'server/discover' ? 200 : 404, { 'content-type': 'application/json' });
        res.end(text);
      };
      if (msg.method === 'server/discover') {
        const at = fleet.probes.get(node) ?? [];
        at.push(Date.now());
        fleet.probes.set(node, at);
      }
      if (fleet.hold.has(node)) fleet.held.push(answer);
      else answer();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fleet, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  });
}

function startWorker(): WorkerProcess {
  return startWorkerProcess({
    ERAWATCH_DB: location,
    ERAWATCH_ALLOW_LOOPBACK: '1',
    ERAWATCH_POLL_LEASE_TTL_MS: String(TTL_MS),
    ERAWATCH_CONFIG: path.join(dir, 'absent.yaml'),
  });
}

let fleet: Fleet | null = null;
let store: Store | null = null;
const workers: WorkerProcess[] = [];
const balancerOfNode = new Map<number, string>();
let fencedId = '';
let heldId = '';

function theStore(): Store {
  if (!store) throw new Error('no store');
  return store;
}

beforeAll(async () => {
  fleet = await startFleet();
  store = await openStore(location, { settings: processSettings() });
  for (let b = 0; b < BALANCERS; b++) {
    const nodes = Array.from({ length: NODES_PER_BALANCER }, (_, i) => b * NODES_PER_BALANCER + i);
    const created = await createBalancer(store, {
      name: `unit-${b}`,
      publicUrl: `${fleet.url}/m/${100_000 + b}`,
      nodeUrls: nodes.map((n) => `${fleet?.url ?? ''}/m/${n}`),
      samplesPerCycle: 0,
      intervalMs: INTERVAL_MS,
      timeoutMs: 2_000,
      legacyProbeTimeoutMs: 500,
    });
    for (const n of nodes) balancerOfNode.set(n, created.id);
  }
  // Balancers whose probes a test holds mid-cycle: their probe deadline leaves time to act on the worker.
  const slowBalancer = async (name: string, publicNode: number, nodes: number[]) => {
    const { id } = await createBalancer(theStore(), {
      name,
      publicUrl: `${fleet?.url ?? ''}/m/${publicNode}`,
      nodeUrls: nodes.map((n) => `${fleet?.url ?? ''}/m/${n}`),
      samplesPerCycle: 0,
      intervalMs: 20_000,
      timeoutMs: 8_000,
      legacyProbeTimeoutMs: 2_000,
    });
    for (const n of nodes) balancerOfNode.set(n, id);
    return id;
  };
  fencedId = await slowBalancer('unit-fenced', 200_000, FENCED_NODES);
  heldId = await slowBalancer('unit-held', 300_000, HELD_NODES);
  for (let i = 0; i < 3; i++) workers.push(startWorker());
}, 60_000);

afterAll(async () => {
  for (const w of workers) {
    if (w.child.exitCode === null && w.child.signalCode === null) {
      process.kill(w.pid, 'SIGCONT');
      process.kill(w.pid, 'SIGKILL');
    }
  }
  await Promise.all(workers.map((w) => w.exited));
  fleet?.held.splice(0).forEach((answer) => answer());
  await fleet?.close();
  await store?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Holds the next probes of a balancer's nodes until its cycle is in flight; answers its unit and worker. */
async function holdCycle(f: Fleet, balancerId: string, nodes: readonly number[]) {
  nodes.forEach((n) => f.hold.add(n));
  // Every node's probe started (its first request held at the fleet): a probe still queued in the worker's
  // limiter when the worker is stopped would be refused at its start, not at the cycle's write.
  await waitFor('a held probe of each node of the balancer', 60_000, () => f.held.length >= nodes.length);
  const unit = await waitFor('its claim in the store', 30_000, async () =>
    (await listUnits(theStore())).find((u) => u.unitId === balancerId && u.expiresAt > Date.now()),
  );
  const victim = workers.find((w) => w.pid === unit.pid);
  if (!victim) throw new Error(`unit held by an unknown pid ${unit.pid ?? 'none'}`);
  return { unit, victim };
}

const TOTAL = BALANCERS * NODES_PER_BALANCER;
const probesOf = (node: number) => fleet?.probes.get(node) ?? [];

describe('three poll workers on one store', () => {
  it('probe every node once per interval, never twice at once, and all three take part', async () => {
    // Who holds each unit, read throughout: a unit's row names its last holder, and one worker may be the
    // last holder of none at a given moment while it runs cycles between the others' claims.
    const holders = new Set<number>();
    await waitFor('six probes of every node', 240_000, async () => {
      for (const u of await listUnits(theStore())) if (u.pid !== null) holders.add(u.pid);
      for (let n = 0; n < TOTAL; n++) if (probesOf(n).length < 6) return false;
      return true;
    });
    expect(fleet?.overlaps).toBe(0);
    // A node missing an interval would fall behind the other nodes of its balancer: each cycle probes all of a
    // balancer's nodes, so their counts differ by at most the one cycle in flight. (How late cycles start on
    // this machine is a capacity figure: `npm run bench -- poller --workers 3` reports it.)
    const counts = new Map<string, number[]>();
    for (let n = 0; n < TOTAL; n++) {
      const id = balancerOfNode.get(n) ?? '';
      counts.set(id, [...(counts.get(id) ?? []), probesOf(n).length]);
    }
    expect(counts.size).toBe(BALANCERS);
    const spread = [...counts.values()].map((c) => Math.max(...c) - Math.min(...c));
    expect(Math.max(...spread)).toBeLessThanOrEqual(1);
    expect([...holders].sort()).toEqual(workers.map((w) => w.pid).sort());
  }, 300_000);

  it('after kill -9 of one worker, the balancers it held are probed again by the others before its leases lapse', async () => {
    const f = fleet;
    if (!f) throw new Error('no fleet');
    // Hold one balancer's probes, so the worker killed is inside its cycle (a cycle of the others lasts
    // milliseconds, so a worker picked at random holds none most of the time).
    const { unit, victim } = await holdCycle(f, heldId, HELD_NODES);
    const lastByVictim = (await listUnits(theStore())).filter((u) => u.pid === victim.pid);
    process.kill(victim.pid, 'SIGKILL');
    await victim.exited;
    // The fleet's clock (this process's): only ever compared with the fleet's own probe times.
    const killedAt = Date.now();
    HELD_NODES.forEach((n) => f.hold.delete(n));
    f.held.splice(0).forEach((answer) => answer());
    // The end of its lease on the held balancer, in the store's clock: its row as it left it (nothing renews it
    // now), or, when a peer has taken it over already, its row as last read before it died (an earlier end, so
    // the check below is only stricter). A unit it had handed back (expiresAt 0) is not a lease: released units
    // fall due again by their schedule, and are checked only for being probed again below.
    const row = (await listUnits(theStore())).find((u) => u.unitId === heldId);
    const leaseEnd =
      row && row.pid === victim.pid && row.token === unit.token ? row.expiresAt : unit.expiresAt;
    expect(leaseEnd).toBeGreaterThan(0);
    const firstNodeOf = (balancerId: string) =>
      [...balancerOfNode].find(([, b]) => b === balancerId)?.[0] ?? -1;
    const reprobed = (ids: readonly string[]) =>
      ids.every((id) => probesOf(firstNodeOf(id)).some((t) => t > killedAt));
    // Its pid on this host is gone, so its claims are taken at once, not when its leases lapse: the held
    // balancer is probed again while the lease it held when it died still runs. The moment is read as the
    // store's time when the probe has been seen, the clock its lease is in.
    const seenAt = await waitFor('the held balancer probed again', 60_000, async () =>
      reprobed([heldId]) ? await storeNow(theStore(), Date.now()) : null,
    );
    expect(seenAt).toBeLessThan(leaseEnd);
    const takenOver = (await listUnits(theStore())).find((u) => u.unitId === heldId);
    expect(takenOver?.token).toBeGreaterThan(unit.token);
    expect(takenOver?.pid).not.toBe(victim.pid);
    await waitFor('every balancer it last ran probed again', 60_000, () =>
      reprobed(lastByVictim.map((u) => u.unitId)),
    );
    const at = await storeNow(theStore(), Date.now());
    const units = await listUnits(theStore());
    expect(units.filter((u) => u.pid === victim.pid && u.expiresAt > at)).toEqual([]);
  });

  // PostgreSQL only: on one SQLite file a worker stopped inside a write transaction holds the file's write lock,
  // so no worker on the host can take anything over until it runs again (docs/deployment.md says so).
  it.runIf(location.startsWith('postgres'))(
    'a worker SIGSTOPped past its lease and SIGCONTed writes nothing: its token moved',
    async () => {
      const f = fleet;
      if (!f) throw new Error('no fleet');
      // Hold the next probes of one balancer's nodes, so its cycle is in flight when its worker is stopped.
      const balancerId = fencedId;
      const nodes = FENCED_NODES;
      const { unit, victim } = await holdCycle(f, balancerId, nodes);
      process.kill(victim.pid, 'SIGSTOP');
      nodes.forEach((n) => f.hold.delete(n));
      const stoppedAt = Date.now();
      const takenOver = await waitFor(
        'another worker to take the balancer over and finish a cycle',
        60_000,
        async () =>
          (await listUnits(theStore())).find(
            (u) =>
              u.unitId === balancerId &&
              u.pid !== victim.pid &&
              u.token > unit.token &&
              (u.lastCycleAt ?? 0) > stoppedAt,
          ),
      );
      expect(takenOver.pid).not.toBe(victim.pid);
      // Answer the stopped worker's probes and let it run on: its cycle ends, and its write is refused.
      f.held.splice(0).forEach((answer) => answer());
      process.kill(victim.pid, 'SIGCONT');
      const line = await waitFor('the refusal in its log', 60_000, () =>
        new RegExp(
          `the write of balancer ${balancerId}'s cycle at (\\S+) was refused.*nothing was written`,
        ).exec(victim.output()),
      ).catch((err: unknown) => {
        throw new Error(`${(err as Error).message}; its log ends:\n${victim.output().slice(-3000)}`);
      });
      const staleAt = Date.parse(line[1] ?? '');
      expect(Number.isFinite(staleAt)).toBe(true);
      const { balancerStates, nodes: nodeRows, subjectHistory } = theStore().t;
      const stored = await theStore().read(async (db) => ({
        analyzedAt: (await db.select().from(balancerStates)).filter((s) => s.balancerId === balancerId),
        nodeIds: (await db.select().from(nodeRows))
          .filter((n) => n.balancerId === balancerId)
          .map((n) => n.id),
        history: await db.select().from(subjectHistory),
      }));
      expect(stored.analyzedAt.map((s) => s.analyzedAt)).not.toContain(staleAt);
      const ids = new Set(stored.nodeIds);
      expect(stored.history.filter((h) => ids.has(h.subjectId) && h.startedAt === staleAt)).toEqual([]);
      await waitFor('the refusal counted in erawatch_cycles_fenced_total', 30_000, async () =>
        (await listSeries(theStore(), ['erawatch_cycles_fenced_total'])).find((s) => s.value >= 1),
      );
    },
    240_000,
  );
});
