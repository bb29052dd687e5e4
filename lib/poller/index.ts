// The poller's public surface (server-only): start it, run one balancer's cycle now, read its status.
import { getStore, type Store } from '@/db';
import { runCycle, runExclusive, defaultLimiter, type CycleDeps, type CycleResult } from './cycle';
import { newClaimHolder, withSubjectClaim } from './claim';
import { balancerSubject } from './claim-names';
import { listPollWorkers, type PollWorker } from '@/db/queries/units';
import { holderGoneOnThisHost } from './lease';
import { createDefaultProbe, resolveAllAddresses } from './probe';
import { startPollerWith, type PollerHandle, type PollerOptions, type PollerStatus } from './runner';

export type { CycleResult, CycleDeps } from './cycle';
export type { PollerHandle, PollerOptions, PollerStatus, LagSummary } from './runner';
export type { ProbeFn, ResolveFn, Clock } from './types';
export type { PollWorker } from '@/db/queries/units';
export { pruneOldData, DEFAULT_RETENTION_MS } from './prune';

const HANDLE_KEY = Symbol.for('erawatch.poller');
type GlobalWithPoller = typeof globalThis & { [HANDLE_KEY]?: PollerHandle };

/** Starts the poller (one per process: a second call returns the running one). */
export async function startPoller(opts: Partial<PollerOptions> = {}): Promise<PollerHandle> {
  const g = globalThis as GlobalWithPoller;
  const existing = g[HANDLE_KEY];
  if (existing && existing.status().state !== 'stopped') return existing;
  const handle = startPollerWith({ ...opts, store: opts.store ?? (await getStore()) });
  g[HANDLE_KEY] = handle;
  return handle;
}

/** How long probe-now waits for a cycle of the same balancer running in another process. */
export const PROBE_NOW_WAIT_MS = 120_000;

/** Makes a poller started elsewhere (the worker's poll role) this process's poller for status and readiness. */
export function rememberPoller(handle: PollerHandle): void {
  (globalThis as GlobalWithPoller)[HANDLE_KEY] = handle;
}

/**
 * Probes every node and sample of one balancer now, analyses and stores the result. Waits for a cycle of
 * the same balancer already running here or in any other process (its claim in the store), so no node is
 * probed twice at once.
 */
export async function runBalancerCycle(
  store: Store,
  balancerId: string,
  deps: Partial<CycleDeps> = {},
): Promise<CycleResult> {
  const result = await withSubjectClaim(
    store,
    balancerSubject(balancerId),
    newClaimHolder('probe-now'),
    () => runLocalCycle(store, balancerId, deps),
    { waitMs: PROBE_NOW_WAIT_MS },
  );
  if (result === null) throw new Error('unreachable: a waiting claim never answers null');
  return result;
}

function runLocalCycle(store: Store, balancerId: string, deps: Partial<CycleDeps>): Promise<CycleResult> {
  return runExclusive(balancerId, () =>
    runCycle(store, balancerId, {
      probe: deps.probe ?? createDefaultProbe(process.env),
      resolve: deps.resolve ?? resolveAllAddresses,
      now: deps.now ?? Date.now,
      env: deps.env ?? process.env,
      limiter: deps.limiter ?? defaultLimiter(),
      ...(deps.dueAt !== undefined ? { dueAt: deps.dueAt } : {}),
      ...(deps.onProbeStart ? { onProbeStart: deps.onProbeStart } : {}),
      ...(deps.signal ? { signal: deps.signal } : {}),
      ...(deps.gateRevisions ? { gateRevisions: deps.gateRevisions } : {}),
    }),
  );
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
export async function getPollerStatus(
  maybeStore?: Store,
  now: number = Date.now(),
): Promise<PollerReadiness> {
  const store = maybeStore ?? (await getStore());
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
