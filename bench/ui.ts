// `npm run bench -- ui`: navigation to the first row of real data, in headless Chromium, for the overview with
// 1,000 balancers and a balancer with 1,000 nodes, seeded through the store and the poller's cycle writer and
// served by the built app with the poller off. Median of several loads; target under 1.5 s each.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { openStore, type Store } from '@/db/index';
import { createBalancer } from '@/lib/balancers';
import { checkBuild } from '@/lib/demo/next-app';
import { stopChild } from '@/lib/peers/spawn';
import { writeProbes } from '@/db/queries/subjects';
import type { Verdict } from '@/lib/probe/types';
import { analyzeCycle, keyedFingerprintOf } from '@/lib/rollout';
import { analysisDigest } from '@/lib/rollout/digest';
import { childEnvironment, processVariables, processSettings } from '@/lib/settings';

const require = createRequire(import.meta.url);
const TARGET_MS = 1_500;
const RUNS = 5;
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

function verdictFor(url: string, kind: 'modern' | 'legacy' | 'down', at: number, seq: number): Verdict {
  const base = {
    url,
    probedAt: at,
    durationMs: 3 + (seq % 17),
    address: '127.0.0.1',
    servedBy: null,
    anomaly: null,
    cache: null,
  };
  if (kind === 'modern') {
    return {
      ...base,
      verdict: 'modern',
      reason: 'discover_result',
      negotiatedVersion: '2026-07-28',
      supported: ['2026-07-28'],
      servedEras: 'modern-only',
      serverInfo: { name: 'bench', version: '2.4.0' },
      cache: { ttlMs: 300_000, cacheScope: 'public' },
      initializeSent: false,
      evidence: [
        {
          step: 'discover',
          method: 'server/discover',
          protocolVersion: '2026-07-28',
          requestId: `erawatch-${seq}`,
          httpStatus: 200,
          contentType: 'application/json',
          outcome: 'result',
          rpcError: null,
          elapsedMs: 3,
        },
      ],
    };
  }
  if (kind === 'legacy') {
    return {
      ...base,
      verdict: 'legacy',
      reason: 'legacy_positive_evidence',
      negotiatedVersion: '2025-11-25',
      supported: ['2025-11-25'],
      servedEras: 'legacy-only',
      serverInfo: { name: 'bench', version: '1.32.2' },
      initializeSent: true,
      evidence: [
        {
          step: 'discover',
          method: 'server/discover',
          protocolVersion: '2026-07-28',
          requestId: `erawatch-${seq}`,
          httpStatus: 400,
          contentType: 'application/json',
          outcome: 'rpc_error',
          rpcError: { code: -32000, message: 'Bad Request: No valid session ID provided' },
          elapsedMs: 2,
        },
        {
          step: 'initialize',
          method: 'initialize',
          protocolVersion: '2025-11-25',
          requestId: `erawatch-${seq + 1}`,
          httpStatus: 200,
          contentType: 'text/event-stream',
          outcome: 'result',
          rpcError: null,
          elapsedMs: 4,
          checks: [
            { name: 'id_match', passed: true },
            { name: 'single_result', passed: true },
            { name: 'protocol_version', passed: true },
            { name: 'capabilities_object', passed: true },
            { name: 'server_info', passed: true },
          ],
          sessionIssued: true,
        },
      ],
    };
  }
  return {
    ...base,
    verdict: 'unavailable',
    reason: 'timeout',
    negotiatedVersion: null,
    supported: [],
    servedEras: 'unknown',
    serverInfo: null,
    initializeSent: false,
    evidence: [
      {
        step: 'discover',
        method: 'server/discover',
        protocolVersion: '2026-07-28',
        requestId: `erawatch-${seq}`,
        httpStatus: null,
        contentType: null,
        outcome: 'timeout',
        rpcError: null,
        elapsedMs: 5_000,
        detail: 'no response within 5000 ms',
      },
    ],
  };
}

/** One stored cycle for a balancer whose nodes are of the given kinds (ids must be unique in the file). */
async function seedCycle(
  store: Store,
  balancerId: string,
  kinds: Array<'modern' | 'legacy' | 'down'>,
  at: number,
): Promise<void> {
  const newNodes = kinds.map((_, i) => ({
    id: `${balancerId.replace(/^bal_/, 'nod_')}_${i}`,
    key: `listed:http://127.0.0.1:${20_000 + i}/mcp`,
    origin: 'listed' as const,
    url: `http://127.0.0.1:${20_000 + i}/mcp`,
    address: '127.0.0.1',
    servedBy: null,
  }));
  // `seq: null` marks nodes created this cycle (the writer assigns their rollup seq).
  const results = newNodes.map((n, i) => {
    const verdict = verdictFor(n.url, kinds[i] ?? 'modern', at, i * 2);
    return {
      nodeId: n.id,
      seq: null,
      verdict,
      fingerprintKey: keyedFingerprintOf(verdict)?.key ?? null,
      prior: null,
    };
  });
  const analysis = analyzeCycle({
    balancerId,
    at,
    nodes: results.map((r) => ({ nodeId: r.nodeId, verdict: r.verdict, recentChanges: [] })),
    samples: [],
    window: null,
    gateRevisions: ['2026-07-28'],
  });
  await writeProbes(store, {
    kind: 'node',
    region: 'default',
    balancerId,
    at,
    newNodes,
    results,
    analysis,
    analysisDigest: analysisDigest(analysis),
    events: [],
  });
}

async function seed(file: string): Promise<{ bigId: string }> {
  const store = await openStore(file, { settings: processSettings() });
  try {
    const at = Date.now();
    const kindsOf = (i: number): Array<'modern' | 'legacy' | 'down'> =>
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
    const kinds = Array.from({ length: 1_000 }, (_, i): 'modern' | 'legacy' | 'down' =>
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
    const scenarios = [
      {
        name: 'overview, 1,000 balancers',
        path: '/',
        ready: '[data-testid="fleet-row"]',
        shot: 'bench-overview',
      },
      {
        name: 'balancer, 1,000 nodes',
        path: `/balancers/${bigId}`,
        ready: '[data-testid="node-row"]',
        shot: 'bench-balancer',
      },
    ];
    // What each live refresh costs the server: the polled reads behind the two screens.
    for (const p of [
      '/dashboard-data/fleet',
      `/dashboard-data/balancers/${bigId}`,
      `/dashboard-data/balancers/${bigId}/nodes`,
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
        `GET ${p.replace(bigId, '{id}')}: median ${median(times).toFixed(1)} ms, ${(bytes / 1024).toFixed(0)} KiB\n`,
      );
    }
    let status = 0;
    for (const s of scenarios) {
      const times: number[] = [];
      const htmlBytes: number[] = [];
      // One warm-up load (server code paths and SQLite page cache), then the measured runs.
      for (let i = 0; i <= RUNS; i++) {
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        const page = await context.newPage();
        const start = performance.now();
        const res = await page.goto(`${url}${s.path}`, { waitUntil: 'commit', timeout: 30_000 });
        await page.locator(s.ready).first().waitFor({ state: 'visible', timeout: 30_000 });
        const elapsed = performance.now() - start;
        if (i > 0) {
          times.push(elapsed);
          htmlBytes.push(((await res?.body()) ?? Buffer.alloc(0)).length);
        }
        if (i === RUNS) {
          const dir = path.join(root, 'test-results', 'screenshots');
          fs.mkdirSync(dir, { recursive: true });
          await page.screenshot({ path: path.join(dir, `${s.shot}.png`) });
        }
        await context.close();
      }
      const med = median(times);
      const verdict = med < TARGET_MS ? 'within' : 'OVER';
      if (med >= TARGET_MS) status = 1;
      process.stdout.write(
        `${s.name}: median ${med.toFixed(0)} ms, min ${Math.min(...times).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms ` +
          `over ${RUNS} loads (HTML ${(median(htmlBytes) / 1024).toFixed(0)} KiB) — ${verdict} the ${TARGET_MS} ms target\n`,
      );
    }
    return status;
  } finally {
    await browser.close();
    await stopChild(server);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
