// Builds the production app once before the browser tests, unless the build is newer than every source.
import { ensureNextBuild } from '@/lib/demo/next-app';

export default async function globalSetup(): Promise<void> {
  // ERAWATCH_E2E_BUILD=skip runs against whatever build exists (for iterating on the tests themselves).
  if (process.env.ERAWATCH_E2E_BUILD === 'skip') return;
  await ensureNextBuild(process.cwd(), (line) => process.stdout.write(`e2e: ${line}\n`));
}
