// Builds the production app once before the browser tests, unless the build is newer than every source.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { checkBuild } from '@/lib/demo/next-app';

const require = createRequire(import.meta.url);

export default function globalSetup(): void {
  const root = process.cwd();
  // ERAWATCH_E2E_BUILD=skip runs against whatever build exists (for iterating on the tests themselves).
  if (process.env.ERAWATCH_E2E_BUILD === 'skip') return;
  const status = checkBuild(root);
  if (status.current) return;
  process.stdout.write(`e2e: building the app (${status.reason})\n`);
  const res = spawnSync(process.execPath, [require.resolve('next/dist/bin/next'), 'build'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
    timeout: 15 * 60_000,
  });
  if (res.status !== 0) throw new Error(`next build failed (exit ${res.status ?? res.signal})`);
}
