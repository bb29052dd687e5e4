import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // Native and process-spawning modules stay on the server, loaded by Node at run time.
  serverExternalPackages: ['better-sqlite3', 'undici'],
  poweredByHeader: false,
};

export default nextConfig;
