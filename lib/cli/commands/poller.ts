// `erawatch poller [--db FILE] [--concurrency N]`: the poller as its own process. It waits while another
// poller holds the lease; SIGTERM or SIGINT finishes (or abandons) the running cycles and releases the lease.
import { dbFileFromEnv, openDb } from '@/db';
import { startPoller } from '@/lib/poller';

const USAGE = 'usage: erawatch poller [--db FILE] [--concurrency N]\n';

export async function run(argv: string[]): Promise<number> {
  let file = dbFileFromEnv();
  let concurrency: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = argv[i + 1];
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(USAGE);
      return 0;
    } else if (arg === '--db' && value) {
      file = value;
      i++;
    } else if (arg === '--concurrency' && value) {
      concurrency = Number(value);
      if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 10_000) {
        process.stderr.write(
          `erawatch poller: --concurrency must be an integer from 1 to 10000, got '${value}'\n`,
        );
        return 2;
      }
      i++;
    } else {
      process.stderr.write(`erawatch poller: unknown argument '${arg ?? ''}'\n${USAGE}`);
      return 2;
    }
  }
  const store = openDb(file);
  process.stdout.write(`[poller] database ${file}\n`);
  const handle = startPoller({ store, ...(concurrency ? { concurrency } : {}) });
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  process.stdout.write(`[poller] ${signal}: finishing the running cycles and releasing the lease\n`);
  await handle.stop();
  store.close();
  process.stdout.write('[poller] stopped\n');
  return 0;
}
