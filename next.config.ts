import type { NextConfig } from 'next';

// What the server reads from disk at run time besides its code: the migrations it applies when it opens the
// store (only the SQL and the journal; the snapshots are for drizzle-kit).
const MIGRATIONS = [
  './db/migrations/*.sql',
  './db/migrations/meta/_journal.json',
  './db/migrations-pg/*.sql',
  './db/migrations-pg/meta/_journal.json',
];

const nextConfig: NextConfig = {
  // Native and process-spawning modules stay on the server, loaded by Node at run time.
  serverExternalPackages: ['better-sqlite3', 'undici'],
  poweredByHeader: false,
  // A self-contained server (.next/standalone) for the npm package and the image; `next start` still works.
  output: 'standalone',
  outputFileTracingIncludes: { '*': MIGRATIONS },
  // No page uses next/image, so sharp and its libvips builds (19 MB, for one platform) stay out.
  outputFileTracingExcludes: { '*': ['./node_modules/sharp/**', './node_modules/@img/**'] },
  // The app build checks the app's own code; tests and benchmarks are checked by `npm run typecheck`. The
  // demo's build skips the check (ERAWATCH_BUILD_TYPECHECK=off): it only needs something to run.
  typescript: {
    tsconfigPath: 'tsconfig.build.json',
    ignoreBuildErrors: process.env.ERAWATCH_BUILD_TYPECHECK === 'off',
  },
};

export default nextConfig;
