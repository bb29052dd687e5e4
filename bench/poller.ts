// `npm run bench -- poller [--duration 3m] [--nodes 10000] [--interval 30s] [--concurrency 64]`
// 10,000 simulated nodes (a fake fleet in its own process), the real poller, probe engine and SQLite store
// in this process. Reports sustained probes/s, this process' CPU as a share of one core (the fleet measured
// apart), p50/p99 lag between a cycle's due time and each probe's start, requests per probe at the fleet,
// RSS, and database bytes per hour of a quiet fleet. The first two intervals are warm-up (every node is new in the first; the second is the first cycle with a previous snapshot)
// and is not measured; a fleet not probed in full by then warms up until it is, plus one interval, plus as
// many more (up to four) as it takes to stop starting more probes per interval than it has nodes.
// With `--store postgres` or `--workers N` it runs worker processes on a shared store instead (poller-workers.ts).
// With `--tls [--keep-alive-timeout 5s|75s|none]` it runs twice, back to back: the fleet over plain HTTP, then
// over HTTPS (a CA and certificate made at start; every balancer names the CA file as its CA bundle, as an
// operator would), with the fleet's keep-alive timeout the flag's; it prints CPU, handshakes and resumed
// handshakes per probe side by side.
import { processSettings } from '@/lib/settings';
import fs from 'node:fs';
import tls from 'node:tls';
import os from 'node:os';
import path from 'node:path';
import { openStore } from '@/db';
import { countNodeHistory, countNodeStates, insertRollups, readHourFromRing, storeBytes } from '@/db/stats';
import { formatHistogram, parseHistogram } from '@/db/histogram';
import { hourOf } from '@/db/rollup-key';
import { createBalancer } from '@/lib/balancers';
import { startWorker } from '@/lib/worker';
import { stopChild } from '@/lib/peers/spawn';
import { closeDefaultProbe, defaultProbeTlsCounters } from '@/lib/poller/default-probe';
import { issueCert, makeCa } from '@/tests/support/tls-certs';
import { probeNode } from '@/lib/probe';
import { UndiciProbeClient } from './support/undici-probe-client';
import { parsePollerArgs, WARMUP_INTERVALS, type PollerArgs } from './support/poller-args';
import { bareTls, loop, startCannedTls } from './tls-probe';
import { startFakeFleet } from './support/fake-fleet';
import { runWorkers, weigh } from './poller-workers';
import { growthOutsideRollups, splitGrowth } from './support/worker-figures';
import type { Settings } from '@/lib/settings';

/**
 * The targets: 333 probes/s at ≤0.5 core and <1 MB per quiet hour for 10,000 nodes; 2,000 probes/s at ≤0.45
 * core for 60,000 (one process's figure before the store was declared once: no worse than that). A fleet above 10,000 nodes is judged by the 60,000-node CPU target, and its quiet-hour
 * bytes by the 10,000-node budget per 10,000 nodes. Every run must keep up and keep p99 lag under 1 s.
 */
function targetsFor(nodes: number): { cpuCores: number; bytesPerQuietHour: number } {
  return nodes <= 10_000
    ? { cpuCores: 0.5, bytesPerQuietHour: 1_000_000 }
    : { cpuCores: 0.45, bytesPerQuietHour: Math.ceil(nodes / 10_000) * 1_000_000 };
}

/** The figures of one in-process run (what bench-results/poller.json holds). */
type PollerResults = {
  scheme: string;
  probesPerSecond: number;
  pollerCpuShareOfOneCore: number;
  pollerCpuMicrosPerProbe: number | null;
  requestsPerProbe: number | null;
  lagMs: { p50: number; p99: number; max: number };
  loadAverage1m: { atStart: number; atEnd: number };
  tls: {
    handshakesPerProbe: number;
    resumedPerProbe: number;
    resumedShare: number | null;
    fleetConnectionsPerProbe: number;
  };
} & Record<string, unknown>;

/** Intervals of warm-up, past the one after a long first round, spent waiting for its backlog to clear. */
const MAX_BACKLOG_INTERVALS = 4;

function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
}

/** SQLite in this process, then PostgreSQL with one worker, on the same fleet; the two printed side by side. */
async function runBoth(args: PollerArgs, settings: Settings): Promise<number> {
  const sqliteCode = await runArgs({ ...args, store: 'sqlite', workers: null }, settings);
  const pgCode = await runWorkers({ ...args, store: 'postgres', workers: 1 });
  type Figures = Record<string, unknown> & { loadAverage1m?: { atStart: number; atEnd: number } };
  const read = (file: string): Figures | null => {
    try {
      return (JSON.parse(fs.readFileSync(path.join('bench-results', file), 'utf8')) as { results: Figures })
        .results;
    } catch {
      return null;
    }
  };
  const lite = read('poller.json');
  const pg = read('poller-postgres-1-workers.json');
  if (!lite || !pg) {
    process.stderr.write('bench poller: a half of --store both left no figures\n');
    return 1;
  }
  const num = (v: unknown) => (typeof v === 'number' ? v : NaN);
  const liteMicros = num(lite.pollerCpuMicrosPerProbe);
  const pgProbes = num(pg.probes);
  const pgShare = num(pg.workersCpuShareOfOneCore) + num(pg.postgresCpuShareOfOneCore);
  const pgRate = num(pg.probesPerSecond);
  const pgMicros = pgProbes > 0 ? (pgShare / pgRate) * 1e6 : NaN;
  const rv = (pg.rowVersions ?? {}) as {
    bytesPerProbe?: number;
    walBytesPerProbe?: number;
    hotShare?: number;
  };
  const lag = (f: Figures) => (f.lagMs as { p99?: number } | undefined)?.p99 ?? NaN;
  const ratio = pgMicros / liteMicros;
  const rows: Array<[string, string, string, string]> = [
    ['figure', 'SQLite, one process', 'PostgreSQL, one worker', 'target'],
    ['probes/s', String(lite.probesPerSecond), String(pg.probesPerSecond), ''],
    [
      'CPU per probe (µs; PostgreSQL: worker + database)',
      String(liteMicros),
      `${pgMicros.toFixed(0)} (${((num(pg.workersCpuShareOfOneCore) / pgRate) * 1e6).toFixed(0)} + ${((num(pg.postgresCpuShareOfOneCore) / pgRate) * 1e6).toFixed(0)})`,
      `PostgreSQL ≤ 1.5× SQLite: ${ratio.toFixed(2)}× ${ratio <= 1.5 ? 'met' : 'MISSED'}`,
    ],
    [
      'row versions per quiet probe (bytes)',
      'n/a (rewritten in place)',
      String(rv.bytesPerProbe ?? '-'),
      `≤ 150 ${(rv.bytesPerProbe ?? Infinity) <= 150 ? 'met' : 'MISSED'}`,
    ],
    ['write-ahead log per probe (bytes)', 'n/a', String(rv.walBytesPerProbe ?? '-'), ''],
    ['HOT share of updates', 'n/a', String(rv.hotShare ?? '-'), ''],
    ['lag p99 (ms)', String(lag(lite)), String(lag(pg)), '< 1000'],
    [
      'load (1 min) at start → end',
      `${lite.loadAverage1m?.atStart} → ${lite.loadAverage1m?.atEnd}`,
      `${pg.loadAverage1m?.atStart} → ${pg.loadAverage1m?.atEnd}`,
      '',
    ],
  ];
  const widths = [0, 1, 2, 3].map((c) => Math.max(...rows.map((r) => r[c]?.length ?? 0)));
  process.stdout.write(
    `\n${args.nodes} nodes, SQLite then PostgreSQL\n${rows
      .map((r) =>
        r
          .map((c, i) => c.padEnd(widths[i] ?? 0))
          .join('  ')
          .trimEnd(),
      )
      .join('\n')}\n`,
  );
  fs.writeFileSync(
    'bench-results/poller-both.json',
    `${JSON.stringify({ sqlite: lite, postgres: pg, cpuRatio: Number(ratio.toFixed(2)) }, null, 2)}\n`,
  );
  return sqliteCode === 0 && pgCode === 0 && ratio <= 1.5 && (rv.bytesPerProbe ?? Infinity) <= 150 ? 0 : 1;
}

export async function run(argv: string[], settings: Settings): Promise<number> {
  let args: PollerArgs;
  try {
    args = parsePollerArgs(argv);
  } catch (err) {
    process.stderr.write(`bench poller: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
  if (args.store === 'both') return runBoth(args, settings);
  if (args.workers !== null) return runWorkers(args);
  if (args.tls) return runTls(args, settings);
  return runArgs(args, settings);
}

async function runArgs(args: PollerArgs, settings: Settings): Promise<number> {
  return (await runOnce(args, settings, null)).code;
}

interface TlsSetup {
  cert: { cert: string; key: string };
  caPem: string;
  caFile: string;
}

const perRequest = (r: PollerResults): number =>
  (r.pollerCpuMicrosPerProbe ?? NaN) / (r.requestsPerProbe ?? NaN);

/**
 * The floor for a probe on a new connection, in the same run: a bare node:tls loop (one SecureContext, the
 * last session offered) of a resumed TLS 1.3 handshake and one exchange of the probe's bytes, against the
 * canned server in its own process (answering with `connection: close`), 10 s at concurrency 8; this
 * process's CPU per exchange (µs).
 */
async function bareFloor(cert: { cert: string; key: string }, caPem: string): Promise<number> {
  const canned = await startCannedTls(cert, 5_000);
  try {
    const variant = bareTls(canned.ports[2] ?? 0, tls.createSecureContext({ ca: caPem }), true);
    await loop(8, 1_000, variant);
    const t = await loop(8, 10_000, variant);
    return (t.cpuMs * 1000) / Math.max(1, t.count);
  } finally {
    await stopChild(canned.child);
  }
}

/** Plain HTTP, then HTTPS, on fleets with the same keep-alive timeout; the figures side by side. */
async function runTls(args: PollerArgs, settings: Settings): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-bench-tls-'));
  try {
    const ca = await makeCa('Erawatch Bench CA');
    const cert = await issueCert(ca, ['127.0.0.1']);
    const caFile = path.join(dir, 'fleet-ca.pem');
    fs.writeFileSync(caFile, ca.cert);
    const plain = await runOnce(args, settings, null);
    const secure = await runOnce(args, settings, { cert, caPem: ca.cert, caFile });
    const floor = await bareFloor(cert, ca.cert);
    const p = plain.results;
    const s = secure.results;
    const keepAlive = args.keepAliveMs === null ? 'none' : `${args.keepAliveMs / 1000}s`;
    const ratio = (s.pollerCpuMicrosPerProbe ?? NaN) / (p.pollerCpuMicrosPerProbe ?? NaN);
    const share = s.tls.resumedShare;
    const rows: Array<[string, string, string]> = [
      ['figure', 'HTTP', `HTTPS, server keep-alive ${keepAlive}`],
      ['probes/s', String(p.probesPerSecond), String(s.probesPerSecond)],
      [
        'poller CPU (share of one core)',
        String(p.pollerCpuShareOfOneCore),
        String(s.pollerCpuShareOfOneCore),
      ],
      ['poller CPU per probe (µs)', String(p.pollerCpuMicrosPerProbe), String(s.pollerCpuMicrosPerProbe)],
      ['handshakes per probe', '0', s.tls.handshakesPerProbe.toFixed(3)],
      ['resumed handshakes per probe', '0', s.tls.resumedPerProbe.toFixed(3)],
      ['resumed share of handshakes', '-', share === null ? '-' : `${(share * 100).toFixed(1)} %`],
      ['fleet TLS connections per probe', '0', s.tls.fleetConnectionsPerProbe.toFixed(3)],
      ['requests per probe', String(p.requestsPerProbe), String(s.requestsPerProbe)],
      ['poller CPU per request (µs)', perRequest(p).toFixed(0), perRequest(s).toFixed(0)],
      [
        'bare node:tls resumed handshake + exchange (µs)',
        '',
        `${floor.toFixed(0)} (HTTPS − HTTP per probe: ${((s.pollerCpuMicrosPerProbe ?? NaN) - (p.pollerCpuMicrosPerProbe ?? NaN)).toFixed(0)}, ${(s.pollerCpuMicrosPerProbe ?? NaN) / floor < 100 ? `whole probe ${((s.pollerCpuMicrosPerProbe ?? NaN) / floor).toFixed(2)}× the floor` : ''})`,
      ],
      ['lag p99 (ms)', String(p.lagMs.p99), String(s.lagMs.p99)],
      [
        'load (1 min) at start → end',
        `${p.loadAverage1m.atStart} → ${p.loadAverage1m.atEnd}`,
        `${s.loadAverage1m.atStart} → ${s.loadAverage1m.atEnd}`,
      ],
    ];
    const widths = [0, 1, 2].map((c) => Math.max(...rows.map((r) => r[c]?.length ?? 0)));
    process.stdout.write(
      `\n${args.nodes} nodes every ${args.intervalMs / 1000}s, HTTP then HTTPS, server keep-alive ${keepAlive}\n${rows
        .map((r) =>
          r
            .map((c, i) => c.padEnd(widths[i] ?? 0))
            .join('  ')
            .trimEnd(),
        )
        .join('\n')}\nHTTPS CPU per probe ${ratio.toFixed(2)}× HTTP\n`,
    );
    fs.mkdirSync('bench-results', { recursive: true });
    fs.writeFileSync(
      `bench-results/poller-tls-${keepAlive}.json`,
      `${JSON.stringify({ keepAlive, http: p, https: s, cpuRatio: Number(ratio.toFixed(3)), bareResumedFloorMicros: Math.round(floor) }, null, 2)}\n`,
    );
    return plain.code === 0 && secure.code === 0 ? 0 : 1;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function runOnce(
  args: PollerArgs,
  settings: Settings,
  tls: TlsSetup | null,
): Promise<{ code: number; results: PollerResults }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-bench-poller-'));
  const store = await openStore(path.join(dir, 'bench.db'), { settings: processSettings() });
  // With --tls both runs give every node a port of its own: a node's connection, and its TLS session, are
  // then its own, as on a real fleet (on one port, a whole balancer would share a few warm connections).
  const fleet = await startFakeFleet({
    keepAliveMs: args.keepAliveMs,
    ...(tls ? { tls: tls.cert } : {}),
    ...(args.tls ? { ports: args.nodes } : {}),
  });
  const scheme = tls ? 'https' : 'http';
  const portOf = (n: number): number =>
    fleet.nodePorts.length > 0 ? (fleet.nodePorts[n % fleet.nodePorts.length] ?? fleet.port) : fleet.port;
  const kinds = ['m', 'd', 'l'] as const;
  try {
    const timeoutMs = Math.min(5_000, Math.floor((args.intervalMs - 100) / 3));
    const balancers = Math.ceil(args.nodes / args.perBalancer);
    for (let b = 0; b < balancers; b++) {
      // Half modern-only, three in ten dual-era, two in ten legacy (allow-listed): each kind its own balancers.
      const kind = kinds[b % 10 < 5 ? 0 : b % 10 < 8 ? 1 : 2] ?? 'm';
      const count = Math.min(args.perBalancer, args.nodes - b * args.perBalancer);
      const nodeUrls = Array.from(
        { length: count },
        (_, i) =>
          `${scheme}://127.0.0.1:${portOf(b * args.perBalancer + i)}/${kind}/${b * args.perBalancer + i}`,
      );
      await createBalancer(store, {
        name: `bench-${b}`,
        publicUrl: `${scheme}://127.0.0.1:${fleet.port}/${kind}/public-${b}`,
        tlsCa: tls ? `file:${tls.caFile}` : null,
        nodeUrls,
        samplesPerCycle: 0,
        allowLegacy: kind === 'l',
        intervalMs: args.intervalMs,
        timeoutMs,
        legacyProbeTimeoutMs: timeoutMs,
      });
    }
    process.stdout.write(
      `${args.nodes} nodes in ${balancers} balancers (fake fleet pid ${fleet.pid}, port ${fleet.port}), interval ${args.intervalMs / 1000}s, ` +
        `duration ${args.durationMs / 1000}s (the first ${WARMUP_INTERVALS} intervals are warm-up), concurrency ${args.concurrency}\n`,
    );

    let measuring = false;
    const lags: number[] = [];
    let probesMeasured = 0;
    let probesStarted = 0;
    // `--http-client undici`: the same probe over undici's Pool per origin, the reference it is measured by.
    const egress = { allowLoopback: true, allowPrivate: true };
    const undici =
      args.httpClient === 'undici'
        ? new UndiciProbeClient(egress, {
            keepAliveTimeoutMs: 120_000,
            ...(tls ? { ca: tls.caPem } : {}),
          })
        : null;
    const tlsCounters = () => (undici ? { ...undici.tlsCounters(), failed: 0 } : defaultProbeTlsCounters());
    process.stdout.write(
      `  http client: ${args.httpClient}; ${scheme}; server keep-alive ${args.keepAliveMs === null ? 'none' : `${args.keepAliveMs / 1000}s`}\n`,
    );
    // The poll role as a worker runs it (its probe metrics observed and flushed to the store too), so the
    // figures compare with the worker processes of the PostgreSQL runs.
    const worker = await startWorker({
      store,
      roles: ['poll'],
      settings: { ...settings, allowLoopback: true, pollerConcurrency: args.concurrency },
      poll: undici
        ? { probe: (target, options) => probeNode(target, options, { dispatcher: undici, egress }) }
        : {},
      log: (l) => process.stdout.write(`  ${l}\n`),
    });
    const handle = worker.poller;
    if (!handle) throw new Error('the poll role did not start');
    handle.events.on('probeStart', (lag) => {
      probesStarted += 1;
      if (!measuring) return;
      lags.push(lag);
      probesMeasured += 1;
    });

    const warmStart = performance.now();
    await new Promise((r) => setTimeout(r, WARMUP_INTERVALS * args.intervalMs + 2_000));
    // A fleet too large to be probed once within the first interval is still creating nodes and working off
    // its backlog after it: wait for every node's first state, then one more interval for the schedule to
    // settle, so the window measures the sustained rate rather than the first round's catch-up.
    let backlogIntervals = 0;
    let backlogLeft = false;
    let firstRoundMs: number | null = (await countNodeStates(store)) >= args.nodes ? null : 0;
    if (firstRoundMs !== null) {
      while ((await countNodeStates(store)) < args.nodes) await new Promise((r) => setTimeout(r, 500));
      firstRoundMs = performance.now() - warmStart;
      process.stdout.write(
        `  the first round took ${(firstRoundMs / 1000).toFixed(1)} s (over one interval): one more interval of warm-up\n`,
      );
      // The cycles it delayed then run late, back to back: an interval that starts more probes than the fleet
      // has nodes is still working off that backlog, and would be measured as lag. Wait it out (bounded).
      for (let extra = 0; ; extra++) {
        const before = probesStarted;
        await new Promise((r) => setTimeout(r, args.intervalMs));
        const started = probesStarted - before;
        if (started <= args.nodes * 1.02) break;
        if (extra >= MAX_BACKLOG_INTERVALS) {
          backlogLeft = true;
          process.stdout.write(
            `  still working off the backlog after ${extra + 1} intervals: measuring anyway\n`,
          );
          break;
        }
        backlogIntervals += 1;
        process.stdout.write(
          `  ${started} probes in the last interval for ${args.nodes} nodes: still working off the backlog, one more interval\n`,
        );
      }
    }
    const warmupMs = performance.now() - warmStart;
    const historyBefore = await countNodeHistory(store);
    const before = await weigh(store, null);
    const fleetBefore = await fleet.stats();
    const tlsBefore = tlsCounters();
    const cpuBefore = process.cpuUsage();
    const loadBefore = Number(os.loadavg()[0]?.toFixed(2));
    const t0 = performance.now();
    measuring = true;
    // Whole intervals only: every node is due exactly once per interval, so a window that ends mid-interval
    // would under- or over-count the rate by up to one interval's share.
    const measureMs =
      Math.max(
        1,
        Math.floor((args.durationMs - WARMUP_INTERVALS * args.intervalMs - 2_000) / args.intervalMs),
      ) * args.intervalMs;
    const ticker = setInterval(() => {
      const s = handle.status();
      process.stdout.write(
        `  ${Math.round((performance.now() - t0) / 1000)}s: ${probesMeasured} probes, ${s.cyclesCompleted} cycles, ${s.cyclesFailed} failed\n`,
      );
    }, 30_000);
    await new Promise((r) => setTimeout(r, measureMs));
    measuring = false;
    clearInterval(ticker);
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpuBefore);
    const fleetAfter = await fleet.stats();
    const tlsAfter = tlsCounters();
    await worker.stop();
    await closeDefaultProbe();
    await undici?.close();

    const after = await weigh(store, null);
    const bytesAfter = after.total;
    // Tables that gained rows accumulate; the ones rewritten in place (states, snapshots) only swing by pages.
    const { accumulating, rewritten } = splitGrowth(before, after);
    const tableGrowth = { ...accumulating, ...rewritten };
    const historyAfter = await countNodeHistory(store);
    // A new hour adds one rollup row per node (folded from its minute slots when the hour is left). Weigh a
    // full quiet hour: each node's current hour so far, scaled to one hour of probes at this interval, written
    // as the next hour's row.
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
    const bytesWithNextHour = (await storeBytes(store)) ?? 0;

    const rssEnd = process.memoryUsage().rss;
    const sorted = Float64Array.from(lags).sort();
    const probesPerSec = (probesMeasured / wallMs) * 1000;
    const cpuShare = (cpu.user + cpu.system) / 1000 / wallMs;
    const fleetShare = (fleetAfter.cpuMicros - fleetBefore.cpuMicros) / 1000 / wallMs;
    // Rollup rows grow during their hour and are weighed whole below; everything else should stay flat.
    const otherGrowth = growthOutsideRollups(accumulating);
    const rewrittenGrowth = growthOutsideRollups(rewritten);
    const steadyPerHour = (otherGrowth / wallMs) * 3_600_000;
    const rollupHour = bytesWithNextHour - bytesAfter;
    const perHour = Math.max(0, steadyPerHour) + rollupHour;
    const status = handle.status();
    const fleetRequests = fleetAfter.requests - fleetBefore.requests;
    const handshakes = tlsAfter.handshakes - tlsBefore.handshakes;
    const resumed = tlsAfter.resumed - tlsBefore.resumed;
    const perProbe = (n: number) => (probesMeasured > 0 ? Number((n / probesMeasured).toFixed(4)) : 0);
    const results = {
      scheme,
      serverKeepAliveMs: args.keepAliveMs,
      httpClient: args.httpClient,
      // TLS connections the prober opened in the window, per probe, and how many resumed a session.
      tls: {
        handshakes,
        resumed,
        certificateFailures: tlsAfter.failed - tlsBefore.failed,
        handshakesPerProbe: perProbe(handshakes),
        resumedPerProbe: perProbe(resumed),
        resumedShare: handshakes > 0 ? Number((resumed / handshakes).toFixed(4)) : null,
        fleetConnectionsPerProbe: perProbe(fleetAfter.tlsConnections - fleetBefore.tlsConnections),
        fleetResumedPerProbe: perProbe(fleetAfter.tlsResumed - fleetBefore.tlsResumed),
      },
      // Other work on the machine inflates lag; the load average says how busy it was.
      loadAverage1m: { atStart: loadBefore, atEnd: Number(os.loadavg()[0]?.toFixed(2)) },
      cores: os.cpus().length,
      niceness: os.getPriority(),
      nodes: args.nodes,
      balancers,
      intervalMs: args.intervalMs,
      warmupSeconds: Math.round(warmupMs / 1000),
      // Set when probing every node once took longer than the first interval (a freshly registered fleet).
      firstRoundSeconds: firstRoundMs === null ? null : Math.round(firstRoundMs / 1000),
      backlogIntervalsAfterFirstRound: backlogIntervals,
      backlogLeftWhenMeasured: backlogLeft,
      measuredSeconds: Math.round(wallMs / 1000),
      probes: probesMeasured,
      probesPerSecond: Number(probesPerSec.toFixed(1)),
      pollerCpuShareOfOneCore: Number(cpuShare.toFixed(3)),
      pollerCpuSplit: {
        user: Number((cpu.user / 1000 / wallMs).toFixed(3)),
        system: Number((cpu.system / 1000 / wallMs).toFixed(3)),
      },
      // CPU per probe moves less with other work on the machine than the share does.
      pollerCpuMicrosPerProbe:
        probesMeasured > 0 ? Math.round((cpu.user + cpu.system) / probesMeasured) : null,
      fakeFleetCpuShareOfOneCore: Number(fleetShare.toFixed(3)),
      fleetRequests,
      requestsPerProbe: probesMeasured > 0 ? Number((fleetRequests / probesMeasured).toFixed(3)) : null,
      rssBytes: { atEnd: rssEnd, peak: process.resourceUsage().maxRSS * 1024 },
      lagMs: { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), max: quantile(sorted, 1) },
      cyclesFailed: status.cyclesFailed,
      historyRowsAddedWhileQuiet: historyAfter - historyBefore,
      dbBytes: {
        atStart: before.total,
        atEnd: bytesAfter,
        steadyGrowthPerHour: Math.round(steadyPerHour),
        fullQuietHourOfRollups: rollupHour,
        rollupRowsPerHour: current.length,
        perQuietHour: Math.round(perHour),
        rewrittenInPlaceInWindow: rewrittenGrowth,
        tableGrowth,
      },
    };
    const target = targetsFor(args.nodes);
    const pass = {
      // Each balancer's jitter moves a few cycles across the window's edges (about 0.5 %); keeping up is
      // what the lag figure shows, the rate shows no cycles are lost.
      probesPerSecond: probesPerSec >= (args.nodes / args.intervalMs) * 1000 * 0.99,
      cpu: cpuShare <= target.cpuCores,
      lag: quantile(sorted, 0.99) < 1000,
      bytes: perHour < target.bytesPerQuietHour,
    };
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(
      `targets: ${((args.nodes / args.intervalMs) * 1000).toFixed(1)} probes/s offered, ${probesPerSec.toFixed(1)} sustained ${pass.probesPerSecond ? 'met' : 'MISSED'}; ` +
        `${cpuShare.toFixed(3)} core ≤${target.cpuCores} ${pass.cpu ? 'met' : 'MISSED'}; ` +
        `p50 lag ${results.lagMs.p50} ms, p99 ${results.lagMs.p99} ms <1 s ${pass.lag ? 'met' : 'MISSED'}; ` +
        `${(perHour / 1e6).toFixed(2)} MB/quiet hour <${target.bytesPerQuietHour / 1e6} MB ${pass.bytes ? 'met' : 'MISSED'}; ` +
        `${results.requestsPerProbe ?? '-'} requests/probe, RSS ${(rssEnd / 2 ** 20).toFixed(0)} MiB\n`,
    );
    fs.mkdirSync('bench-results', { recursive: true });
    fs.writeFileSync('bench-results/poller.json', `${JSON.stringify({ results, target, pass }, null, 2)}\n`);
    return { code: Object.values(pass).every(Boolean) ? 0 : 1, results };
  } finally {
    fleet.stop();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
