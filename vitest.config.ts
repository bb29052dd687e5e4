import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The store-facing suites run twice: on SQLite files and on a fresh database per file in one throwaway
// PostgreSQL 15 cluster per run (tests/support/store.ts, tests/support/postgres.ts).
const PG_SUITES = [
  'tests/integration/poller/**/*.test.ts',
  'tests/integration/api/**/*.test.ts',
  'tests/integration/webhooks/**/*.test.ts',
  'tests/integration/config/**/*.test.ts',
  'tests/integration/worker/units.test.ts',
];
const pgBin = process.env.ERAWATCH_PG_BIN ?? '/usr/lib/postgresql/15/bin';
// Without PostgreSQL a developer's run says so and runs SQLite only; under CI=true the suites run and fail.
const pgMissing = !fs.existsSync(path.join(pgBin, 'initdb')) && process.env.CI !== 'true';
if (pgMissing)
  console.warn(`skipping the PostgreSQL suites: no ${pgBin}/initdb (apt-get install -y postgresql)`);

export default defineConfig({
  resolve: { alias: { '@': fileURLToPath(new URL('./', import.meta.url)) } },
  test: {
    environment: 'node',
    // Bounds for a hung test, not expectations: on a loaded 2-core machine a fleet of SDK processes alone
    // can take a minute to start. Tests wait for events within them.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // The files mostly wait on child processes and sockets: two at once keep a 2-core machine busy.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    // PostgreSQL tests share one throwaway cluster per run, started on first use (tests/support/postgres.ts).
    globalSetup: ['tests/support/postgres-global.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'sqlite', include: ['tests/unit/**/*.test.ts', 'tests/integration/**/*.test.ts'] },
      },
      ...(pgMissing
        ? []
        : [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                include: PG_SUITES,
                // The production-build smoke test is about Next.js, not the store, and costs minutes.
                exclude: ['tests/integration/api/next-smoke.test.ts'],
                env: { ERAWATCH_TEST_STORE: 'postgres' },
              },
            },
          ]),
    ],
  },
});
