// Two workers in two regions on one store (a SQLite file, then a real PostgreSQL 15 database, the shared store
// regional workers are deployed on) see different pools behind one public URL. Each binds its own source
// address (127.0.0.2, 127.0.0.3); a front door routes by source address, as geo-routing does, to a round-robin
// proxy over its own pool of real MCP SDK servers. The result is region-split with the right partition,
// exactly one balancer.region_split event, and a closed gate.
import { processSettings } from '@/lib/settings';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, describePostgres, stopSharedCluster } from '../../support/postgres';
import type { Store } from '@/db/index';
import { startRoundRobinProxy, type RoundRobinProxy } from '@/lib/peers/round-robin-proxy';
import { startPeers, type RunningPeer } from '@/lib/peers/spawn';
import { startWorkerProcess, type WorkerProcess } from '../../support/worker-process';
import type { StoredAnalysisView } from '@/lib/schemas/balancer-analysis';
import { startSourceRoutingProxy, type SourceRoutingProxy } from '../../support/source-routing-proxy';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-regions-'));
const REGIONS = { 'eu-west': '127.0.0.2', 'us-east': '127.0.0.3' } as const;
type Region = keyof typeof REGIONS;

type RegionWorker = WorkerProcess & { region: Region };

afterAll(async () => {
  await stopSharedCluster();
  fs.rmSync(dir, { recursive: true, force: true });
});

function twoRegions(location: () => Promise<string>): void {
  let peers: RunningPeer[] = [];
  const pools: RoundRobinProxy[] = [];
  let front: SourceRoutingProxy | null = null;
  const workers: RegionWorker[] = [];
  let store: Store | null = null;
  let balancerId = '';
  let dbLocation = '';

  function startRegionWorker(region: Region): RegionWorker {
    const w = startWorkerProcess({
      ERAWATCH_DB: dbLocation,
      ERAWATCH_REGION: region,
      ERAWATCH_PROBE_SOURCE_ADDRESS: REGIONS[region],
      ERAWATCH_ALLOW_LOOPBACK: '1',
      ERAWATCH_CONFIG: path.join(dir, 'absent.yaml'),
    });
    return { ...w, region };
  }

  /** Polls `check` every 100 ms until it returns a value; on timeout the error carries `context()`. */
  async function waitFor<T>(
    what: string,
    ms: number,
    check: () => Promise<T | undefined>,
    context: () => string,
  ): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const value = await check();
      if (value !== undefined) return value;
      if (Date.now() > deadline)
        throw new Error(`timed out after ${ms} ms waiting for ${what}\n${context()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async function storeOf(): Promise<Store> {
    if (!store) throw new Error('no store');
    return store;
  }

  async function analysisNow(): Promise<StoredAnalysisView | null> {
    const { readBalancerAnalysis } = await import('@/db/queries/balancers');
    return await readBalancerAnalysis(await storeOf(), balancerId);
  }

  async function eventTypes(): Promise<string[]> {
    const { listEvents } = await import('@/db/queries/events');
    const page = await listEvents(await storeOf(), { balancerId, limit: 500 });
    return page.items.map((e) => e.type);
  }

  beforeAll(async () => {
    peers = await startPeers([
      { kind: 'v2-modern', name: 'shop', version: '2.0.0' },
      { kind: 'v2-modern', name: 'shop', version: '2.0.0' },
      { kind: 'v2-modern', name: 'shop', version: '3.0.0' },
      { kind: 'v2-modern', name: 'shop', version: '3.0.0' },
    ]);
    const urls = peers.map((p) => p.url);
    pools.push(await startRoundRobinProxy({ upstreams: urls.slice(0, 2) }));
    pools.push(await startRoundRobinProxy({ upstreams: urls.slice(2, 4) }));
    const [west, east] = pools;
    if (!west || !east) throw new Error('pools did not start');
    front = await startSourceRoutingProxy({ [REGIONS['eu-west']]: west.url, [REGIONS['us-east']]: east.url });

    const { openStore } = await import('@/db/index');
    const { createBalancer } = await import('@/lib/balancers');
    dbLocation = await location();
    store = await openStore(dbLocation, { settings: processSettings() });
    const created = await createBalancer(store, {
      name: 'geo-shop',
      publicUrl: front.url,
      nodeUrls: [],
      samplesPerCycle: 4,
      attributionHeader: 'x-served-by',
      intervalMs: 3_000,
      timeoutMs: 1_000,
      legacyProbeTimeoutMs: 500,
      regions: ['eu-west', 'us-east'],
    });
    balancerId = created.id;
    workers.push(startRegionWorker('eu-west'), startRegionWorker('us-east'));
  }, 120_000);

  const stopWorkers = async () => {
    for (const w of workers) if (w.alive()) process.kill(w.pid, 'SIGTERM');
    await Promise.all(workers.map((w) => w.exited));
  };

  afterAll(async () => {
    await stopWorkers();
    await front?.close();
    await Promise.all(pools.map((p) => p.stop()));
    await Promise.all(peers.map((p) => p.stop()));
    await store?.close();
  }, 60_000);

  it('is region-split with the partition by region, one balancer.region_split event and a closed gate', async () => {
    const logs = () => workers.map((w) => `--- ${w.region}\n${w.output()}`).join('\n');
    const split = await waitFor(
      'both regions to report and the split to be stored',
      90_000,
      async () => {
        const a = await analysisNow();
        return a?.regionSplit === true ? a : undefined;
      },
      logs,
    );
    expect(split.status).toBe('non-uniform');
    expect(split.severity).toBe('region-split');
    expect(split.displayStatus).toBe('region-split');
    const versionOf = new Map(split.partition.map((g) => [g.key, g.fingerprint.serverVersion]));
    expect(
      split.regionPartition?.map((g) => ({
        regions: g.regions,
        versions: g.keys.map((k) => versionOf.get(k)),
      })),
    ).toEqual([
      { regions: ['eu-west'], versions: ['2.0.0'] },
      { regions: ['us-east'], versions: ['3.0.0'] },
    ]);
    expect(split.regions?.map((r) => [r.region, r.status])).toEqual([
      ['eu-west', 'uniform'],
      ['us-east', 'uniform'],
    ]);
    // Every probe came from a region's own address; the front door saw nothing from elsewhere.
    expect(front?.seen(REGIONS['eu-west'])).toBeGreaterThan(0);
    expect(front?.seen(REGIONS['us-east'])).toBeGreaterThan(0);
    expect(front?.seen('127.0.0.1')).toBe(0);

    // Two more cycles of each region: the split lasts, and is still reported once.
    const after = split.regions?.map((r) => r.analyzedAt) ?? [];
    await waitFor(
      'two more cycles from each region',
      60_000,
      async () => {
        const a = await analysisNow();
        const now = a?.regions?.map((r) => r.analyzedAt) ?? [];
        return now.length === 2 && now.every((at, i) => at > (after[i] ?? Infinity) + 3_000) ? a : undefined;
      },
      logs,
    );
    const types = await eventTypes();
    expect(types.filter((t) => t === 'balancer.region_split')).toHaveLength(1);
    expect(types).not.toContain('balancer.diverged');
    expect(types).not.toContain('balancer.region_converged');

    const { gateForBalancer } = await import('@/lib/api/gate');
    const gate = await gateForBalancer(
      await storeOf(),
      { id: balancerId, name: 'geo-shop' },
      '2026-07-28',
      Date.now(),
    );
    expect(gate.ready).toBe(false);
    expect(gate.state).toBe('closed');
    expect(gate.reasons.some((r) => r.startsWith('regions disagree: eu-west sees modern 2026-07-28'))).toBe(
      true,
    );

    // Every verdict names its region; each pool's nodes were seen from their own region only.
    const { listNodes, getRollups } = await import('@/db/queries/nodes');
    const nodes = await listNodes(await storeOf(), balancerId);
    expect(nodes.length).toBeGreaterThanOrEqual(4);
    for (const n of nodes) {
      const seenFrom = (n.regions ?? []).map((r) => r.region);
      expect(seenFrom).toHaveLength(1);
      expect(n.state?.region).toBe(seenFrom[0]);
      const version = n.state?.verdict.serverInfo?.version;
      expect(version).toBe(seenFrom[0] === 'eu-west' ? '2.0.0' : '3.0.0');
    }
    // Rollups are kept per region, and the merged figures are their sum: read once the workers have
    // stopped, since the three reads would otherwise straddle their writes.
    await stopWorkers();
    const rollupsOf = async (region?: string) =>
      (await getRollups(await storeOf(), { balancerId, since: 0, ...(region ? { region } : {}) })).reduce(
        (sum, r) => sum + r.probes,
        0,
      );
    const [west, east, all] = [await rollupsOf('eu-west'), await rollupsOf('us-east'), await rollupsOf()];
    expect(west).toBeGreaterThan(0);
    expect(east).toBeGreaterThan(0);
    expect(all).toBe(west + east);
    // The era gauge counts each node once.
    const { readFleetGaugeData } = await import('@/db/queries/fleet-metrics');
    const gauge = await readFleetGaugeData(await storeOf());
    expect(gauge.nodesByEra.reduce((sum, e) => sum + e.count, 0)).toBe(nodes.length);
  }, 200_000);
}

describe('two workers in two regions behind one public URL (SQLite)', () => {
  twoRegions(async () => path.join(dir, 'shared.db'));
});

describePostgres('two workers in two regions behind one public URL (PostgreSQL)', () => {
  twoRegions(() => createDatabase('two-regions'));
});
