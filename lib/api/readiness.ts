// /readyz: the database takes a write lock, and the fleet is being polled (or polling is deliberately off)
// with a recent enough cycle.
import type { Store } from '@/db/index';
import { getPollerStatus } from '@/lib/poller';

export interface Readiness {
  ready: boolean;
  checks: {
    database: { ok: boolean; detail: string };
    poller: { ok: boolean; detail: string };
  };
}

export const DEFAULT_MAX_CYCLE_AGE_MS = 5 * 60_000;

function checkDatabase(store: Store): { ok: boolean; detail: string } {
  try {
    store.sqlite.prepare('BEGIN IMMEDIATE').run();
    store.sqlite.prepare('ROLLBACK').run();
    return { ok: true, detail: 'writable' };
  } catch (err) {
    if (store.sqlite.inTransaction) store.sqlite.prepare('ROLLBACK').run();
    return { ok: false, detail: `not writable: ${err instanceof Error ? err.message : String(err)}` };
  }
}

export function checkReadiness(
  store: Store,
  env: Record<string, string | undefined>,
  now: number,
  maxCycleAgeMs = DEFAULT_MAX_CYCLE_AGE_MS,
): Readiness {
  const database = checkDatabase(store);
  let poller: { ok: boolean; detail: string };
  if (env.ERAWATCH_POLLER === 'off' && env.ERAWATCH_EXPECT_EXTERNAL_POLLER !== '1') {
    poller = { ok: true, detail: 'off in this process (ERAWATCH_POLLER=off)' };
  } else {
    const status = getPollerStatus(store, now);
    const balancers = (store.sqlite.prepare('SELECT count(*) AS n FROM balancers').get() as { n: number }).n;
    if (!status.leaseHeld) poller = { ok: false, detail: 'no poller holds the lease' };
    else if (balancers > 0 && status.lastCycleAgeMs !== null && status.lastCycleAgeMs > maxCycleAgeMs) {
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
  }
  return { ready: database.ok && poller.ok, checks: { database, poller } };
}
