// `npm run bench -- poller --store postgres|sqlite --workers N [--nodes 60000] [--duration 3m] [--interval 30s]`
// N real `erawatch worker --roles poll` processes share one store (a throwaway PostgreSQL 15 cluster on
// loopback, or one SQLite file) and a fake fleet that keeps every probe's start time per node. After warm-up
// it measures one window with every worker running (probes/s, CPU per worker from /proc, lag from due time
// to probe start, database growth), then kill -9s one worker and measures how long its units wait for
// another. Double probes (at once, or within one interval) must be 0 and the take-over at most 15 s.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { openStore, type Store } from '@/db';
import { createBalancer } from '@/lib/balancers';
import { listUnits } from '@/db/queries/units';
import { formatHistogram, parseHistogram } from '@/db/histogram';
import { hourOf, rollupKey } from '@/db/rollup-key';
import {
  countNodeStates,
  insertRollups,
  readHourFromRing,
  storeBytes,
  tableBytes,
  tableRows,
} from '@/db/stats';
import { assignPhases } from '@/lib/poller/schedule';
import {
  createPgDatabase,
  killPgClusterNow,
  postgresMissing,
  setPgBinDir,
  startPgCluster,
  stopPgCluster,
  type PgCluster,
} from './support/pg-cluster';
import { startFakeFleet, type FakeFleet } from './support/fake-fleet';
import { childEnvironment, processSettings } from '@/lib/settings';
import { WARMUP_INTERVALS, type PollerArgs } from './support/poller-args';
import {
  findDoubleProbes,
  growthOutsideRollups,
  perHour,
  perQuietHourAtOffered,
  splitGrowth,
  type Weight,
  probeLags,
  procStatCpuSeconds,
  procStatParent,
  quantile,
  takeoverSeconds,
} from './support/worker-figures';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The issue's bound: a kill -9'd worker's units are probed by another within one lease TTL, 15 s at most. */
const TAKEOVER_TARGET_S = 15;
const PROGRESS_EVERY_MS = 15_000;

interface Worker {
  index: number;
  child: ChildProcess;
  pid: number;
  exited: Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const say = (line: string) => process.stdout.write(`${line}\n`);

function clockTicks(): number {
  const out = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const n = Number(out.stdout?.trim());
  return Number.isInteger(n) && n > 0 ? n : 100;
}

function readStat(pid: number): string | null {
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
}

/** CPU seconds of one process, or null once it is gone. */
function cpuOf(pid: number, ticks: number): number | null {
  const stat = readStat(pid);
  return stat === null ? null : procStatCpuSeconds(stat, ticks);
}

/** CPU seconds of the postmaster, its reaped children and its live backends. */
function clusterCpu(postmaster: number, ticks: number): number {
  const own = readStat(postmaster);
  let total = own === null ? 0 : procStatCpuSeconds(own, ticks, true);
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat !== null && procStatParent(stat) === postmaster) total += procStatCpuSeconds(stat, ticks);
  }
  return total;
}

/** Database size, per-table bytes and (PostgreSQL) per-table row counts, from the engine's own accounting. */
/** The store's size, bytes and rows per table (pass the PostgreSQL connection, or null for SQLite). */
export async function weigh(store: Store, pg: postgres.Sql | null): Promise<Weight> {
  if (pg) {
    const [size] = await pg<Array<{ bytes: string }>>`SELECT pg_database_size(current_database()) AS bytes`;
    const rows = await pg<Array<{ schema: string; name: string; bytes: string }>>`
      SELECT n.nspname AS schema, c.relname AS name, pg_total_relation_size(c.oid) AS bytes
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema')`;
    const quote = (id: string) => `"${id.replace(/"/g, '""')}"`;
    const counts: Record<string, number> = {};
    for (const r of rows) {
      const [c] = await pg.unsafe<Array<{ n: string }>>(
        `SELECT count(*) AS n FROM ${quote(r.schema)}.${quote(r.name)}`,
      );
      counts[r.name] = Number(c?.n ?? 0);
    }
    return {
      total: Number(size?.bytes ?? 0),
      tables: Object.fromEntries(rows.map((r) => [r.name, Number(r.bytes)])),
      rows: counts,
    };
  }
  return {
    total: (await storeBytes(store)) ?? 0,
    tables: await tableBytes(store),
    rows: await tableRows(store),
  };
}

interface TableCounters {
  /** Per table: rows inserted, updated, of which heap-only (HOT); inserts into its TOAST table. */
  tables: Record<string, { ins: number; upd: number; hot: number; toastIns: number }>;
  walLsn: string;
}

/** PostgreSQL's own counters of row versions written, per table, and the write-ahead log position. */
async function pgCounters(pg: postgres.Sql): Promise<TableCounters> {
  await pg`SELECT pg_stat_clear_snapshot()`;
  const rows = await pg<Array<{ name: string; ins: string; upd: string; hot: string; toast: string | null }>>`
    SELECT s.relname AS name, s.n_tup_ins AS ins, s.n_tup_upd AS upd, s.n_tup_hot_upd AS hot,
      (SELECT t.n_tup_ins FROM pg_stat_all_tables t WHERE t.relid = c.reltoastrelid) AS toast
    FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid`;
  const [wal] = await pg<Array<{ lsn: string }>>`SELECT pg_current_wal_lsn()::text AS lsn`;
  return {
    tables: Object.fromEntries(
      rows.map((r) => [
        r.name,
        { ins: Number(r.ins), upd: Number(r.upd), hot: Number(r.hot), toastIns: Number(r.toast ?? 0) },
      ]),
    ),
    walLsn: wal?.lsn ?? '0/0',
  };
}

/**
 * Seeds `hours` of history before the window (PostgreSQL): every node's rollup row for each past hour and two
 * closed fingerprint spans per node per hour (not changes, so the analysis stays quiet), as a store that has
 * been probing that long would hold them.
 */
async function seedHistory(pg: postgres.Sql, hours: number, now: number): Promise<number> {
  const historyInserts = await historyInsertsCounted(pg);
  const nodes = await pg<Array<{ seq: number }>>`SELECT seq FROM nodes WHERE seq IS NOT NULL`;
  const perHour = Math.round(3_600_000 / 30_000);
  const rows: Array<{ k: number; p: number; l: string }> = [];
  for (let h = 1; h <= hours; h++)
    for (const n of nodes)
      rows.push({ k: rollupKey(hourOf(now) - h, Number(n.seq)), p: perHour, l: `3:${perHour}` });
  for (let i = 0; i < rows.length; i += 5_000)
    await pg`INSERT INTO node_rollups (key, probes, failures, latency)
      SELECT x.k, x.p, 0, x.l FROM jsonb_to_recordset(${pg.json(rows.slice(i, i + 5_000))}::jsonb)
        AS x(k bigint, p int, l text)
      ON CONFLICT (key) DO NOTHING`;
  const spanMs = 1_800_000;
  const spans =
    await pg`INSERT INTO subject_history (subject_id, region, kind, node_id, fingerprint_key, client_era,
      reason, negotiated_version, served_eras, is_change, started_at, ended_at, probes, failures)
    SELECT s.subject_id, s.region, s.kind, s.node_id, s.fingerprint_key, s.client_era, s.reason, NULL, 'unknown',
      false, ${now} - (g + 1) * ${spanMs}::bigint, ${now} - g * ${spanMs}::bigint, 60, 0
    FROM subject_states s, generate_series(1, ${hours * 2}) g WHERE s.kind = 'node'`;
  await pg`ANALYZE`;
  await statsFlushed(pg, historyInserts + spans.count);
  return rows.length + spans.count;
}

async function historyInsertsCounted(pg: postgres.Sql): Promise<number> {
  await pg`SELECT pg_stat_clear_snapshot()`;
  const [row] = await pg<Array<{ ins: string | null }>>`
    SELECT n_tup_ins AS ins FROM pg_stat_user_tables WHERE relname = 'subject_history'`;
  return Number(row?.ins ?? 0);
}

/**
 * Waits until the seeding's inserts show in pg_stat_user_tables: a backend hands its counts to the shared
 * statistics at most once a second, so the window's first reading could otherwise miss them and count the
 * seeding as the window's row versions. Bounded: 50 tries.
 */
async function statsFlushed(pg: postgres.Sql, historyInserts: number): Promise<void> {
  for (let i = 0; i < 50; i++) {
    await pg`SELECT pg_stat_force_next_flush()`;
    if ((await historyInsertsCounted(pg)) >= historyInserts) return;
    await sleep(100);
  }
  throw new Error('the seeded rows did not reach the statistics in 5 s');
}

/**
 * The average length of a table's row versions as stored on its pages (pgstattuple: tuple header and inline
 * data, an out-of-line value as its pointer), which is what an update writes when its TOASTed values are
 * unchanged; new TOAST chunks are counted apart. Without the extension, the rows' composite size (which
 * counts a TOASTed value in full, so it overstates).
 */
async function storedTupleWidth(pg: postgres.Sql, table: string): Promise<{ width: number }> {
  try {
    const [w] = await pg<Array<{ width: number | null }>>`
      SELECT (tuple_len::float8 / nullif(tuple_count, 0)) AS width FROM pgstattuple(${table}::regclass)`;
    return { width: Number(w?.width ?? 0) };
  } catch (err) {
    process.stderr.write(
      `bench poller: pgstattuple unavailable (${(err as Error).message}); row widths are composite sizes\n`,
    );
    const [w] = await pg.unsafe<Array<{ width: string | null }>>(
      `SELECT avg(pg_column_size(t.*)) AS width FROM (SELECT * FROM "${table}" LIMIT 1000) t`,
    );
    return { width: Number(w?.width ?? 0) };
  }
}

/** A TOAST chunk holds up to about 2 kB: the bound used for the out-of-line part of a row version. */
const TOAST_CHUNK_BYTES = 2_000;

/**
 * Row versions written between two counter readings: per table, (inserted + updated) rows times the table's
 * average row size (pg_column_size of the row, plus its 4-byte line pointer), plus TOAST chunks; and the
 * write-ahead log in between. Divided by the probes of the window, a quiet fleet's figure per quiet probe.
 */
async function rowVersions(pg: postgres.Sql, before: TableCounters, after: TableCounters, probes: number) {
  const byTable: Record<string, { rows: number; hot: number; bytes: number }> = {};
  let bytes = 0;
  let updates = 0;
  let hot = 0;
  for (const [name, a] of Object.entries(after.tables)) {
    const b = before.tables[name] ?? { ins: 0, upd: 0, hot: 0, toastIns: 0 };
    const written = a.ins - b.ins + (a.upd - b.upd);
    const toast = a.toastIns - b.toastIns;
    if (written <= 0 && toast <= 0) continue;
    const w = await storedTupleWidth(pg, name);
    const tableBytes = Math.round(written * (Number(w?.width ?? 0) + 4) + toast * TOAST_CHUNK_BYTES);
    byTable[name] = { rows: written, hot: a.hot - b.hot, bytes: tableBytes };
    bytes += tableBytes;
    updates += a.upd - b.upd;
    hot += a.hot - b.hot;
  }
  const [wal] = await pg<Array<{ bytes: string }>>`
    SELECT pg_wal_lsn_diff(${after.walLsn}::pg_lsn, ${before.walLsn}::pg_lsn) AS bytes`;
  return {
    bytesPerProbe: probes > 0 ? Math.round(bytes / probes) : null,
    walBytesPerProbe: probes > 0 ? Math.round(Number(wal?.bytes ?? 0) / probes) : null,
    hotShare: updates > 0 ? Number((hot / updates).toFixed(3)) : null,
    byTable,
  };
}

function table(rows: ReadonlyArray<readonly [string, string, string, string]>): string {
  const widths = [0, 1, 2, 3].map((c) => Math.max(...rows.map((r) => r[c]?.length ?? 0)));
  return rows
    .map((r) =>
      r
        .map((cell, c) => cell.padEnd(widths[c] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export async function runWorkers(args: PollerArgs): Promise<number> {
  const count = args.workers ?? 1;
  if (args.store === 'postgres') {
    setPgBinDir(childEnvironment().ERAWATCH_PG_BIN);
    const missing = postgresMissing();
    if (missing) {
      process.stderr.write(`bench poller: ${missing}\n`);
      return 1;
    }
  }
  const ticks = clockTicks();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-bench-workers-'));
  let cluster: PgCluster | null = null;
  let pg: postgres.Sql | null = null;
  let store: Store | null = null;
  let fleet: FakeFleet | null = null;
  const workers: Worker[] = [];
  let cleaning: Promise<void> | null = null;

  const stopWorker = async (w: Worker) => {
    if (w.child.exitCode !== null || w.child.signalCode !== null) return;
    process.kill(w.pid, 'SIGTERM');
    const exited = await Promise.race([w.exited.then(() => true), sleep(30_000).then(() => false)]);
    if (!exited && w.child.exitCode === null && w.child.signalCode === null) {
      process.kill(w.pid, 'SIGKILL');
      await w.exited;
    }
  };
  const cleanup = () =>
    (cleaning ??= (async () => {
      await Promise.all(workers.map(stopWorker));
      await store?.close().catch(() => undefined);
      await pg?.end({ timeout: 5 }).catch(() => undefined);
      fleet?.stop();
      if (cluster) await stopPgCluster(cluster);
      fs.rmSync(dir, { recursive: true, force: true });
    })());
  // Whatever ends this process, nothing it started outlives it: by PID, SIGKILL where nothing can be awaited.
  const onExit = () => {
    for (const w of workers)
      if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
    fleet?.stop();
    if (cluster) killPgClusterNow(cluster);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    say(`${signal}: stopping the workers, the fake fleet${cluster ? ' and PostgreSQL' : ''}`);
    void cleanup().finally(() => process.exit(130));
  };
  process.once('exit', onExit);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    let location: string;
    if (args.store === 'postgres') {
      say('starting a throwaway PostgreSQL 15 cluster on loopback…');
      cluster = await startPgCluster({ durable: true });
      location = await createPgDatabase(cluster, 'erawatch_bench');
      pg = postgres(location, { max: 1, onnotice: () => {} });
      // Row versions are measured as stored on the pages (storedTupleWidth); the extension ships with PostgreSQL.
      await pg`CREATE EXTENSION IF NOT EXISTS pgstattuple`.catch(() => undefined);
      say(`PostgreSQL on 127.0.0.1:${cluster.port} (postmaster pid ${cluster.pid}, fsync on)`);
    } else {
      location = path.join(dir, 'bench.db');
    }
    store = await openStore(location, { settings: processSettings() });
    fleet = await startFakeFleet({ track: true });

    const kinds = ['m', 'd', 'l'] as const;
    const timeoutMs = Math.min(5_000, Math.floor((args.intervalMs - 100) / 3));
    const balancers = Math.ceil(args.nodes / args.perBalancer);
    const nodesOf = new Map<string, number[]>();
    for (let b = 0; b < balancers; b++) {
      // The same fleet as the one-process benchmark: half modern-only, three in ten dual-era, two in ten legacy.
      const kind = kinds[b % 10 < 5 ? 0 : b % 10 < 8 ? 1 : 2] ?? 'm';
      const nodes = Array.from(
        { length: Math.min(args.perBalancer, args.nodes - b * args.perBalancer) },
        (_, i) => b * args.perBalancer + i,
      );
      const created = await createBalancer(store, {
        name: `bench-${b}`,
        publicUrl: `http://127.0.0.1:${fleet.port}/${kind}/public-${b}`,
        nodeUrls: nodes.map((n) => `http://127.0.0.1:${fleet?.port ?? 0}/${kind}/${n}`),
        samplesPerCycle: 0,
        allowLegacy: kind === 'l',
        intervalMs: args.intervalMs,
        timeoutMs,
        legacyProbeTimeoutMs: timeoutMs,
      });
      nodesOf.set(created.id, nodes);
    }
    // Every worker computes the same phases from the same list; the fleet's start times are judged by them.
    const phases = assignPhases(
      [...nodesOf.keys()].map((id) => ({ key: `b:${id}`, intervalMs: args.intervalMs })),
    );
    const phaseOfNode = new Float64Array(args.nodes).fill(NaN);
    for (const [id, nodes] of nodesOf) for (const n of nodes) phaseOfNode[n] = phases.get(`b:${id}`) ?? NaN;
    const nodePhase = (n: number) => {
      const p = phaseOfNode[n];
      return p === undefined || Number.isNaN(p) ? undefined : p;
    };

    for (let i = 0; i < count; i++) {
      const child = spawn(
        process.execPath,
        [
          path.join(root, 'bin', 'erawatch.mjs'),
          'worker',
          '--roles',
          'poll',
          '--concurrency',
          String(args.concurrency),
        ],
        {
          cwd: root,
          env: childEnvironment({
            ERAWATCH_DB: location,
            ERAWATCH_ALLOW_LOOPBACK: '1',
            ERAWATCH_CONFIG: path.join(dir, 'absent.yaml'),
          }),
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      if (!child.pid) throw new Error('a worker did not start');
      const w: Worker = {
        index: i + 1,
        child,
        pid: child.pid,
        exited: new Promise<void>((r) => child.once('exit', () => r())),
      };
      const relay = (d: Buffer) => {
        for (const line of d.toString().split('\n')) if (line.trim()) say(`  [worker ${w.index}] ${line}`);
      };
      child.stdout?.on('data', relay);
      child.stderr?.on('data', relay);
      workers.push(w);
    }
    say(
      `${args.nodes} nodes in ${balancers} balancers on ${args.store === 'postgres' ? 'PostgreSQL' : 'one SQLite file'}, ` +
        `${count} worker process${count === 1 ? '' : 'es'} (pids ${workers.map((w) => w.pid).join(', ')}), fake fleet pid ${fleet.pid}, ` +
        `interval ${args.intervalMs / 1000}s, concurrency ${args.concurrency} per worker, load ${os.loadavg()[0]?.toFixed(2)}`,
    );

    const started = Date.now();
    let lastProbes = 0;
    let lastAt = started;
    const progress = setInterval(() => {
      void fleet
        ?.stats()
        .then((s) => {
          const t = Date.now();
          const alive = workers.filter(
            (w) => w.child.exitCode === null && w.child.signalCode === null,
          ).length;
          say(
            `  ${Math.round((t - started) / 1000)}s: ${s.probes} probes at the fleet (${(((s.probes - lastProbes) / (t - lastAt)) * 1000).toFixed(0)}/s), ` +
              `${alive}/${count} workers, load ${os.loadavg()[0]?.toFixed(2)}`,
          );
          lastProbes = s.probes;
          lastAt = t;
        })
        .catch(() => undefined);
    }, PROGRESS_EVERY_MS);

    try {
      // Warm-up as in the one-process benchmark: every node probed once, then one more interval.
      say(`warming up: every node's first two probes (${WARMUP_INTERVALS} intervals)`);
      await sleep(WARMUP_INTERVALS * args.intervalMs + 2_000);
      // A machine that cannot probe the fleet once within a few intervals is measured as it is, and says so.
      const giveUpAt = Date.now() + Math.max(5 * 60_000, 6 * args.intervalMs);
      let withState = await countNodeStates(store);
      while (withState < args.nodes && Date.now() < giveUpAt) {
        if (workers.every((w) => w.child.exitCode !== null)) throw new Error('every worker exited');
        await sleep(1_000);
        withState = await countNodeStates(store);
      }
      const firstRoundMs = Date.now() - started;
      const firstRoundDone = withState >= args.nodes;
      if (!firstRoundDone)
        say(
          `the first round did not finish: ${withState} of ${args.nodes} nodes have a state; measuring anyway`,
        );
      else if (firstRoundMs > args.intervalMs + 3_000) await sleep(args.intervalMs);

      if (args.historyHours > 0) {
        if (!pg) say(`--history seeds PostgreSQL only: measuring SQLite on an empty store`);
        else
          say(
            `seeded ${args.historyHours} hour(s) of history: ${await seedHistory(pg, args.historyHours, Date.now())} rows`,
          );
      }
      const measureMs =
        Math.max(
          1,
          Math.floor((args.durationMs - WARMUP_INTERVALS * args.intervalMs - 2_000) / args.intervalMs),
        ) * args.intervalMs;
      say(`measuring ${measureMs / 1000}s with ${count} worker${count === 1 ? '' : 's'}`);
      const loadAtStart = os.loadavg()[0] ?? 0;
      const bytesBefore = await weigh(store, pg);
      const countersBefore = pg ? await pgCounters(pg) : null;
      const cpuBefore = workers.map((w) => cpuOf(w.pid, ticks));
      const pgCpuBefore = cluster ? clusterCpu(cluster.pid, ticks) : 0;
      const fleetBefore = await fleet.stats();
      const t0 = Date.now();
      await sleep(measureMs);
      const t1 = Date.now();
      const cpuAfter = workers.map((w) => cpuOf(w.pid, ticks));
      const pgCpuAfter = cluster ? clusterCpu(cluster.pid, ticks) : 0;
      const fleetAfter = await fleet.stats();
      const countersAfter = pg ? await pgCounters(pg) : null;
      const bytesAfter = await weigh(store, pg);
      const loadAtEnd = os.loadavg()[0] ?? 0;
      const windowMs = t1 - t0;

      // kill -9 of one worker, stopped first so the units it holds can be listed without a race.
      let takeover: number | null = null;
      let killedAt: number | null = null;
      let victimUnits: number[][] = [];
      let afterKillMs = 0;
      if (count >= 2) {
        const victim = workers[0];
        if (!victim) throw new Error('no worker');
        let held: string[] = [];
        for (let tries = 0; tries < 40 && held.length === 0; tries++) {
          process.kill(victim.pid, 'SIGSTOP');
          const now = Date.now();
          held = (await listUnits(store))
            .filter((u) => u.pid === victim.pid && u.expiresAt > now)
            .map((u) => u.unitId);
          if (held.length === 0) {
            process.kill(victim.pid, 'SIGCONT');
            await sleep(250);
          }
        }
        if (held.length === 0) throw new Error(`worker ${victim.index} held no unit in 40 tries`);
        victimUnits = held.map((id) => nodesOf.get(id) ?? []);
        process.kill(victim.pid, 'SIGKILL');
        killedAt = Date.now();
        say(`kill -9 of worker ${victim.index} (pid ${victim.pid}) holding ${held.length} unit(s)`);
        await victim.exited;
        const kill = killedAt;
        const deadline = kill + 60_000;
        while (Date.now() < deadline) {
          takeover = takeoverSeconds((await fleet.probes(kill)).times, victimUnits, kill);
          if (takeover !== null) break;
          await sleep(250);
        }
        say(
          takeover === null
            ? `its units were not probed again within 60 s`
            : `its units were probed again by another worker after ${takeover.toFixed(1)} s`,
        );
        // One more interval: a unit run twice after the take-over would show as a double here.
        await sleep(Math.max(0, kill + args.intervalMs - Date.now()));
        afterKillMs = Date.now() - kill;
      }
      const tEnd = Date.now();
      const probes = await fleet.probes(t0 - args.intervalMs);
      clearInterval(progress);

      const lags = probeLags(probes.times, nodePhase, args.intervalMs, t0, t1);
      const doubles = findDoubleProbes(probes.times, args.intervalMs / 2, t0, tEnd);
      // The killed worker's unfinished cycle runs again on its successor (at least once): those nodes are
      // probed twice across the kill by design; any other double is a defect.
      const victimNodes = new Set(victimUnits.flat());
      const acrossKill = doubles.filter(
        (d) => killedAt !== null && victimNodes.has(d.node) && d.earlier < killedAt && d.later > killedAt,
      );
      const badDoubles = doubles.length - acrossKill.length;
      const probesInWindow = lags.length;
      const probesPerSecond = (probesInWindow / windowMs) * 1000;
      const offered = (args.nodes / args.intervalMs) * 1000;
      const cpuPerWorker = workers.map((w, i) => {
        const a = cpuAfter[i];
        const b = cpuBefore[i];
        return a === null || a === undefined || b === null || b === undefined
          ? null
          : (a - b) / (windowMs / 1000);
      });
      const pgCpu = cluster ? (pgCpuAfter - pgCpuBefore) / (windowMs / 1000) : null;
      const fleetCpu = (fleetAfter.cpuMicros - fleetBefore.cpuMicros) / 1000 / windowMs;

      await Promise.all(workers.map(stopWorker));
      const { accumulating, rewritten } = splitGrowth(bytesBefore, bytesAfter);
      const tableGrowth = { ...accumulating, ...rewritten };
      const otherGrowth = growthOutsideRollups(accumulating);
      const rewrittenGrowth = growthOutsideRollups(rewritten);
      // A new hour adds one rollup row per node (folded from its minute slots when the hour is left): weigh it
      // by writing the next hour's rows from this hour's slots, as the one-process benchmark does.
      const beforeNextHour = await weigh(store, pg);
      const current = await readHourFromRing(store, hourOf(Date.now()));
      const probesPerHour = Math.round(3_600_000 / args.intervalMs);
      await insertRollups(
        store,
        current.map((r) => {
          const h = parseHistogram(r.latency);
          for (const [k, c] of h) h.set(k, Math.max(1, Math.round((c * probesPerHour) / r.probes)));
          return { key: r.key + 2 ** 24, probes: probesPerHour, failures: 0, latency: formatHistogram(h) };
        }),
      );
      const rollupHour = (await weigh(store, pg)).total - beforeNextHour.total;
      const sizeGrowthPerHour = perHour(bytesBefore.total, bytesAfter.total, windowMs);
      // Per probe, at the rate the fleet offers: on a machine that falls behind, per hour of wall time would
      // count only the probes it managed.
      const steadyPerHour =
        probesInWindow > 0 ? perQuietHourAtOffered(otherGrowth, probesInWindow, offered) : 0;
      const perQuietHour = steadyPerHour + rollupHour;

      const round = (v: number | null, d = 3) => (v === null ? null : Number(v.toFixed(d)));
      const versions =
        pg && countersBefore && countersAfter
          ? await rowVersions(pg, countersBefore, countersAfter, probesInWindow)
          : null;
      const totalCpu = cpuPerWorker.reduce<number>((s, c) => s + (c ?? 0), 0) + (pgCpu ?? 0);
      const results = {
        store: args.store,
        workers: count,
        loadAverage1m: { atStart: round(loadAtStart, 2), atEnd: round(loadAtEnd, 2) },
        cores: os.cpus().length,
        nodes: args.nodes,
        balancers,
        intervalMs: args.intervalMs,
        concurrencyPerWorker: args.concurrency,
        firstRoundSeconds: firstRoundDone ? Math.round(firstRoundMs / 1000) : null,
        nodesWithStateAfterWarmup: withState,
        measuredSeconds: Math.round(windowMs / 1000),
        probes: probesInWindow,
        probesPerSecond: round(probesPerSecond, 1),
        offeredProbesPerSecond: round(offered, 1),
        cpuPerWorkerShareOfOneCore: cpuPerWorker.map((c) => round(c)),
        workersCpuShareOfOneCore: round(cpuPerWorker.reduce<number>((s, c) => s + (c ?? 0), 0)),
        postgresCpuShareOfOneCore: round(pgCpu),
        cpuMicrosPerProbe: probesPerSecond > 0 ? Math.round((totalCpu / probesPerSecond) * 1e6) : null,
        historyHoursSeeded: args.historyHours,
        rowVersions: versions,
        fakeFleetCpuShareOfOneCore: round(fleetCpu),
        lagMs: { p50: quantile(lags, 0.5), p99: quantile(lags, 0.99), max: quantile(lags, 1) },
        doubleProbes: badDoubles,
        probesAtOnce: probes.overlaps,
        reprobedAcrossKill: acrossKill.length,
        takeoverSeconds: round(takeover, 1),
        watchedAfterKillSeconds: Math.round(afterKillMs / 1000),
        dbBytes: {
          atStart: bytesBefore.total,
          atEnd: bytesAfter.total,
          sizeGrowthPerHour: Math.round(sizeGrowthPerHour),
          steadyGrowthPerHour: Math.round(steadyPerHour),
          rewrittenInPlaceInWindow: rewrittenGrowth,
          fullQuietHourOfRollups: rollupHour,
          perQuietHour: Math.round(perQuietHour),
          tableGrowth,
        },
      };
      const pass = {
        firstRound: firstRoundDone,
        doubleProbes: badDoubles === 0 && probes.overlaps === 0,
        takeover: count < 2 || (takeover !== null && takeover <= TAKEOVER_TARGET_S),
      };
      const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
      const mb = (b: number) => `${(b / 1e6).toFixed(2)} MB`;
      say(`${JSON.stringify(results, null, 2)}`);
      say(
        `\n${args.store}, ${count} worker${count === 1 ? '' : 's'}, ${args.nodes} nodes, load ${results.loadAverage1m.atStart} → ${results.loadAverage1m.atEnd} on ${results.cores} cores\n` +
          table([
            ['figure', 'value', 'target', ''],
            [
              'probes/s in total',
              probesPerSecond.toFixed(1),
              `${offered.toFixed(1)} offered`,
              probesPerSecond >= offered * 0.99 ? 'kept up' : 'fell behind',
            ],
            [
              'CPU per worker (share of a core)',
              cpuPerWorker.map((c) => (c === null ? '-' : c.toFixed(3))).join(' / '),
              '',
              '',
            ],
            ...(pgCpu === null
              ? []
              : [['PostgreSQL CPU (share of a core)', pgCpu.toFixed(3), '', ''] as const]),
            ['fake fleet CPU (share of a core)', fleetCpu.toFixed(3), '', ''],
            ['CPU per probe, workers + database (µs)', String(results.cpuMicrosPerProbe ?? '-'), '', ''],
            ...(versions === null
              ? []
              : [
                  [
                    'row versions per quiet probe (bytes) / WAL per probe / HOT share of updates',
                    `${versions.bytesPerProbe} / ${versions.walBytesPerProbe} / ${versions.hotShare}`,
                    '≤ 150',
                    (versions.bytesPerProbe ?? Infinity) <= 150 ? 'met' : 'MISSED',
                  ] as const,
                ]),
            ['lag p50 / p99 (ms)', `${results.lagMs.p50} / ${results.lagMs.p99}`, '', ''],
            [
              'double probes (at once / within an interval)',
              `${probes.overlaps} / ${badDoubles}`,
              '0',
              verdict(pass.doubleProbes),
            ],
            ['re-probed across the kill (at least once)', String(acrossKill.length), '', ''],
            [
              'take-over after kill -9 (s)',
              count < 2 ? 'n/a (one worker)' : takeover === null ? 'none in 60 s' : takeover.toFixed(1),
              `≤ ${TAKEOVER_TARGET_S}`,
              count < 2 ? '' : verdict(pass.takeover),
            ],
            [
              'nodes probed and stored after warm-up',
              `${withState} of ${args.nodes}`,
              'all',
              verdict(firstRoundDone),
            ],
            ['database size growth, scaled to an hour', mb(sizeGrowthPerHour), '', ''],
            [
              pg === null
                ? 'tables rewritten in place, growth in the window (bounded: page counts swing by cycle)'
                : 'row versions of rewritten tables in the window (autovacuum reclaims them)',
              mb(rewrittenGrowth),
              '',
              '',
            ],
            [
              'database bytes per quiet hour at the offered rate (steady + one hour of rollups)',
              `${mb(perQuietHour)} (${mb(steadyPerHour)} + ${mb(rollupHour)})`,
              '',
              '',
            ],
          ]),
      );
      fs.mkdirSync(path.join(root, 'bench-results'), { recursive: true });
      fs.writeFileSync(
        path.join(root, 'bench-results', `poller-${args.store}-${count}-workers.json`),
        `${JSON.stringify({ results, pass }, null, 2)}\n`,
      );
      return Object.values(pass).every(Boolean) ? 0 : 1;
    } finally {
      clearInterval(progress);
    }
  } catch (err) {
    process.stderr.write(`bench poller: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    await cleanup();
    process.removeListener('exit', onExit);
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}
