// Server-side start-up for the web process (called from instrumentation.ts): refuse an unsafe bind, refuse a
// store we cannot write (one line naming the path and the cause, exit 1), then run the worker roles here
// (all by default; ERAWATCH_POLLER=off and ERAWATCH_WEBHOOKS=off leave theirs to an `erawatch worker`).
import { getStore, processName } from '@/db/index';
import { currentAuthMode, startupRefusal } from '@/lib/auth/mode';
import { rememberPoller } from '@/lib/poller';
import { startWorker, webRolesFromEnv, type WorkerHandle } from '@/lib/worker';
import { workerSettingsRefusal } from '@/lib/worker/region';

const STARTED = Symbol.for('erawatch.api-startup');
type GlobalWithFlag = typeof globalThis & { [STARTED]?: WorkerHandle };

export async function startServerSide(
  env: Record<string, string | undefined> = process.env,
): Promise<WorkerHandle> {
  const refusal = startupRefusal(currentAuthMode()) ?? workerSettingsRefusal(env);
  if (refusal) {
    console.error(`erawatch: ${refusal}`);
    process.exit(1);
  }
  const g = globalThis as GlobalWithFlag;
  const existing = g[STARTED];
  if (existing) return existing;
  const roles = webRolesFromEnv(env);
  let store;
  try {
    // The web process opens the store first, so its PostgreSQL sessions carry its roles (erawatch-web:deliver,…).
    store = await getStore({ name: processName('web', roles) });
  } catch (err) {
    if (err instanceof Error && err.name === 'StoreOpenError') {
      console.error(`erawatch: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  const handle = await startWorker({ store, roles, env });
  if (handle.poller) rememberPoller(handle.poller);
  g[STARTED] = handle;
  return handle;
}
