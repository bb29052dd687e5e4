// `erawatch bench <name> [args]` runs bench/<name>.ts, which exports `run(argv)` and prints its figures.
import { formatHelp, HELP_FLAG, type CommandHelp } from '../help';
import type { Settings } from '@/lib/settings';

const BENCHES = ['probe', 'poller', 'api', 'ui', 'rate-limit'] as const;
/** The file of each benchmark under bench/, where its name alone would not say what it measures. */
const FILES: Partial<Record<(typeof BENCHES)[number], string>> = { probe: 'probe-rate' };

export const HELP: CommandHelp = {
  usage: ['erawatch bench [<name> [flags]]   (npm run bench -- <name> [flags])'],
  about:
    'Runs one benchmark, or all of them in turn, and prints its figures (some also write bench-results/).\n' +
    'Each starts what it measures itself, on loopback, with a temporary database. docs and README list targets.',
  flags: [
    [
      'probe',
      '--duration-ms N --concurrency N --rounds N: probe throughput against a canned server and the SDK',
    ],
    ['poller', '--duration 3m --nodes 10000 --interval 30s --concurrency 64: sustained poller rate'],
    ['', '--store sqlite|postgres --workers N: N `erawatch worker` processes on one store, kill -9 of one'],
    ['api', '--duration 15s --concurrency 16 --poller on|process|off --build auto|never: API p95 under load'],
    ['', '--clients 250: overload, every request answered 2xx or 429 within 10 s'],
    ['ui', 'navigation to the first row of real data in headless Chromium'],
    ['rate-limit', '--requests 1500 --per-minute 30: what requests refused by the rate limit cost'],
    HELP_FLAG,
  ],
  exitCodes: [
    [0, 'the benchmark ran (and met its target where it has one)'],
    [1, 'a benchmark failed to run, or missed its target'],
    [2, 'bad usage: an unknown benchmark or flag'],
  ],
};

export async function run(argv: string[], settings: Settings): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(formatHelp(HELP));
    return 0;
  }
  const names = name ? [name] : [...BENCHES];
  for (const n of names) {
    if (!(BENCHES as readonly string[]).includes(n)) {
      process.stderr.write(`erawatch bench: unknown benchmark '${n}' (one of: ${BENCHES.join(', ')})\n`);
      return 2;
    }
  }
  let status = 0;
  for (const n of names) {
    process.stdout.write(`\n== bench ${n} ==\n`);
    const mod = (await import(`../../../bench/${FILES[n as (typeof BENCHES)[number]] ?? n}.ts`)) as {
      run(argv: string[], settings: Settings): Promise<number>;
    };
    status = Math.max(status, await mod.run(rest, settings));
  }
  return status;
}
