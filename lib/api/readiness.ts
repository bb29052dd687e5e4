// /readyz: the store answers (and is the file it was opened on), and some worker, this process or another,
// runs the poll role with a recent enough cycle. An anonymous caller (a load balancer) gets the verdict with
// no host names or pids, and costs one read; a caller with a token or the admin secret also gets the store's
// write check (a heartbeat row that needs a free page, so a full disk fails it) and the workers by name.
// Either answers within READINESS_DEADLINE_MS: a store that does not answer is a 503, not a hang.
import os from 'node:os';
import type { Store } from '@/db/index';
import { countBalancers } from '@/db/queries/balancers';
import { pingStore, writeHeartbeat } from '@/db/queries/heartbeats';
import { getPollerStatus, type PollWorker } from '@/lib/poller';
import type { Settings } from '@/lib/settings';

export interface Readiness {
  ready: boolean;
  checks: {
    database: { ok: boolean; detail: string };
    poller: { ok: boolean; detail: string };
  };
}

export const DEFAULT_MAX_CYCLE_AGE_MS = 5 * 60_000;
/** Within this the answer comes, whatever the store does (a load balancer's probe times out at 5 s or so). */
export const READINESS_DEADLINE_MS = 2_000;
const HEARTBEAT_HOLDER = `${os.hostname()}:${process.pid}`;

async function checkDatabase(
  store: Store,
  now: number,
  write: boolean,
): Promise<{ ok: boolean; detail: string }> {
  const gone = store.unavailable();
  if (gone !== null) return { ok: false, detail: gone };
  if (!write) {
    const ping = await pingStore(store);
    return ping.ok
      ? { ok: true, detail: 'store answers' }
      : { ok: false, detail: 'the store does not answer' };
  }
  const beat = await writeHeartbeat(store, HEARTBEAT_HOLDER, now);
  if (beat.ok) return { ok: true, detail: 'heartbeat written' };
  return { ok: false, detail: `heartbeat write failed: ${beat.error}${beat.code ? ` (${beat.code})` : ''}` };
}

/**
 * `region eu-west: host-a (pid 12, 3 units in flight), host-b (pid 40, 0 units in flight); region us-east: …`
 * (a unit is held while its cycle runs).
 */
export function describeWorkers(workers: readonly PollWorker[]): string {
  const byRegion = new Map<string, PollWorker[]>();
  for (const w of workers) byRegion.set(w.region, [...(byRegion.get(w.region) ?? []), w]);
  return [...byRegion]
    .map(
      ([region, ws]) =>
        `region ${region}: ${ws.map((w) => `${w.hostname} (pid ${w.pid}, ${w.unitsHeld} units in flight)`).join(', ')}`,
    )
    .join('; ');
}

/** `2 workers in 1 region`: what an anonymous caller learns of the workers. */
function countWorkers(workers: readonly PollWorker[]): string {
  const regions = new Set(workers.map((w) => w.region)).size;
  return `${workers.length} worker${workers.length === 1 ? '' : 's'} in ${regions} region${regions === 1 ? '' : 's'}`;
}

export interface ReadinessOptions {
  maxCycleAgeMs?: number;
  /** A caller with credentials: the write check and the workers by host and pid. */
  detailed?: boolean;
}

export async function checkReadiness(
  store: Store,
  settings: Pick<Settings, 'pollInWeb'>,
  now: number,
  options: ReadinessOptions = {},
): Promise<Readiness> {
  const maxCycleAgeMs = options.maxCycleAgeMs ?? DEFAULT_MAX_CYCLE_AGE_MS;
  const detailed = options.detailed ?? false;
  const database = await checkDatabase(store, now, detailed);
  if (store.unavailable() !== null) {
    return {
      ready: false,
      checks: { database, poller: { ok: false, detail: 'not checked: the store is unavailable' } },
    };
  }
  let poller: { ok: boolean; detail: string };
  const status = await getPollerStatus(store, now);
  if (status.workers.length === 0) {
    poller = {
      ok: false,
      detail: !settings.pollInWeb
        ? 'no worker runs the poll role (off in this process: run `erawatch worker`)'
        : 'no worker runs the poll role',
    };
  } else if (
    status.lastCycleAgeMs !== null &&
    status.lastCycleAgeMs > maxCycleAgeMs &&
    (await countBalancers(store)) > 0
  ) {
    poller = { ok: false, detail: `last cycle ${Math.round(status.lastCycleAgeMs / 1000)} s ago` };
  } else {
    const age =
      status.lastCycleAgeMs === null
        ? 'no cycle yet'
        : `last cycle ${Math.round(status.lastCycleAgeMs / 1000)} s ago`;
    const who = detailed ? describeWorkers(status.workers) : countWorkers(status.workers);
    poller = { ok: true, detail: `${who}; ${age}` };
  }
  return { ready: database.ok && poller.ok, checks: { database, poller } };
}

/** `check()`, or a 503 verdict when it has not answered within `deadlineMs`. */
export async function readinessWithin(
  deadlineMs: number,
  check: () => Promise<Readiness>,
): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Readiness>((resolve) => {
    timer = setTimeout(
      () =>
        resolve({
          ready: false,
          checks: {
            database: { ok: false, detail: `the store did not answer within ${deadlineMs} ms` },
            poller: { ok: false, detail: 'not checked: no store' },
          },
        }),
      deadlineMs,
    );
  });
  try {
    return await Promise.race([check(), late]);
  } finally {
    clearTimeout(timer);
  }
}
