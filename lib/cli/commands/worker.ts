// `erawatch worker [--roles poll,deliver,maintain] [--db FILE|URL] [--concurrency N]`: background roles as their
// own process. Every role is safe beside others running it (claimed poll units, claimed deliveries, claimed
// maintenance runs). SIGTERM or SIGINT stops every role: the poller finishes (or abandons) its running cycles
// and hands back its units, the delivery lanes finish their attempts.
import { openStore, processName } from '@/db';
import { rememberPoller } from '@/lib/poller';
import type { Settings } from '@/lib/settings';
import { parseRoles, ROLES, startWorker, type Role } from '@/lib/worker';
import { startHealthServer, type HealthServer } from '@/lib/worker/health';
import { formatHelp, HELP_FLAG, usageLines, type CommandHelp } from '../help';

export function workerHelp(command: string, defaultRoles: readonly Role[]): CommandHelp {
  return {
    usage: [
      `erawatch ${command} [--roles ${ROLES.join(',')}] [--db FILE|URL] [--concurrency N] [--health-port P]`,
    ],
    about:
      'Runs background roles as their own process: poll (probe and analyse balancers), deliver (webhooks and\n' +
      'alert sinks from the outbox), maintain (retention, rollups, checkpoints, config apply). Each is safe\n' +
      'beside others running it. SIGTERM or SIGINT finishes the running cycles, hands back the poll units and stops.',
    flags: [
      ['--roles LIST', `comma-separated roles to run (default: ${defaultRoles.join(',')})`],
      ['--db FILE|URL', 'the SQLite file or a postgres:// URL (default $ERAWATCH_DB or ./data/erawatch.db)'],
      [
        '--concurrency N',
        'probes in flight for the poll role, 1 to 10000 (default $ERAWATCH_POLLER_CONCURRENCY or 64)',
      ],
      [
        '--health-port P',
        'answer GET /healthz (running) and /readyz (the store answers) on port P of every interface, for\n' +
          '                   liveness and readiness probes; nothing else is served (default: no port)',
      ],
      HELP_FLAG,
    ],
    env: [
      ['ERAWATCH_ALLOW_LOOPBACK', '1 lets probes and deliveries reach loopback addresses'],
      [
        'ERAWATCH_REGION',
        'the region this worker probes from (default: default): lowercase letters, digits, -, 1-63 chars',
      ],
      [
        'ERAWATCH_PROBE_SOURCE_ADDRESS',
        'the local IP address probes connect from (default: the system picks)',
      ],
    ],
    exitCodes: [
      [0, 'stopped by SIGTERM or SIGINT after the roles finished'],
      [1, 'the database could not be opened, or the --health-port is taken'],
      [2, 'bad usage (unknown flag or role, bad value, bad ERAWATCH_REGION); nothing was started'],
    ],
  };
}

export function usage(command: string, defaultRoles: readonly Role[]): string {
  return usageLines(workerHelp(command, defaultRoles));
}

export async function runWorker(
  argv: string[],
  given: Settings,
  command: string,
  defaultRoles: readonly Role[],
): Promise<number> {
  let file = given.db;
  let concurrency: number | undefined;
  let healthPort: number | null = null;
  let roles: Role[] = [...defaultRoles];
  const fail = (message: string) => {
    process.stderr.write(`erawatch ${command}: ${message}\n${usage(command, defaultRoles)}`);
    return 2;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = argv[i + 1];
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(formatHelp(workerHelp(command, defaultRoles)));
      return 0;
    } else if (arg === '--db' && value) {
      file = value;
      i++;
    } else if (arg === '--roles' && value !== undefined) {
      try {
        roles = parseRoles(value);
      } catch (err) {
        return fail(err instanceof Error ? err.message : String(err));
      }
      i++;
    } else if (arg === '--concurrency' && value) {
      concurrency = Number(value);
      if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 10_000) {
        return fail(`--concurrency must be an integer from 1 to 10000, got '${value}'`);
      }
      i++;
    } else if (arg === '--health-port' && value) {
      healthPort = Number(value);
      if (!/^\d+$/.test(value) || healthPort < 1 || healthPort > 65_535) {
        return fail(`--health-port must be a port from 1 to 65535, got '${value}'`);
      }
      i++;
    } else {
      return fail(`unknown argument '${arg ?? ''}'`);
    }
  }
  const settings: Settings = {
    ...given,
    db: file,
    pollerConcurrency: concurrency ?? given.pollerConcurrency,
  };
  // Listening before anything starts: a signal that comes right after the start-up line still stops cleanly.
  const stopSignal = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  const store = await openStore(file, { name: processName(command, roles), settings });
  // The roles' timers are unref'd; without this a deliver- or maintain-only worker would exit at once.
  const keepAlive = setInterval(() => undefined, 2 ** 30);
  const tag = `[${command}]`;
  process.stdout.write(
    `${tag} database ${store.location}, roles ${roles.join(',')}, region ${settings.region}\n`,
  );
  const handle = await startWorker({
    store,
    roles,
    settings,
    log: (l) => process.stdout.write(`${l}\n`),
  });
  if (handle.poller) rememberPoller(handle.poller);
  let running = true;
  let health: HealthServer | null = null;
  if (healthPort !== null) {
    try {
      health = await startHealthServer({ host: '0.0.0.0', port: healthPort, store, running: () => running });
      process.stdout.write(`${tag} health on port ${health.port} (/healthz, /readyz)\n`);
    } catch (err) {
      process.stderr.write(
        `erawatch ${command}: cannot listen on --health-port ${healthPort}: ${err instanceof Error ? err.message : String(err)}\n`,
      );
      await handle.stop();
      await store.close();
      clearInterval(keepAlive);
      return 1;
    }
  }
  const signal = await stopSignal;
  running = false;
  clearInterval(keepAlive);
  const cycles = roles.includes('poll')
    ? 'finishing the running cycles and handing back the poll units; '
    : '';
  process.stdout.write(`${tag} ${signal}: ${cycles}stopping ${roles.join(', ')}\n`);
  await handle.stop();
  await health?.close();
  await store.close();
  process.stdout.write(`${tag} stopped\n`);
  return 0;
}

export function run(argv: string[], settings: Settings): Promise<number> {
  return runWorker(argv, settings, 'worker', ROLES);
}
