// `erawatch demo`: builds the dashboard if needed, starts a fleet of real MCP servers on loopback, registers
// it, runs `next start` with the poller, and plays a scripted rollout. Ctrl-C stops everything it started.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openStore, type Store } from '@/db';
import type { Settings } from '@/lib/settings';
import { DEMO_BALANCERS, startDemoFleet, type DemoFleet } from '@/lib/demo/fleet';
import {
  buildNextApp,
  checkBuild,
  choosePort,
  startNextServer,
  type NextServer,
  type RunningChild,
} from '@/lib/demo/next-app';
import { openDemoRolloutWindow, registerDemoBalancers, resetDemoBalancers } from '@/lib/demo/register';
import {
  describeRelease,
  runRolloutScript,
  SEARCH_INITIAL,
  SEARCH_ROLLOUT,
  waitFor,
} from '@/lib/demo/rollout-script';
import { watchStore } from '@/lib/demo/watch-store';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const HOST = '127.0.0.1';
const DEFAULT_DB = './data/demo.db';
const DEFAULT_PORT = 3000;
const DEFAULT_BASE_PORT = 47310;
const STEP_SECONDS = { normal: 20, fast: 8 };

const USAGE = `usage: erawatch demo [options]   (npm run demo -- [options])

Builds the dashboard when needed, starts a demo fleet of real MCP servers on ${HOST}, registers three
balancers, serves the dashboard with the poller, and plays a scripted rollout. Ctrl-C stops it all.

options:
  --port N          dashboard port (default ${DEFAULT_PORT}, or the next free one when it is taken)
  --no-build        do not build; use the existing .next build as it is
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

export async function run(argv: string[], settings: Settings): Promise<number> {
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

  const stop = new AbortController();
  let signals = 0;
  let children: RunningChild[] = [];
  const onSignal = (signal: NodeJS.Signals) => {
    signals++;
    if (signals === 1) {
      say(`\n${signal}: stopping the demo (again to force)...`);
      stop.abort();
      return;
    }
    // A second signal: do not wait for graceful exits.
    for (const child of children) killQuietly(child.pid);
    process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

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

    // (a) the production build
    const build = checkBuild(ROOT);
    if (!args.build) {
      if (build.reason === 'no production build yet') {
        process.stderr.write(
          'erawatch demo: --no-build, but there is no build yet (run without --no-build)\n',
        );
        return 1;
      }
      if (!build.current) say(`note: ${build.reason}; using the existing build anyway (--no-build)`);
    } else if (!build.current) {
      say(`Building the dashboard (${build.reason}); this takes a minute or two...`);
      const builder = buildNextApp(ROOT);
      children = [builder];
      const code = await Promise.race([builder.exited, abortPromise(stop.signal).then(() => null)]);
      children = [];
      if (code === null) {
        await builder.stop();
        return 0;
      }
      if (code !== 0) {
        process.stderr.write(`erawatch demo: next build failed (exit ${code})\n`);
        return 1;
      }
    }
    if (stop.signal.aborted) return 0;

    // (b) the database, opened above
    say(`Database: ${dbFile}`);

    // (c) the fleet
    say('Starting the demo fleet (real MCP SDK servers on loopback)...');
    fleet = await startDemoFleet({ host: HOST, basePort: args.basePort, intervalMs: 5_000 });
    if (stop.signal.aborted) return 0;

    // (d) registrations
    if (args.reset) {
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
    const registered = await registerDemoBalancers(store, fleet.balancers);
    const names = new Map(registered.map((r) => [r.balancer.id, r.balancer.name]));
    printFleet(fleet, registered);

    // (e) the dashboard with the poller inside
    const port = await choosePort(HOST, args.port, args.portGiven);
    say(`Starting the dashboard on ${HOST}:${port} (poller on)...`);
    server = await startNextServer({
      root: ROOT,
      host: HOST,
      port,
      env: {
        ERAWATCH_DB: dbFile,
        ERAWATCH_ALLOW_LOOPBACK: '1',
        ERAWATCH_BIND: HOST,
        ERAWATCH_POLLER: 'on',
      },
      onOutput: (line) => say(`[next] ${line}`),
    });
    children = [server];
    if (stop.signal.aborted) return 0;

    // (f) where to look
    printWatchGuide(server.url, args);

    // (g) console echo of what the poller records, and the scripted rollout
    const watcher = await watchStore(store, names);
    const echo = async () => {
      try {
        for (const line of await watcher.poll()) say(line);
      } catch (err) {
        say(`[watch] could not read the database: ${err instanceof Error ? err.message : String(err)}`);
      }
    };
    ticker = setInterval(() => void echo(), 2_000);
    const unexpectedExit: { code: number | null } = { code: null };
    void server.exited.then((code) => {
      if (stop.signal.aborted) return;
      unexpectedExit.code = code;
      process.stderr.write(`erawatch demo: the dashboard server exited (code ${code}); stopping\n`);
      stop.abort();
    });

    const demoFleet = fleet;
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
          replaceNode: (node, release) => demoFleet.replaceNode(node, release),
          wait: waitFor,
          log: say,
          now: Date.now,
        },
        { stepMs: args.stepSeconds * 1_000, signal: stop.signal },
      );
      if (report.outcome !== 'aborted') say('The demo keeps running; press Ctrl-C to stop it.');
    }
    await abortPromise(stop.signal);
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
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (server || fleet) say('Stopped the dashboard and every demo server.');
  }
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
