// /readyz: the store takes a real write (a heartbeat row that needs a free page, so a full disk fails it), and
// some process, this one or another, holds the poll role with a recent enough cycle.
import os from 'node:os';
import type { Store } from '@/db/index';
import { countBalancers } from '@/db/queries/balancers';
import { writeHeartbeat } from '@/db/queries/heartbeats';
import { getPollerStatus } from '@/lib/poller';

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

export async function checkReadiness(
  store: Store,
  env: Record<string, string | undefined>,
  now: number,
  maxCycleAgeMs = DEFAULT_MAX_CYCLE_AGE_MS,
): Promise<Readiness> {
  const database = await checkDatabase(store, now);
  let poller: { ok: boolean; detail: string };
  const status = await getPollerStatus(store, now);
  if (!status.leaseHeld) {
    poller = {
      ok: false,
      detail:
        env.ERAWATCH_POLLER === 'off'
          ? 'no poller holds the lease (off in this process: run `erawatch worker`)'
          : 'no poller holds the lease',
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
    poller = {
      ok: true,
      detail: `lease held by ${status.holder?.hostname ?? 'a poller'} (pid ${status.holder?.pid ?? '?'}), ${age}`,
    };
  }
  return { ready: database.ok && poller.ok, checks: { database, poller } };
}
