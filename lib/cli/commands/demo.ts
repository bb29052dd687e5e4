// `erawatch demo`: builds the dashboard if needed, starts a fleet of real MCP servers on loopback, registers
// it, runs the server the build produced with the poller, and plays a scripted rollout. Ctrl-C stops
// everything it started. From the installed package it builds nothing: it runs the package's own server
// (`erawatch serve`) and the MCP servers bundled with it.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openStore, type Store } from '@/db';
import { listBalancers } from '@/db/queries/balancers';
import type { Settings } from '@/lib/settings';
import type { CreateBalancerInput } from '@/lib/schemas/balancer';
import { DEMO_BALANCERS, FIRST_CYCLE_TIMINGS, startDemoFleet, type DemoFleet } from '@/lib/demo/fleet';
import {
  buildNextApp,
  checkBuild,
  choosePort,
  prepareStandalone,
  startNextServer,
  type NextServer,
  type RunningChild,
} from '@/lib/demo/next-app';
import { packageInfo, SERVER_DIR } from '../package-root';
import { openDemoRolloutWindow, registerDemoBalancers, resetDemoBalancers } from '@/lib/demo/register';
import {
  describeRelease,
  runRolloutScript,
  SEARCH_INITIAL,
  SEARCH_ROLLOUT,
  waitFor,
} from '@/lib/demo/rollout-script';
import { watchStore } from '@/lib/demo/watch-store';

/** A checkout builds the app from its sources; the installed package holds only the built server. */
function layout(): { root: string; fromPackage: boolean } {
  const root = packageInfo().root;
  const fromPackage =
    !fs.existsSync(path.join(root, 'app')) && fs.existsSync(path.join(root, SERVER_DIR, 'server.js'));
  return { root, fromPackage };
}
const HOST = '127.0.0.1';
const DEFAULT_DB = './data/demo.db';
const DEFAULT_PORT = 3000;
const DEFAULT_BASE_PORT = 47310;
const STEP_SECONDS = { normal: 20, fast: 8 };

const USAGE = `usage: erawatch demo [options]   (npm run demo -- [options] in a checkout)

Starts a demo fleet of real MCP servers on ${HOST}, registers three balancers, serves the dashboard with
the poller, and plays a scripted rollout. Ctrl-C stops it all. In a checkout it first builds the dashboard
when its sources changed (without type checking: that is \`npm run typecheck\`); the installed package runs
the server it ships.

options:
  --port N          dashboard port (default ${DEFAULT_PORT}, or the next free one when it is taken)
  --no-build        do not build; use the existing .next build as it is (a checkout)
  --fast            shorter rollout steps (${STEP_SECONDS.fast} s instead of ${STEP_SECONDS.normal} s)
  --step-seconds N  seconds between rollout steps (2 to 600)
  --no-rollout      keep the search balancer mid-rollout (no scripted steps)
  --reset           forget the demo balancers' history from earlier runs before starting
  --base-port N     first port for the fleet's nodes and proxies (default ${DEFAULT_BASE_PORT}; 0 = any free)
  -h, --help        this help

environment:
  ERAWATCH_DB       SQLite file (default ${DEFAULT_DB})

exit codes:
  0    stopped with Ctrl-C (SIGINT) or SIGTERM after everything it started has exited
  1    a --port that is taken, or the build, the fleet or the dashboard failed to start (the output says which)
  2    bad usage (unknown option, bad value); nothing was started
  130  a second Ctrl-C: children were killed without waiting
`;

interface DemoArgs {
  port: number;
  portGiven: boolean;
  build: boolean;
  stepSeconds: number;
  rollout: boolean;
  reset: boolean;
  basePort: number;
}

function intArg(name: string, raw: string, min: number, max: number): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max)
    throw new Error(`--${name} must be an integer from ${min} to ${max}`);
  return n;
}

export function parseDemoArgs(argv: string[]): DemoArgs | 'help' {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      port: { type: 'string' },
      'no-build': { type: 'boolean', default: false },
      fast: { type: 'boolean', default: false },
      'step-seconds': { type: 'string' },
      'no-rollout': { type: 'boolean', default: false },
      reset: { type: 'boolean', default: false },
      'base-port': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return 'help';
  if (values.fast && values['step-seconds'] !== undefined)
    throw new Error('use either --fast or --step-seconds');
  const basePort =
    values['base-port'] === undefined
      ? DEFAULT_BASE_PORT
      : intArg('base-port', values['base-port'], 0, 65_000);
  if (basePort !== 0 && basePort < 1024) throw new Error('--base-port must be 0 or at least 1024');
  return {
    port: values.port === undefined ? DEFAULT_PORT : intArg('port', values.port, 1, 65_535),
    portGiven: values.port !== undefined,
    build: !values['no-build'],
    stepSeconds:
      values['step-seconds'] !== undefined
        ? intArg('step-seconds', values['step-seconds'], 2, 600)
        : values.fast
          ? STEP_SECONDS.fast
          : STEP_SECONDS.normal,
    rollout: !values['no-rollout'],
    reset: values.reset,
    basePort,
  };
}

const say = (line: string) => process.stdout.write(`${line}\n`);

/** The arguments, or the exit code when there is nothing to run (help, or bad usage after saying why). */
function argsOrExit(argv: string[]): DemoArgs | number {
  let args: DemoArgs | 'help';
  try {
    args = parseDemoArgs(argv);
  } catch (err) {
    process.stderr.write(`erawatch demo: ${err instanceof Error ? err.message : String(err)}\n\n${USAGE}`);
    return 2;
  }
  if (args === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  return args;
}

/** Says so once every demo balancer has its first cycle and runs at the demo's cadence. */
function announceCadence(store: Store, fleet: DemoFleet, signal: AbortSignal): void {
  void settleCadence(store, fleet.balancers, signal).then(
    (settled) => {
      if (settled) say('[demo] every balancer has its first cycle: probing every 5 s from now on');
    },
    () => {
      // The demo stopped while it was reading: nothing to settle.
    },
  );
}

/** Plays the scripted rollout (unless --no-rollout), then waits until the demo is stopped. */
async function playRollout(
  store: Store,
  fleet: DemoFleet,
  registered: Awaited<ReturnType<typeof registerDemoBalancers>>,
  args: DemoArgs,
  signal: AbortSignal,
): Promise<void> {
  if (args.rollout) {
    // A declared target: the dashboard shows the rollout as progress toward it (and holds its alerts).
    const search = registered.find((r) => r.balancer.name === DEMO_BALANCERS.rollout);
    if (search) {
      const steps = SEARCH_ROLLOUT.length;
      await openDemoRolloutWindow(
        store,
        search.balancer.id,
        (steps + 4) * args.stepSeconds * 1_000 + 10 * 60_000,
      );
      say(`Opened a rollout window on ${search.balancer.name}: target modern-only 2026-07-28`);
    }
    const report = await runRolloutScript(
      {
        replaceNode: (node, release) => fleet.replaceNode(node, release),
        wait: waitFor,
        log: say,
        now: Date.now,
      },
      { stepMs: args.stepSeconds * 1_000, signal },
    );
    if (report.outcome !== 'aborted') say('The demo keeps running; press Ctrl-C to stop it.');
  }
  await abortPromise(signal);
}

export async function run(argv: string[], settings: Settings): Promise<number> {
  const args = argsOrExit(argv);
  if (typeof args === 'number') return args;

  const stop = new AbortController();
  let children: RunningChild[] = [];
  const offSignals = stopOnSignals(stop, () => children);

  let store: Store | undefined;
  let fleet: DemoFleet | undefined;
  let server: NextServer | undefined;
  let ticker: NodeJS.Timeout | undefined;
  try {
    // A port asked for by name that is taken fails now, not after a two-minute build.
    if (args.portGiven) await choosePort(HOST, args.port, true);
    // So does a database path we cannot write (StoreOpenError: one line naming the path, exit 1).
    const dbFile = path.resolve(settings.dbNamed ?? DEFAULT_DB);
    store = await openStore(dbFile, { settings });

    // (a) the production build (a checkout's; the package ships its server built)
    const { root, fromPackage } = layout();
    const built = await ensureBuild(root, fromPackage, args, stop.signal, (c) => {
      children = c;
    });
    if (built !== null) return built;
    if (stop.signal.aborted) return 0;

    // (b) the database, opened above
    say(`Database: ${dbFile}`);

    // (c) the fleet
    say('Starting the demo fleet (real MCP SDK servers on loopback)...');
    fleet = await startDemoFleet({ host: HOST, basePort: args.basePort, intervalMs: 5_000 });
    if (stop.signal.aborted) return 0;

    // (d) registrations
    const registered = await registerFleet(store, fleet, args.reset);
    const names = new Map(registered.map((r) => [r.balancer.id, r.balancer.name]));
    printFleet(fleet, registered);

    // (e) the dashboard with the poller inside
    const port = await choosePort(HOST, args.port, args.portGiven);
    say(`Starting the dashboard on ${HOST}:${port} (poller on)...`);
    server = await startDashboard({ root, fromPackage }, dbFile, port);
    children = [server];
    if (stop.signal.aborted) return 0;

    // (f) where to look
    printWatchGuide(server.url, args);
    announceCadence(store, fleet, stop.signal);

    // (g) console echo of what the poller records, and the scripted rollout
    const echo = echoer(await watchStore(store, names));
    ticker = setInterval(() => void echo(), 2_000);
    const unexpectedExit: { code: number | null } = { code: null };
    void server.exited.then((code) => {
      if (stop.signal.aborted) return;
      unexpectedExit.code = code;
      process.stderr.write(`erawatch demo: the dashboard server exited (code ${code}); stopping\n`);
      stop.abort();
    });

    await playRollout(store, fleet, registered, args, stop.signal);
    await echo();
    return unexpectedExit.code === null ? 0 : 1;
  } catch (err) {
    process.stderr.write(`erawatch demo: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    if (ticker) clearInterval(ticker);
    stop.abort();
    // Dashboard first (its poller releases the lease), then the fleet it was probing.
    await server?.stop();
    await fleet?.stop();
    await store?.close();
    offSignals();
    if (server || fleet) say('Stopped the dashboard and every demo server.');
  }
}

/**
 * Once every demo balancer has stored its first cycle, gives them the demo's own cadence and deadlines.
 * Resolves with false when the demo stops first.
 */
async function settleCadence(
  store: Store,
  balancers: readonly CreateBalancerInput[],
  signal: AbortSignal,
): Promise<boolean> {
  const names = new Set(balancers.map((b) => b.name));
  while (!signal.aborted) {
    const answered = (await listBalancers(store, { limit: 500 })).items.filter(
      (b) => names.has(b.name) && Boolean(b.summary?.analyzedAt),
    );
    if (answered.length === names.size) {
      await registerDemoBalancers(store, balancers);
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return false;
}

function abortPromise(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function printFleet(fleet: DemoFleet, registered: Awaited<ReturnType<typeof registerDemoBalancers>>): void {
  for (const { balancer, action } of registered) {
    const proxy = fleet.proxies().find((p) => p.balancer === balancer.name);
    say(`  ${balancer.name} (${action}): public URL ${proxy?.url ?? balancer.publicUrl}`);
    for (const node of fleet.nodes().filter((n) => n.balancer === balancer.name)) {
      say(
        `    ${node.id.padEnd(10)} ${node.url.padEnd(30)} ${node.release.kind} ${node.serverName} ${node.release.version} (pid ${node.pid})`,
      );
    }
  }
}

function printWatchGuide(url: string, args: DemoArgs): void {
  const initial = Object.entries(SEARCH_INITIAL)
    .map(([node, release]) => `${node} ${describeRelease(release)}`)
    .join(', ');
  say(`
Erawatch dashboard: ${url}

What to watch (the poller probes every node every 5 s):
  ${DEMO_BALANCERS.modern}   three modern-only v2 nodes: uniform, gate for 2026-07-28 open.
  ${DEMO_BALANCERS.legacy}   three legacy v1 nodes (allowLegacy): uniform on the handshake era.
  ${DEMO_BALANCERS.rollout}    mid-rollout behind a round-robin proxy: ${initial}.
${
  args.rollout
    ? `                 Every ${args.stepSeconds} s one node is redeployed (one is rolled back): the flag goes
                 era-split -> drift -> uniform, and the gate for 2026-07-28 opens at the end.`
    : '                 --no-rollout: it stays era-split.'
}
Lines marked [event] and [state] below are what the poller stored in the database. Ctrl-C stops everything.
`);
}

/**
 * Builds the dashboard when its build is missing or stale (unless --no-build): null to go on, else the exit
 * code (0 when stopped during the build).
 */
async function ensureBuild(
  root: string,
  fromPackage: boolean,
  args: DemoArgs,
  signal: AbortSignal,
  setChildren: (children: RunningChild[]) => void,
): Promise<number | null> {
  const build = fromPackage ? { current: true, reason: 'the package ships it built' } : checkBuild(root);
  if (!args.build) {
    if (build.reason === 'no production build yet') {
      process.stderr.write('erawatch demo: --no-build, but there is no build yet (run without --no-build)\n');
      return 1;
    }
    if (!build.current) say(`note: ${build.reason}; using the existing build anyway (--no-build)`);
  } else if (!build.current) {
    say(`Building the dashboard (${build.reason}); this takes a minute or two...`);
    const builder = buildNextApp(root, { typecheck: false });
    setChildren([builder]);
    const code = await Promise.race([builder.exited, abortPromise(signal).then(() => null)]);
    setChildren([]);
    if (code === null) {
      await builder.stop();
      return 0;
    }
    if (code !== 0) {
      process.stderr.write(`erawatch demo: next build failed (exit ${code})\n`);
      return 1;
    }
  }
  return signal.aborted ? 0 : null;
}

/** Registers the fleet's balancers, first removing the demo's own (and their history) with --reset. */
async function registerFleet(store: Store, fleet: DemoFleet, reset: boolean) {
  if (reset) {
    const removed = await resetDemoBalancers(
      store,
      fleet.balancers.map((b) => b.name),
    );
    say(
      removed.length > 0
        ? `Reset: removed ${removed.join(', ')} and their history`
        : 'Reset: nothing to remove',
    );
  }
  // The first cycle gets a deadline that fits a machine still busy starting everything (a false
  // "timeout" outage would be the first thing on the Events page); the demo's cadence follows it.
  return registerDemoBalancers(
    store,
    fleet.balancers.map((b) => ({ ...b, ...FIRST_CYCLE_TIMINGS })),
  );
}

/** Prints what the poller recorded since the last look; a failed read is a line, not a stop. */
function echoer(watcher: Awaited<ReturnType<typeof watchStore>>): () => Promise<void> {
  return async () => {
    try {
      for (const line of await watcher.poll()) say(line);
    } catch (err) {
      say(`[watch] could not read the database: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
}

/**
 * The first SIGINT or SIGTERM stops the demo gracefully; a second kills the children at once and exits.
 * Returns what removes the handlers.
 */
function stopOnSignals(stop: AbortController, children: () => RunningChild[]): () => void {
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals++;
    if (signals === 1) {
      say(`\n${signal}: stopping the demo (again to force)...`);
      stop.abort();
      return;
    }
    // A second signal: do not wait for graceful exits.
    for (const child of children()) killQuietly(child.pid);
    process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}

/**
 * The built dashboard on loopback with the poller inside, over the demo's database: the package's own server,
 * or a checkout's standalone build.
 */
function startDashboard(
  { root, fromPackage }: { root: string; fromPackage: boolean },
  dbFile: string,
  port: number,
): Promise<NextServer> {
  return startNextServer({
    root,
    host: HOST,
    port,
    server: fromPackage
      ? {
          args: [path.join(root, 'bin', 'erawatch.mjs'), 'serve', '--host', HOST, '--port', String(port)],
          cwd: path.dirname(dbFile),
        }
      : { args: [prepareStandalone(root)], cwd: path.join(root, '.next', 'standalone') },
    env: {
      ERAWATCH_DB: dbFile,
      ERAWATCH_ALLOW_LOOPBACK: '1',
      ERAWATCH_BIND: HOST,
      ERAWATCH_POLLER: 'on',
    },
    onOutput: (line) => say(`[next] ${line}`),
  });
}
