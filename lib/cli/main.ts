// `erawatch <command> [args]`: each command is a module in ./commands exporting `run(argv, settings)`, loaded
// so that `erawatch probe` does not pay for the database or the web server. The loaders name each module
// literally, so the CLI compiled for the package holds exactly these (bench runs from a checkout only).
// The settings are read here, once, before any command runs: a bad one stops every command with exit code 2.
import fs from 'node:fs';
import path from 'node:path';
import { processSettings, refusalLines, SettingsError, type Settings } from '@/lib/settings';
import { guardProcessOutput } from './output-guard';
import { packageInfo } from './package-root';

interface CommandModule {
  run(argv: string[], settings: Settings): Promise<number>;
}

interface Command {
  summary: string;
  load: () => Promise<CommandModule>;
  /** Runs only from a checkout of the source (it builds from it); the installed package leaves it out. */
  checkoutOnly?: string;
}

const COMMANDS: Record<string, Command> = {
  probe: {
    summary: 'probe one MCP endpoint and print its era verdict',
    load: () => import('./commands/probe-endpoint'),
  },
  serve: {
    summary: 'serve the dashboard and the API (the prebuilt server)',
    load: () => import('./commands/serve'),
  },
  demo: { summary: 'run the dashboard with an embedded demo fleet', load: () => import('./commands/demo') },
  worker: {
    summary: 'run background roles (poll, deliver, maintain) as their own process',
    load: () => import('./commands/worker'),
  },
  poller: { summary: 'alias of worker (default --roles poll)', load: () => import('./commands/poller') },
  'db-migrate': { summary: 'apply database migrations', load: () => import('./commands/db-migrate') },
  config: {
    summary: 'config export: write current registrations as YAML',
    load: () => import('./commands/config'),
  },
  'host-check': {
    summary: 'check an agent host startup from host.yaml',
    load: () => import('./commands/host-check'),
  },
  bench: {
    summary: 'run a benchmark: probe | poller | api | ui | rate-limit',
    load: () => import('./commands/bench'),
    checkoutOnly: 'the benchmarks run from a checkout of the source (`npm run bench`)',
  },
};

/** Whether this CLI runs from a checkout (its TypeScript source is there), not from the installed package. */
export function fromCheckout(): boolean {
  return fs.existsSync(path.join(packageInfo().root, 'lib', 'cli', 'main.ts'));
}

function usage(): string {
  const checkout = fromCheckout();
  const shown = Object.entries(COMMANDS).filter(([, c]) => checkout || !c.checkoutOnly);
  const lines = shown.map(([name, c]) => `  ${name.padEnd(11)} ${c.summary}`);
  const left = Object.values(COMMANDS)
    .filter((c) => !checkout && c.checkoutOnly)
    .map((c) => `${c.checkoutOnly}.\n`)
    .join('');
  return (
    `usage: erawatch <command> [options]\n       erawatch --version\n\ncommands:\n${lines.join('\n')}\n\n` +
    'erawatch <command> --help lists the flags of one command, what it does and what its exit codes mean.\n' +
    (left ? `Not in this package: ${left}` : '') +
    '\nexit codes:\n  0  --help, --version\n  2  no command, or an unknown one\n'
  );
}

/** The command names, for tests and completion. */
export const COMMAND_NAMES = Object.keys(COMMANDS);

export async function main(argv: string[]): Promise<number> {
  // A closed stdout or stderr neither ends nor spins a command (serve, worker, demo run for days).
  guardProcessOutput();
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage());
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`${packageInfo().version}\n`);
    return 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (command?.checkoutOnly && !fromCheckout()) {
    process.stderr.write(`erawatch: '${name}' is not in the installed package: ${command.checkoutOnly}\n`);
    return 2;
  }
  if (!command) {
    process.stderr.write(`erawatch: unknown command '${name}'\n${usage()}`);
    return 2;
  }
  let settings: Settings;
  try {
    settings = processSettings();
  } catch (err) {
    if (!(err instanceof SettingsError)) throw err;
    process.stderr.write(refusalLines(`erawatch ${name}`, err));
    return 2;
  }
  let mod: CommandModule;
  try {
    mod = await command.load();
  } catch (err) {
    if (err instanceof Error && /Cannot find module|ERR_MODULE_NOT_FOUND/.test(err.message)) {
      process.stderr.write(`erawatch: '${name}' is not available in this build\n`);
      return 2;
    }
    throw err;
  }
  try {
    return await mod.run(rest, settings);
  } catch (err) {
    // Every command that opens the store refuses the same way: one line with the path and the cause.
    if (err instanceof Error && err.name === 'StoreOpenError') {
      process.stderr.write(`erawatch ${name}: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}
