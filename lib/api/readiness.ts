// /readyz: the store takes a real write (a heartbeat row that needs a free page, so a full disk fails it), and
// some worker, this process or another, runs the poll role with a recent enough cycle.
import os from 'node:os';
import type { Store } from '@/db/index';
import { countBalancers } from '@/db/queries/balancers';
import { writeHeartbeat } from '@/db/queries/heartbeats';
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
const HEARTBEAT_HOLDER = `${os.hostname()}:${process.pid}`;

async function checkDatabase(store: Store, now: number): Promise<{ ok: boolean; detail: string }> {
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

export async function checkReadiness(
  store: Store,
  settings: Pick<Settings, 'pollInWeb'>,
  now: number,
  maxCycleAgeMs = DEFAULT_MAX_CYCLE_AGE_MS,
): Promise<Readiness> {
  const database = await checkDatabase(store, now);
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
    poller = { ok: true, detail: `${describeWorkers(status.workers)}; ${age}` };
  }
  return { ready: database.ok && poller.ok, checks: { database, poller } };
}
