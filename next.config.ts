import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // Native and process-spawning modules stay on the server, loaded by Node at run time.
  serverExternalPackages: ['better-sqlite3', 'undici'],
  poweredByHeader: false,
  // The app build checks the app's own code; tests and benchmarks are checked by `npm run typecheck`.
  typescript: { tsconfigPath: 'tsconfig.build.json' },
};

export default nextConfig;
