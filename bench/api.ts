// `npm run bench -- api [--duration 15s] [--concurrency 16] [--poller on|process|off] [--build auto|never] [--balancers 1000] [--nodes-per-balancer 10] [--events 20000] [--store sqlite|postgres] [--clients 250]`
// Seeds 1,000 balancers with 10,000 nodes (served by the fake fleet in its own process) and events, starts
// `next start` with the poller running, then measures p50/p95/p99 of the first page of GET /api/v1/balancers
// and GET /api/v1/events under concurrent requests. Target: p95 under 50 ms. `--store postgres` runs the same
// seed and the same requests on SQLite and then on a throwaway PostgreSQL 15 cluster, and prints both.
// `--clients 250` measures overload instead: the server keeps the default concurrency limit, and 250 clients,
// each on its own connection, send those requests back to back for --duration (after a 429, waiting as long as
// its Retry-After says). Target: every request is answered, 2xx or 429 `overloaded`, within 10 s (none times
// out, none fails otherwise).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { openStore } from '@/db/index';
import { createBalancer } from '@/lib/balancers';
import { insertEvents, type EventDraft } from '@/db/queries/events';
import { buildNextApp, checkBuild, startNextServer, type NextServer } from '@/lib/demo/next-app';
import { EVENT_TYPES } from '@/lib/rollout/types';
import {
  createPgDatabase,
  killPgClusterNow,
  postgresMissing,
  setPgBinDir,
  startPgCluster,
  stopPgCluster,
  type PgCluster,
} from './support/pg-cluster';
import { parseDuration } from './support/args';
import { startFakeFleet } from './support/fake-fleet';
import { childEnvironment, processSettings } from '@/lib/settings';

interface Args {
  durationMs: number;
  concurrency: number;
  balancers: number;
  nodesPerBalancer: number;
  events: number;
  warmupMs: number;
  /** on: inside the web server (the default deployment); process: `erawatch poller` beside it; off. */
  poller: 'on' | 'process' | 'off';
  /** Build first when the build is older than the sources (`auto`), or use whatever build exists (`never`). */
  build: 'auto' | 'never';
  /** postgres: the same run on SQLite, then on PostgreSQL. */
  store: 'sqlite' | 'postgres';
  /** Overload: this many clients against the default concurrency limit (0: the latency run instead). */
  clients: number;
}

const ADMIN = 'bench-admin-secret-0123456789abcdef';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export function parseApiArgs(argv: readonly string[]): Args {
  const a: Args = {
    durationMs: 15_000,
    concurrency: 16,
    balancers: 1_000,
    nodesPerBalancer: 10,
    events: 20_000,
    warmupMs: 10_000,
    poller: 'on',
    build: 'auto',
    store: 'sqlite',
    clients: 0,
  };
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (value === undefined) throw new Error(`missing value for ${flag ?? ''}`);
    if (flag === '--duration') a.durationMs = parseDuration(value);
    else if (flag === '--warmup') a.warmupMs = parseDuration(value);
    else if (flag === '--concurrency') a.concurrency = Number(value);
    else if (flag === '--clients') a.clients = Number(value);
    else if (flag === '--balancers') a.balancers = Number(value);
    else if (flag === '--nodes-per-balancer') a.nodesPerBalancer = Number(value);
    else if (flag === '--events') a.events = Number(value);
    else if (flag === '--poller') {
      if (value !== 'on' && value !== 'process' && value !== 'off')
        throw new Error('--poller must be on, process or off');
      a.poller = value;
    } else if (flag === '--build') {
      if (value !== 'auto' && value !== 'never') throw new Error('--build must be auto or never');
      a.build = value;
    } else if (flag === '--store') {
      if (value !== 'sqlite' && value !== 'postgres')
        throw new Error(`--store must be sqlite or postgres, got '${value}'`);
      a.store = value;
    } else throw new Error(`unknown flag ${flag ?? ''}`);
  }
  for (const [k, v] of Object.entries(a))
    if (typeof v === 'number' && (!Number.isInteger(v) || v < 0))
      throw new Error(`${k} must be a non-negative integer`);
  if (a.concurrency < 1 || a.durationMs < 1_000)
    throw new Error('--concurrency must be ≥ 1 and --duration ≥ 1s');
  return a;
}

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

async function seed(location: string, args: Args, fleetPort: number): Promise<void> {
  const store = await openStore(location, { settings: processSettings() });
  try {
    const ids: string[] = [];
    const kinds = ['m', 'd', 'l'] as const;
    for (let b = 0; b < args.balancers; b++) {
      const kind = kinds[b % 3] ?? 'm';
      const nodeUrls = Array.from(
        { length: args.nodesPerBalancer },
        (_, i) => `http://127.0.0.1:${fleetPort}/${kind}/${b * args.nodesPerBalancer + i}`,
      );
      ids.push(
        (
          await createBalancer(store, {
            name: `bench-${String(b).padStart(4, '0')}`,
            publicUrl: `http://127.0.0.1:${fleetPort}/${kind}/public-${b}`,
            nodeUrls,
            samplesPerCycle: 0,
            allowLegacy: kind === 'l',
            intervalMs: 30_000,
            timeoutMs: 2_000,
            legacyProbeTimeoutMs: 2_000,
          })
        ).id,
      );
    }
    const start = Date.now() - args.events * 1_000;
    for (let done = 0; done < args.events; done += 1_000) {
      const batch: EventDraft[] = [];
      for (let i = done; i < Math.min(args.events, done + 1_000); i++) {
        batch.push({
          type: EVENT_TYPES[i % EVENT_TYPES.length] ?? 'node.unavailable',
          balancerId: ids[i % ids.length] ?? '',
          at: start + i * 1_000,
          data: { seeded: true },
        });
      }
      await insertEvents(store, batch);
    }
  } finally {
    await store.close();
  }
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
}

// The client reads the (gzip) body without decompressing it: the figures are the server's, and the client
// shares the machine's two cores with it.
async function load(url: string, token: string, args: Args) {
  const latencies: number[] = [];
  let errors = 0;
  const dispatcher = new Agent({ connections: args.concurrency, keepAliveTimeout: 30_000 });
  const deadline = performance.now() + args.durationMs;
  const worker = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      try {
        const res = await request(url, {
          dispatcher,
          headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'gzip' },
          signal: AbortSignal.timeout(10_000),
        });
        await res.body.arrayBuffer();
        if (res.statusCode !== 200) errors++;
        else latencies.push(performance.now() - t0);
      } catch {
        errors++;
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: args.concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  await dispatcher.close();
  latencies.sort((a, b) => a - b);
  const r = (v: number) => Number(v.toFixed(1));
  return {
    requests: latencies.length,
    errors,
    rps: r(latencies.length / seconds),
    p50Ms: r(quantile(latencies, 0.5)),
    p95Ms: r(quantile(latencies, 0.95)),
    p99Ms: r(quantile(latencies, 0.99)),
    maxMs: r(latencies.at(-1) ?? NaN),
  };
}

export async function run(argv: string[]): Promise<number> {
  let args: Args;
  try {
    args = parseApiArgs(argv);
  } catch (err) {
    process.stderr.write(`bench api: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
  if (args.build === 'auto' && !checkBuild(root).current) {
    process.stdout.write('building the app (next build) first…\n');
    const code = await buildNextApp(root).exited;
    if (code !== 0) return 1;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-bench-api-'));
  let fleet: Awaited<ReturnType<typeof startFakeFleet>> | null = null;
  let cluster: PgCluster | null = null;
  const running: { server: NextServer | null; poller: ChildProcess | null } = { server: null, poller: null };
  let cleaning: Promise<void> | null = null;
  const cleanup = () =>
    (cleaning ??= (async () => {
      await stopRun(running);
      fleet?.stop();
      if (cluster) await stopPgCluster(cluster);
      fs.rmSync(dir, { recursive: true, force: true });
    })());
  // The cluster is not this process' child: SIGINT (or any exit) must still stop it, by its PID.
  const onExit = () => {
    if (cluster) killPgClusterNow(cluster);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    process.stdout.write(`${signal}: stopping the server, the fake fleet and PostgreSQL\n`);
    void cleanup().finally(() => process.exit(130));
  };
  if (args.store === 'postgres') {
    setPgBinDir(childEnvironment().ERAWATCH_PG_BIN);
    const missing = postgresMissing();
    if (missing) {
      process.stderr.write(`bench api: ${missing}\n`);
      return 1;
    }
    process.once('exit', onExit);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }
  try {
    fleet = await startFakeFleet();
    const summaries: Array<{ store: string; summary: Summary | null; pass: boolean }> = [];
    for (const engine of args.store === 'postgres'
      ? (['sqlite', 'postgres'] as const)
      : (['sqlite'] as const)) {
      let location = path.join(dir, 'bench.db');
      if (engine === 'postgres') {
        process.stdout.write(
          `\n-- the same on PostgreSQL 15 (a throwaway cluster on loopback, fsync on) --\n`,
        );
        cluster = await startPgCluster({ durable: true });
        location = await createPgDatabase(cluster, 'erawatch_bench_api');
      } else if (args.store === 'postgres') {
        process.stdout.write(`-- SQLite (one file) --\n`);
      }
      if (args.clients > 0) {
        const figures = await overload(location, args, fleet.port, dir, running);
        process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
        const pass =
          figures.timedOut === 0 && figures.failed === 0 && Object.keys(figures.other).length === 0;
        process.stdout.write(
          `target every request answered 2xx or 429 within ${OVERLOAD_ANSWER_MS / 1000} s: ${pass ? 'met' : 'NOT met'}\n`,
        );
        fs.mkdirSync(path.join(root, 'bench-results'), { recursive: true });
        fs.writeFileSync(
          path.join(root, 'bench-results', `api-overload${engine === 'sqlite' ? '' : '-postgres'}.json`),
          `${JSON.stringify({ ...figures, store: engine, pass }, null, 2)}\n`,
        );
        summaries.push({ store: engine, summary: null, pass });
        continue;
      }
      const summary = await measure(location, args, fleet.port, dir, running);
      process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
      const pass = ['balancers', 'events'].every((k) => (summary.results[k] as { p95Ms: number }).p95Ms < 50);
      const [load1] = os.loadavg();
      process.stdout.write(
        `machine load average (1 min) at the end: ${load1?.toFixed(2) ?? '?'} on ${os.cpus().length} cores\n`,
      );
      process.stdout.write(`target p95 < 50 ms: ${pass ? 'met' : 'NOT met'}\n`);
      fs.mkdirSync(path.join(root, 'bench-results'), { recursive: true });
      fs.writeFileSync(
        path.join(root, 'bench-results', engine === 'sqlite' ? 'api.json' : 'api-postgres.json'),
        `${JSON.stringify({ ...summary, store: engine, pass }, null, 2)}\n`,
      );
      summaries.push({ store: engine, summary, pass });
    }
    const latency = summaries.flatMap((x) => (x.summary ? [{ store: x.store, summary: x.summary }] : []));
    if (latency.length > 1) process.stdout.write(`\n${compare(latency)}\n`);
    return summaries.every((s) => s.pass) ? 0 : 1;
  } finally {
    await cleanup();
    process.removeListener('exit', onExit);
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

interface Summary {
  poller: Args['poller'];
  concurrency: number;
  durationMs: number;
  results: Record<string, ReturnType<typeof load> extends Promise<infer R> ? R : never>;
  readiness: unknown;
  nodes: string;
}

async function stopRun(running: { server: NextServer | null; poller: ChildProcess | null }): Promise<void> {
  const { poller, server } = running;
  running.poller = null;
  running.server = null;
  if (poller && poller.exitCode === null) {
    const exited = new Promise((resolve) => poller.once('exit', resolve));
    poller.kill('SIGTERM');
    await exited;
  }
  await server?.stop();
}

/** One store's run: seed, start the server (and poller), load the three routes, stop. */
async function measure(
  location: string,
  args: Args,
  fleetPort: number,
  dir: string,
  running: { server: NextServer | null; poller: ChildProcess | null },
): Promise<Summary> {
  try {
    const t0 = Date.now();
    await seed(location, args, fleetPort);
    process.stdout.write(
      `seeded ${args.balancers} balancers, ${args.balancers * args.nodesPerBalancer} node URLs, ${args.events} events in ${Date.now() - t0} ms\n`,
    );
    const server = await startNextServer({
      root,
      host: '127.0.0.1',
      port: await freePort(),
      // A loaded machine starts the server and its poller over 10,000 new nodes slowly; this bounds a hang.
      readyTimeoutMs: 180_000,
      env: {
        ERAWATCH_DB: location,
        ERAWATCH_ADMIN_SECRET: ADMIN,
        ERAWATCH_ALLOW_LOOPBACK: '1',
        ERAWATCH_RATE_LIMIT: '0',
        ERAWATCH_MAX_CONCURRENT_REQUESTS: '0',
        ERAWATCH_CONFIG: path.join(dir, 'none.yaml'),
        ...(args.poller === 'on' ? {} : { ERAWATCH_POLLER: 'off' }),
      },
    });
    running.server = server;
    if (args.poller === 'process') {
      running.poller = spawn(process.execPath, [path.join(root, 'bin', 'erawatch.mjs'), 'poller'], {
        env: childEnvironment({ ERAWATCH_DB: location, ERAWATCH_ALLOW_LOOPBACK: '1' }),
        stdio: ['ignore', 'ignore', 'inherit'],
      });
    }
    const tokenRes = await fetch(`${server.url}/api/v1/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench', scope: 'read' }),
    });
    const token = ((await tokenRes.json()) as { token: string }).token;
    // Let the poller take the lease and create the nodes, so the requests run beside real polling.
    await new Promise((resolve) => setTimeout(resolve, args.warmupMs));
    const readiness = (await (await fetch(`${server.url}/readyz`)).json()) as unknown;
    const results: Summary['results'] = {};
    for (const [name, p] of [
      ['balancers', '/api/v1/balancers?limit=50'],
      ['events', '/api/v1/events?limit=50'],
      // The framework's floor on this machine: a handler that does nothing.
      ['healthz', '/healthz'],
    ] as const) {
      results[name] = await load(`${server.url}${p}`, token, args);
    }
    const nodes = (
      await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text()
    )
      .split('\n')
      .filter((l) => l.startsWith('erawatch_nodes{'))
      .join(', ');
    return {
      poller: args.poller,
      concurrency: args.concurrency,
      durationMs: args.durationMs,
      results,
      readiness,
      nodes,
    };
  } finally {
    await stopRun(running);
  }
}

/** SQLite beside PostgreSQL, route by route. */
function compare(runs: ReadonlyArray<{ store: string; summary: Summary }>): string {
  const rows: string[][] = [['route', 'store', 'requests/s', 'p50 ms', 'p95 ms', 'p99 ms', 'errors']];
  for (const route of ['balancers', 'events', 'healthz']) {
    for (const r of runs) {
      const f = r.summary.results[route];
      if (f) rows.push([route, r.store, ...[f.rps, f.p50Ms, f.p95Ms, f.p99Ms, f.errors].map(String)]);
    }
  }
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((row) => row[c]?.length ?? 0))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, c) => cell.padEnd(widths[c] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** Within this every request of the overload run must be answered. */
const OVERLOAD_ANSWER_MS = 10_000;

interface OverloadFigures {
  clients: number;
  durationMs: number;
  limit: string;
  requests: number;
  ok: number;
  overloaded: number;
  /** Other statuses, by status. */
  other: Record<string, number>;
  /** Requests not answered within OVERLOAD_ANSWER_MS. */
  timedOut: number;
  /** Connections refused or reset. */
  failed: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Answers of the 2xx requests alone. */
  okP99Ms: number;
  /** The requests that timed out, by the second of the run they were sent in. */
  timedOutBySecond: Record<string, number>;
}

/** One store's overload run: `--clients` clients, each on its own connection, against the default limit. */
async function overload(
  location: string,
  args: Args,
  fleetPort: number,
  dir: string,
  running: { server: NextServer | null; poller: ChildProcess | null },
): Promise<OverloadFigures> {
  try {
    await seed(location, args, fleetPort);
    const server = await startNextServer({
      root,
      host: '127.0.0.1',
      port: await freePort(),
      readyTimeoutMs: 180_000,
      env: {
        ERAWATCH_DB: location,
        ERAWATCH_ADMIN_SECRET: ADMIN,
        ERAWATCH_ALLOW_LOOPBACK: '1',
        ERAWATCH_RATE_LIMIT: '0',
        ERAWATCH_CONFIG: path.join(dir, 'none.yaml'),
        ...(args.poller === 'on' ? {} : { ERAWATCH_POLLER: 'off' }),
      },
    });
    running.server = server;
    const tokenRes = await fetch(`${server.url}/api/v1/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench', scope: 'read' }),
    });
    const token = ((await tokenRes.json()) as { token: string }).token;
    await new Promise((resolve) => setTimeout(resolve, args.warmupMs));
    const paths = ['/api/v1/balancers?limit=50', '/api/v1/events?limit=50'];
    const latencies: number[] = [];
    const okLatencies: number[] = [];
    const figures = { requests: 0, ok: 0, overloaded: 0, timedOut: 0, failed: 0 };
    const other: Record<string, number> = {};
    const started = performance.now();
    const deadline = started + args.durationMs;
    /** When (seconds into the run) the requests that timed out were sent. */
    const timedOutBySecond: Record<string, number> = {};
    const client = async (i: number) => {
      // One connection per client, kept alive: 250 clients are 250 sockets at the server.
      const dispatcher = new Agent({ connections: 1, keepAliveTimeout: 30_000 });
      try {
        for (let n = 0; performance.now() < deadline; n++) {
          const t0 = performance.now();
          figures.requests++;
          try {
            const res = await request(`${server.url}${paths[(i + n) % paths.length] ?? ''}`, {
              dispatcher,
              headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'gzip' },
              signal: AbortSignal.timeout(OVERLOAD_ANSWER_MS),
            });
            await res.body.arrayBuffer();
            const ms = performance.now() - t0;
            latencies.push(ms);
            if (res.statusCode >= 200 && res.statusCode < 300) {
              figures.ok++;
              okLatencies.push(ms);
            } else if (res.statusCode === 429) {
              figures.overloaded++;
              // As a client should: wait as long as Retry-After says before the next request.
              const wait = Number(res.headers['retry-after'] ?? '1');
              await new Promise((r) => setTimeout(r, (Number.isFinite(wait) ? wait : 1) * 1000));
            } else other[String(res.statusCode)] = (other[String(res.statusCode)] ?? 0) + 1;
          } catch (err) {
            if ((err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError') {
              figures.timedOut++;
              const second = String(Math.floor((t0 - started) / 1000));
              timedOutBySecond[second] = (timedOutBySecond[second] ?? 0) + 1;
            } else figures.failed++;
          }
        }
      } finally {
        await dispatcher.close();
      }
    };
    await Promise.all(Array.from({ length: args.clients }, (_, i) => client(i)));
    latencies.sort((a, b) => a - b);
    okLatencies.sort((a, b) => a - b);
    const r = (v: number) => Number(v.toFixed(1));
    return {
      clients: args.clients,
      durationMs: args.durationMs,
      limit: 'ERAWATCH_MAX_CONCURRENT_REQUESTS default (32)',
      ...figures,
      other,
      p50Ms: r(quantile(latencies, 0.5)),
      p99Ms: r(quantile(latencies, 0.99)),
      maxMs: r(latencies.at(-1) ?? NaN),
      okP99Ms: r(quantile(okLatencies, 0.99)),
      timedOutBySecond,
    };
  } finally {
    await stopRun(running);
  }
}
