// The poller benchmark's flags. Without --store postgres or --workers it runs the poller in its own process on
// SQLite (the one-box figures); with either, it starts real `erawatch worker --roles poll` processes.
import { parseDuration } from './args';
import { parseHttpClient, type HttpClientName } from './undici-probe-client';

/** `both`: SQLite in this process, then PostgreSQL with one worker, printed side by side. */
export type BenchStore = 'sqlite' | 'postgres' | 'both';

export interface PollerArgs {
  durationMs: number;
  nodes: number;
  intervalMs: number;
  concurrency: number;
  perBalancer: number;
  store: BenchStore;
  /** Worker processes; null runs the poller inside the benchmark (SQLite only). */
  workers: number | null;
  /** The probe's HTTP client: the project's (h1) or undici's Pool per origin (in-process runs only). */
  httpClient: HttpClientName;
  /** Hours of history (rollups and closed spans per node) seeded before the window; 0 keeps the store empty. */
  historyHours: number;
  /** Plain HTTP first, then the same fleet over HTTPS (a CA made at start, given as each balancer's CA bundle). */
  tls: boolean;
  /** The fleet's idle keep-alive timeout; null: none. */
  keepAliveMs: number | null;
}

export const MAX_BENCH_WORKERS = 16;
/** --tls runs give each node its own listener and connection: kept within a 20,000 file-descriptor limit. */
export const MAX_TLS_BENCH_NODES = 6_000;
/** --tls without --nodes. */
export const DEFAULT_TLS_BENCH_NODES = 2_000;
/**
 * Intervals of warm-up before the window: every node's first probe (nodes are new then), and its second, the
 * first cycle with a previous snapshot to compare with (it rewrites each balancer's analysis once). From the
 * third on, a quiet fleet's cycles find what the last one did.
 */
export const WARMUP_INTERVALS = 2;
/** Workers on PostgreSQL when --workers is not given. */
export const DEFAULT_PG_WORKERS = 3;

function positiveInteger(flag: string, value: string, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isInteger(n) || n < 1 || n > max)
    throw new Error(`${flag} must be an integer from 1 to ${max}, got '${value}'`);
  return n;
}

export function parsePollerArgs(argv: readonly string[]): PollerArgs {
  const a: PollerArgs = {
    durationMs: 180_000,
    nodes: 10_000,
    intervalMs: 30_000,
    concurrency: 64,
    perBalancer: 100,
    store: 'sqlite',
    workers: null,
    httpClient: 'h1',
    historyHours: 0,
    tls: false,
    keepAliveMs: 60_000,
  };
  let nodesGiven = false;
  // --tls is the one flag without a value.
  const list = argv.flatMap((x) => (x === '--tls' ? ['--tls', 'on'] : [x]));
  for (let i = 0; i < list.length; i += 2) {
    const flag = list[i];
    const value = list[i + 1];
    if (value === undefined) throw new Error(`missing value for ${flag ?? ''}`);
    if (flag === '--duration') a.durationMs = parseDuration(value);
    else if (flag === '--interval') a.intervalMs = parseDuration(value);
    else if (flag === '--nodes') {
      a.nodes = positiveInteger('--nodes', value);
      nodesGiven = true;
    } else if (flag === '--concurrency') a.concurrency = positiveInteger('--concurrency', value, 10_000);
    else if (flag === '--per-balancer') a.perBalancer = positiveInteger('--per-balancer', value);
    else if (flag === '--http-client') a.httpClient = parseHttpClient(value);
    else if (flag === '--workers') a.workers = positiveInteger('--workers', value, MAX_BENCH_WORKERS);
    else if (flag === '--history') a.historyHours = Math.round(parseDuration(value) / 3_600_000);
    else if (flag === '--tls') a.tls = true;
    else if (flag === '--keep-alive-timeout') {
      if (value === 'none') a.keepAliveMs = null;
      else {
        a.keepAliveMs = parseDuration(value);
        if (a.keepAliveMs < 1_000 || a.keepAliveMs > 3_600_000)
          throw new Error(`--keep-alive-timeout must be none or 1s to 1h, got '${value}'`);
      }
    } else if (flag === '--store') {
      if (value !== 'sqlite' && value !== 'postgres' && value !== 'both')
        throw new Error(`--store must be sqlite, postgres or both, got '${value}'`);
      a.store = value;
    } else throw new Error(`unknown flag ${flag ?? ''}`);
  }
  if (a.durationMs <= (WARMUP_INTERVALS + 1) * a.intervalMs)
    throw new Error(
      `--duration must be longer than ${WARMUP_INTERVALS + 1} intervals (${WARMUP_INTERVALS} of warm-up, then the window)`,
    );
  if (a.store === 'both' && a.workers !== null)
    throw new Error('--store both runs SQLite in process and PostgreSQL with one worker: drop --workers');
  if (a.store === 'postgres' && a.workers === null) a.workers = DEFAULT_PG_WORKERS;
  if (a.tls && (a.workers !== null || a.store !== 'sqlite'))
    throw new Error('--tls applies to the in-process run only (no --workers, SQLite)');
  // One listener and one kept connection per node on each side, within the file descriptors of one box.
  if (a.tls && !nodesGiven) a.nodes = DEFAULT_TLS_BENCH_NODES;
  if (a.tls && a.nodes > MAX_TLS_BENCH_NODES)
    throw new Error(
      `--tls gives every node a port of its own: at most ${MAX_TLS_BENCH_NODES} nodes (figures per probe scale to more)`,
    );
  if (a.httpClient !== 'h1' && a.workers !== null)
    throw new Error('--http-client undici applies to the in-process run only (no --workers, SQLite)');
  return a;
}
