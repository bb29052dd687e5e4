// The poller's public surface (server-only): start it, read its status. A cycle runs only as a claimed unit's
// turn (claim-loop.ts, unit-cycle.ts); tests drive that same path (tests/support/cycle.ts).
import { getStore, type Store } from '@/db';
import { listPollWorkers, type PollWorker } from '@/db/queries/units';
import { holderGoneOnThisHost } from './lease';
import { startPollerWith, type PollerHandle, type PollerOptions, type PollerStatus } from './poll-role';

export type { CycleResult, CycleDeps } from './balancer-cycle';
export type { PollerHandle, PollerOptions, PollerStatus, LagSummary } from './poll-role';
export type { ProbeFn, ResolveFn, ReverseFn, Clock } from './types';
export type { PollWorker } from '@/db/queries/units';
export { pruneOldData, DEFAULT_RETENTION_MS } from './prune';

const HANDLE_KEY = Symbol.for('erawatch.poller');
type GlobalWithPoller = typeof globalThis & { [HANDLE_KEY]?: PollerHandle };

/** Starts the poller (one per process: a second call returns the running one). */
export async function startPoller(
  opts: Omit<PollerOptions, 'store'> & { store?: Store },
): Promise<PollerHandle> {
  const g = globalThis as GlobalWithPoller;
  const existing = g[HANDLE_KEY];
  if (existing && existing.status().state !== 'stopped') return existing;
  const handle = startPollerWith({
    ...opts,
    store: opts.store ?? (await getStore({ settings: opts.settings })),
  });
  g[HANDLE_KEY] = handle;
  return handle;
}

/** Makes a poller started elsewhere (the worker's poll role) this process's poller for status and readiness. */
export function rememberPoller(handle: PollerHandle): void {
  (globalThis as GlobalWithPoller)[HANDLE_KEY] = handle;
}

/** This process's poller, if it runs one (the web process asks it to look for asked cycles at once). */
export function localPoller(): PollerHandle | null {
  const handle = (globalThis as GlobalWithPoller)[HANDLE_KEY];
  return handle && handle.status().state !== 'stopped' ? handle : null;
}

export interface PollerReadiness {
  /** A poller runs in this process. */
  running: boolean;
  /** Workers (this one or other processes) running the poll role now, by region then holder. */
  workers: PollWorker[];
  /** The regions that have at least one poll worker. */
  regions: string[];
  lastCycleAt: number | null;
  lastCycleAgeMs: number | null;
  local: PollerStatus | null;
}

/** For /readyz: is the fleet being polled, by which workers in which regions, and how long since a cycle. */
export async function getPollerStatus(store: Store, now: number = Date.now()): Promise<PollerReadiness> {
  const local = (globalThis as GlobalWithPoller)[HANDLE_KEY]?.status() ?? null;
  // A worker on this host whose process is gone (kill -9) is left out at once, not when its presence lapses.
  const workers = (await listPollWorkers(store, now)).filter(
    (w) => !holderGoneOnThisHost({ hostname: w.hostname, pid: w.pid }),
  );
  const lastCycleAt = Math.max(
    local?.lastCycleAt ?? -Infinity,
    ...workers.map((w) => w.lastCycleAt ?? -Infinity),
  );
  const last = Number.isFinite(lastCycleAt) ? lastCycleAt : null;
  return {
    running: local !== null && (local.state === 'polling' || local.state === 'waiting'),
    workers,
    regions: [...new Set(workers.map((w) => w.region))],
    lastCycleAt: last,
    lastCycleAgeMs: last === null ? null : now - last,
    local,
  };
}
