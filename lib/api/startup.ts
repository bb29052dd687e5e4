// Server-side start-up for the web process (called from instrumentation.ts): read the settings (a bad one stops
// start-up with one line naming it, exit 2), refuse an unsafe bind or a store we cannot write (exit 1), then run
// the worker roles here (all by default; ERAWATCH_POLLER=off and ERAWATCH_WEBHOOKS=off leave theirs to a worker).
import { getStore, processName } from '@/db/index';
import { currentAuthMode, startupRefusal } from '@/lib/auth/mode';
import { installFrontDoor } from './front-door';
import { rememberPoller } from '@/lib/poller';
import { processSettings, refusalLines, SettingsError, type Settings } from '@/lib/settings';
import { startWorker, webRoles, type WorkerHandle } from '@/lib/worker';

const STARTED = Symbol.for('erawatch.api-startup');
type GlobalWithFlag = typeof globalThis & { [STARTED]?: WorkerHandle };

function readSettings(): Settings {
  try {
    return processSettings();
  } catch (err) {
    if (!(err instanceof SettingsError)) throw err;
    process.stderr.write(refusalLines('erawatch', err));
    process.exit(2);
  }
}

export async function startServerSide(): Promise<WorkerHandle> {
  const settings = readSettings();
  const refusal = startupRefusal(currentAuthMode(settings));
  if (refusal) {
    console.error(`erawatch: ${refusal}`);
    process.exit(1);
  }
  // Before the first request: the socket address and the concurrency limit (lib/api/front-door.ts).
  installFrontDoor(settings);
  const g = globalThis as GlobalWithFlag;
  const existing = g[STARTED];
  if (existing) return existing;
  const roles = webRoles(settings);
  let store;
  try {
    // The web process opens the store first, so its PostgreSQL sessions carry its roles (erawatch-web:deliver,…).
    store = await getStore({ name: processName('web', roles), settings });
  } catch (err) {
    if (err instanceof Error && err.name === 'StoreOpenError') {
      console.error(`erawatch: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  const handle = await startWorker({ store, roles, settings });
  if (handle.poller) rememberPoller(handle.poller);
  g[STARTED] = handle;
  return handle;
}
