import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { alias: { '@': fileURLToPath(new URL('./', import.meta.url)) } },
  test: {
    include: ['tests/unit/**/*.test.ts', 'tests/integration/**/*.test.ts'],
    environment: 'node',
    // Bounds for a hung test, not expectations: on a loaded 2-core machine a fleet of SDK processes alone
    // can take a minute to start. Tests wait for events within them.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // PostgreSQL tests share one throwaway cluster per run, started on first use (tests/support/postgres.ts).
    globalSetup: ['tests/support/postgres-global.ts'],
  },
});
