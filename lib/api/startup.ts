// Server-side start-up for the web process (called from instrumentation.ts): refuse an unsafe bind, apply the
// config file, start the webhook delivery worker.
import { getStore } from '@/db/index';
import { currentAuthMode, startupRefusal } from '@/lib/auth/mode';
import { applyConfigAtStartup } from '@/lib/config/startup';
import { startDeliveryWorker } from '@/lib/webhooks/worker';

const STARTED = Symbol.for('erawatch.api-startup');
type GlobalWithFlag = typeof globalThis & { [STARTED]?: boolean };

export function startServerSide(env: Record<string, string | undefined> = process.env): void {
  const refusal = startupRefusal(currentAuthMode());
  if (refusal) {
    console.error(`erawatch: ${refusal}`);
    process.exit(1);
  }
  const g = globalThis as GlobalWithFlag;
  if (g[STARTED]) return;
  g[STARTED] = true;
  const store = getStore();
  applyConfigAtStartup(store, env);
  if (env.ERAWATCH_WEBHOOKS !== 'off') startDeliveryWorker(store);
}
