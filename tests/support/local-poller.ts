// A poll role in the test's own process, as `next start` runs one (through the worker, so its probes reach the
// stored metric series): route handlers called in-process ask it for cycles (probe-now, the fresh gate)
// through the store, as they would ask any worker of their region.
import { getStore } from '@/db/index';
import { listPollWorkers } from '@/db/queries/units';
import { rememberPoller } from '@/lib/poller';
import { processSettings } from '@/lib/settings';
import { startWorker } from '@/lib/worker';

export interface LocalPoller {
  /** Stops the role (its metric series are flushed on the way out). */
  stop(): Promise<void>;
}

export async function startLocalPoller(): Promise<LocalPoller> {
  const settings = processSettings();
  const store = await getStore({ settings });
  const handle = await startWorker({
    store,
    roles: ['poll'],
    settings,
    log: () => {},
    poll: { refreshMs: 200, leaseRenewMs: 500 },
  });
  const poller = handle.poller;
  if (!poller) throw new Error('the worker runs no poll role');
  rememberPoller(poller);
  // Asks go to regions with a live poll worker: wait until this one's presence is in the store.
  const holder = poller.status().holderId;
  for (let i = 0; !(await listPollWorkers(store, Date.now())).some((w) => w.holder === holder); i++) {
    if (i > 600) throw new Error('the poll role did not register within a minute');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { stop: () => handle.stop() };
}
