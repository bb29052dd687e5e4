// `erawatch db-migrate [--db FILE|URL]`: applies the committed migrations (they also run whenever the database opens).
import { countAppliedMigrations, openStore } from '@/db';
import type { Settings } from '@/lib/settings';
import { formatHelp, HELP_FLAG, USAGE_EXIT, usageLines, type CommandHelp } from '../help';

export const HELP: CommandHelp = {
  usage: ['erawatch db-migrate [--db FILE|URL]'],
  about:
    'Applies the committed database migrations and prints how many it applied and how many are applied in\n' +
    'all. They also run whenever the server or the poller opens the database; this command is for doing it\n' +
    'ahead, e.g. in a deploy step.',
  flags: [
    ['--db FILE|URL', 'the SQLite file or a postgres:// URL (default $ERAWATCH_DB or ./data/erawatch.db)'],
    HELP_FLAG,
  ],
  exitCodes: [
    [0, 'the schema is up to date'],
    [1, 'the database could not be opened or migrated'],
    USAGE_EXIT,
  ],
};

export async function run(argv: string[], settings: Settings): Promise<number> {
  let file = settings.db;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--db' && argv[i + 1]) file = argv[++i] ?? file;
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write(formatHelp(HELP));
      return 0;
    } else {
      process.stderr.write(`erawatch db-migrate: unknown argument '${arg ?? ''}'\n${usageLines(HELP)}`);
      return 2;
    }
  }
  const store = await openStore(file, { name: 'db-migrate', settings });
  try {
    const total = await countAppliedMigrations(store);
    // The store's location: a URL is printed without its password.
    process.stdout.write(
      `database ${store.location}: ${store.migrationsApplied} migration(s) applied now, ${total} in all, schema up to date\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}
