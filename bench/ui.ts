// `npm run bench -- ui`: in headless Chromium, for the overview with 1,000 balancers and a balancer with 1,000
// nodes, seeded through the store and the poller's cycle writer and served by the built app with the poller off:
// navigation to the first row of real data (a row of the node matrix: role="row" inside its table, with the
// node's link), and for the balancer what its live refresh costs on the wire (Chromium's own count of the bytes
// received, from the DevTools protocol's Network events): the first refresh after the load, which fetches the
// first screen in full (the page's data came inside its HTML), and a later one when nothing changed, which the
// ETags answer with 304s. Median of several loads, each against its target, PASS or FAIL.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { openStore, type Store } from '@/db/index';
import { createBalancer } from '@/lib/balancers';
import { checkBuild } from '@/lib/demo/next-app';
import { stopChild } from '@/lib/peers/spawn';
import { childEnvironment, processVariables, processSettings } from '@/lib/settings';
import { syntheticVerdict, writeSyntheticCycle, type SyntheticKind } from './support/synthetic-cycle';

const require = createRequire(import.meta.url);
/** The overview's first row (1,000 balancers). */
const OVERVIEW_TARGET_MS = 1_500;
/** The 1,000-node balancer's first matrix row. */
const BALANCER_TARGET_MS = 1_000;
/** A refresh of the balancer page when nothing changed: under this many bytes. */
const UNCHANGED_REFRESH_BYTES = 5 * 1024;
/** A full refetch of the balancer page's first screen: at most this many bytes. */
const FULL_REFETCH_BYTES = 50 * 1024;
const RUNS = 5;
/** A matrix row with real data: a row of the matrix table (or grid) that links to its node. */
const NODE_ROW = ':is([role="table"], [role="grid"]) [role="row"][data-testid="node-row"]';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** One stored cycle for a balancer whose nodes are of the given kinds (ids must be unique in the file). */
async function seedCycle(
  store: Store,
  balancerId: string,
  kinds: SyntheticKind[],
  at: number,
): Promise<void> {
  const newNodes = kinds.map((_, i) => ({
    id: `${balancerId.replace(/^bal_/, 'nod_')}_${i}`,
    url: `http://127.0.0.1:${20_000 + i}/mcp`,
  }));
  const results = newNodes.map((n, i) => ({
    nodeId: n.id,
    seq: null,
    verdict: syntheticVerdict(
      {
        url: n.url,
        kind: kinds[i] ?? 'modern',
        durationMs: 3 + ((i * 2) % 17),
        seq: i * 2,
        serverName: 'bench',
      },
      at,
    ),
  }));
  await writeSyntheticCycle(store, { balancerId, at, newNodes, results });
}

export async function seed(file: string): Promise<{ bigId: string }> {
  const store = await openStore(file, { settings: processSettings() });
  try {
    const at = Date.now();
    const kindsOf = (i: number): SyntheticKind[] =>
      i % 10 === 0
        ? ['modern', 'legacy', 'modern']
        : i % 17 === 0
          ? ['modern', 'down', 'modern']
          : ['modern', 'modern'];
    for (let i = 0; i < 1_000; i++) {
      const b = await createBalancer(
        store,
        { name: `bench-${String(i).padStart(4, '0')}`, publicUrl: `http://127.0.0.1:9/b${i}` },
        at,
      );
      await seedCycle(store, b.id, kindsOf(i), at);
    }
    const big = await createBalancer(store, { name: 'bench-big', publicUrl: 'http://127.0.0.1:9/big' }, at);
    const kinds = Array.from({ length: 1_000 }, (_, i): SyntheticKind =>
      i % 7 === 0 ? 'legacy' : i % 50 === 0 ? 'down' : 'modern',
    );
    await seedCycle(store, big.id, kinds, at);
    return { bigId: big.id };
  } finally {
    await store.close();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

export async function run(argv: string[]): Promise<number> {
  const root = process.cwd();
  if (!argv.includes('--no-build')) {
    const status = checkBuild(root);
    if (!status.current) {
      process.stdout.write(`building the app (${status.reason})…\n`);
      const res = spawnSync(process.execPath, [require.resolve('next/dist/bin/next'), 'build'], {
        cwd: root,
        stdio: 'inherit',
        env: childEnvironment({ NEXT_TELEMETRY_DISABLED: '1' }),
      });
      if (res.status !== 0) return 1;
    }
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-bench-ui-'));
  const dbFile = path.join(dir, 'bench.db');
  const t0 = Date.now();
  const { bigId } = await seed(dbFile);
  process.stdout.write(`seeded 1,000 balancers and one with 1,000 nodes in ${Date.now() - t0} ms\n`);

  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = spawn(
    process.execPath,
    [require.resolve('next/dist/bin/next'), 'start', '-H', '127.0.0.1', '-p', String(port)],
    {
      cwd: root,
      env: childEnvironment({ NEXT_TELEMETRY_DISABLED: '1', ERAWATCH_DB: dbFile, ERAWATCH_POLLER: 'off' }),
      stdio: 'ignore',
    },
  );
  const browser = await chromium.launch({
    executablePath: processVariables().CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
  });
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const ok = await fetch(`${url}/api/v1/session`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline || server.exitCode !== null)
        throw new Error('next start did not become ready');
      await new Promise((r) => setTimeout(r, 250));
    }
    // What each live refresh costs the server: the polled reads behind the two screens.
    for (const p of [
      '/dashboard-data/fleet',
      `/dashboard-data/balancers/${bigId}`,
      `/dashboard-data/balancers/${bigId}/nodes`,
      `/api/v1/balancers/${bigId}/nodes`,
    ]) {
      const times: number[] = [];
      let bytes = 0;
      for (let i = 0; i <= 10; i++) {
        const start = performance.now();
        const body = await (await fetch(`${url}${p}`)).arrayBuffer();
        if (i > 0) times.push(performance.now() - start);
        bytes = body.byteLength;
      }
      process.stdout.write(
        `GET ${p.replace(bigId, '{id}')}: median ${median(times).toFixed(1)} ms, ${(bytes / 1024).toFixed(1)} KiB uncompressed\n`,
      );
    }
    const results: Judged[] = [];
    const overview = await measureLoads(
      browser,
      `${url}/`,
      '[data-testid="fleet-row"]',
      'bench-overview',
      root,
    );
    results.push(
      judge('overview, 1,000 balancers: first row', overview.firstRowMs, OVERVIEW_TARGET_MS, 'ms'),
    );
    const big = await measureLoads(
      browser,
      `${url}/balancers/${bigId}`,
      NODE_ROW,
      'bench-balancer',
      root,
      bigId,
    );
    results.push(
      judge('balancer, 1,000 nodes: first row of the matrix', big.firstRowMs, BALANCER_TARGET_MS, 'ms'),
      judge(
        'balancer, 1,000 nodes: full refetch of the first screen',
        big.fullBytes,
        FULL_REFETCH_BYTES,
        'B',
        true,
      ),
      judge(
        'balancer, 1,000 nodes: a refresh when nothing changed',
        big.unchangedBytes,
        UNCHANGED_REFRESH_BYTES,
        'B',
      ),
    );
    process.stdout.write(`  overview load, medians: ${describePhases(overview.phases)}\n`);
    process.stdout.write(`  balancer load, medians: ${describePhases(big.phases)}\n`);
    process.stdout.write(`  first refresh (a full refetch): ${big.fullStatuses}\n`);
    process.stdout.write(`  a refresh when nothing changed: ${big.statuses}\n`);
    let status = 0;
    for (const r of results) {
      process.stdout.write(`${r.line}\n`);
      if (!r.pass) status = 1;
    }
    return status;
  } finally {
    await browser.close();
    await stopChild(server);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

interface Judged {
  pass: boolean;
  line: string;
}

function judge(name: string, values: number[], target: number, unit: 'ms' | 'B', atMost = false): Judged {
  const med = median(values);
  const pass = atMost ? med <= target : med < target;
  const fmt = (v: number) => (unit === 'ms' ? `${v.toFixed(0)} ms` : `${(v / 1024).toFixed(1)} KB`);
  return {
    pass,
    line:
      `${pass ? 'PASS' : 'FAIL'} ${name}: median ${fmt(med)} (min ${fmt(Math.min(...values))}, max ` +
      `${fmt(Math.max(...values))}, ${values.length} loads), target ${atMost ? '≤' : '<'} ${fmt(target)}`,
  };
}

/** One finished request as Chromium counted it: bytes received on the wire, headers included. */
interface Wire {
  url: string;
  status: number;
  bytes: number;
}

/** The balancer page's polled reads (the node labels and the history chart refresh on their own timers). */
function polledRead(u: string, balancerId: string): string | null {
  const path = new URL(u).pathname;
  const reads = [
    `/dashboard-data/balancers/${balancerId}`,
    `/dashboard-data/balancers/${balancerId}/nodes`,
    '/api/v1/events',
  ];
  return reads.includes(path) ? path : null;
}

/** Every finished request of a page, from the DevTools protocol's Network events. */
async function recordWire(page: Page): Promise<Wire[]> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  const pending = new Map<string, { url: string; status: number }>();
  const done: Wire[] = [];
  cdp.on('Network.responseReceived', (e) => {
    const wire = pending.get(e.requestId)?.status;
    pending.set(e.requestId, { url: e.response.url, status: wire ?? e.response.status });
  });
  // The status line as it came over the wire (a revalidated answer is 304 there, 200 to the page).
  cdp.on('Network.responseReceivedExtraInfo', (e) => {
    const r = pending.get(e.requestId);
    if (r) r.status = e.statusCode;
    else pending.set(e.requestId, { url: '', status: e.statusCode });
  });
  cdp.on('Network.loadingFinished', (e) => {
    const r = pending.get(e.requestId);
    if (r) done.push({ ...r, bytes: e.encodedDataLength });
  });
  return done;
}

/** Resolves once `check` holds, re-checking as the page's requests finish. */
async function until(page: Page, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('the page did not refresh in time');
    await page.waitForEvent('requestfinished', { timeout: timeoutMs }).catch(() => undefined);
  }
}

interface LoadFigures {
  firstRowMs: number[];
  /** Where a load's time goes: the navigation's milestones, ms from its start. */
  phases: Array<Record<string, number>>;
  fullBytes: number[];
  unchangedBytes: number[];
  statuses: string;
  fullStatuses: string;
}

function describeWire(ws: Wire[], balancerId: string): string {
  return ws
    .map((w) => `${new URL(w.url).pathname.replace(balancerId, '{id}')} ${w.status} (${w.bytes} B)`)
    .join(', ');
}

/** The k-th fetch (1-based) of each polled read, summed: one refresh of the page. */
function refreshOf(wire: Wire[], balancerId: string, k: number): Wire[] {
  const byRead = new Map<string, Wire[]>();
  for (const w of wire) {
    const read = polledRead(w.url, balancerId);
    if (read !== null) byRead.set(read, [...(byRead.get(read) ?? []), w]);
  }
  return [...byRead.values()].flatMap((ws) => (ws[k - 1] ? [ws[k - 1] as Wire] : []));
}

/** The navigation's milestones as the page timed them: the server's first byte, the last, first paint, scripts. */
async function phasesOf(page: Page): Promise<Record<string, number>> {
  return await page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
    const paint = performance.getEntriesByName('first-contentful-paint')[0];
    return {
      'server first byte': nav?.responseStart ?? NaN,
      'HTML received': nav?.responseEnd ?? NaN,
      'first paint': paint?.startTime ?? NaN,
      'scripts run (DOMContentLoaded)': nav?.domContentLoadedEventEnd ?? NaN,
      'HTML bytes': nav?.transferSize ?? NaN,
    };
  });
}

/** The median of each milestone over the loads. */
function describePhases(phases: Array<Record<string, number>>): string {
  const keys = Object.keys(phases[0] ?? {});
  return keys
    .map((k) => {
      const m = median(phases.map((p) => p[k] ?? NaN));
      return k.endsWith('bytes') ? `${k} ${(m / 1024).toFixed(1)} KB` : `${k} ${m.toFixed(0)} ms`;
    })
    .join(', ');
}

async function measureLoads(
  browser: Browser,
  target: string,
  ready: string,
  shot: string,
  root: string,
  balancerId?: string,
): Promise<LoadFigures> {
  const out: LoadFigures = {
    firstRowMs: [],
    phases: [],
    fullBytes: [],
    unchangedBytes: [],
    statuses: '',
    fullStatuses: '',
  };
  // One warm-up load (server code paths and SQLite page cache), then the measured runs.
  for (let i = 0; i <= RUNS; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const wire = await recordWire(page);
    const start = performance.now();
    await page.goto(target, { waitUntil: 'commit', timeout: 30_000 });
    await page
      .locator(ready)
      .filter({ has: page.getByRole('link') })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    const elapsed = performance.now() - start;
    if (i > 0) out.phases.push(await phasesOf(page));
    if (balancerId !== undefined) {
      // Three refreshes: the first fetches in full (the page's data came in its HTML, not the HTTP cache);
      // the third revalidates what the second cached.
      await until(page, () => refreshOf(wire, balancerId, 3).length === 3);
      if (i > 0) {
        const sum = (ws: Wire[]) => ws.reduce((n, w) => n + w.bytes, 0);
        const full = refreshOf(wire, balancerId, 1);
        out.fullBytes.push(sum(full));
        out.fullStatuses = describeWire(full, balancerId);
        const unchanged = refreshOf(wire, balancerId, 3);
        out.unchangedBytes.push(sum(unchanged));
        out.statuses = describeWire(unchanged, balancerId);
      }
    }
    if (i > 0) out.firstRowMs.push(elapsed);
    if (i === RUNS) {
      const dir = path.join(root, 'test-results', 'screenshots');
      fs.mkdirSync(dir, { recursive: true });
      await page.screenshot({ path: path.join(dir, `${shot}.png`) });
    }
    await context.close();
  }
  return out;
}
