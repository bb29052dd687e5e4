// `erawatch db-migrate [--db FILE]`: applies the committed migrations (they also run whenever the database opens).
import { dbFileFromEnv, openDb } from '@/db';

export async function run(argv: string[]): Promise<number> {
  let file = dbFileFromEnv();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--db' && argv[i + 1]) file = argv[++i] ?? file;
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write(
        'usage: erawatch db-migrate [--db FILE]   (default: $ERAWATCH_DB or ./data/erawatch.db)\n',
      );
      return 0;
    } else {
      process.stderr.write(`erawatch db-migrate: unknown argument '${arg ?? ''}'\n`);
      return 2;
    }
  }
  const store = openDb(file);
  try {
    const rows = store.sqlite.prepare('select count(*) as n from __drizzle_migrations').get() as {
      n: number;
    };
    process.stdout.write(`database ${file}: ${rows.n} migration(s) applied, schema up to date\n`);
    return 0;
  } finally {
    store.close();
  }
}
