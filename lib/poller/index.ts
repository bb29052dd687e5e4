// The poller's public surface (server-only): start it, run one balancer's cycle here under its unit's lease,
// read its status.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { getStore, type Store } from '@/db';
import {
  claimUnit,
  listPollWorkers,
  releaseUnit,
  renewUnits,
  unitFenceHolds,
  unitHoldersOnHost,
  type ClaimedUnit,
  type PollWorker,
  type UnitClaimant,
} from '@/db/queries/units';
import { ConflictError } from '@/lib/errors';
import { processSettings, type Settings } from '@/lib/settings';
import { createLimiter } from './limiter';
import { runCycle, type CycleDeps, type CycleResult } from './balancer-cycle';
import { holderGoneOnThisHost } from './lease';
import { createDefaultProbe, resolveAllAddresses } from './default-probe';
import { startPollerWith, type PollerHandle, type PollerOptions, type PollerStatus } from './poll-role';

export type { CycleResult, CycleDeps } from './balancer-cycle';
export type { PollerHandle, PollerOptions, PollerStatus, LagSummary } from './poll-role';
export type { ProbeFn, ResolveFn, Clock } from './types';
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

/** How long runBalancerCycle waits for the unit while another holder's cycle runs. */
export const UNIT_WAIT_MS = 120_000;

/** Makes a poller started elsewhere (the worker's poll role) this process's poller for status and readiness. */
export function rememberPoller(handle: PollerHandle): void {
  (globalThis as GlobalWithPoller)[HANDLE_KEY] = handle;
}

/** This process's poller, if it runs one (the web process asks it to look for asked cycles at once). */
export function localPoller(): PollerHandle | null {
  const handle = (globalThis as GlobalWithPoller)[HANDLE_KEY];
  return handle && handle.status().state !== 'stopped' ? handle : null;
}

/**
 * Runs one cycle of the balancer in this process, in the settings' region, under its unit's lease: it waits
 * while another holder runs the unit, takes it with a new fencing token, renews it while the cycle runs and
 * hands it back due as it was. The unit lease is the only lock, so no node is probed twice at once.
 */
export async function runBalancerCycle(
  store: Store,
  balancerId: string,
  deps: Partial<CycleDeps> & { settings?: Settings; waitMs?: number } = {},
): Promise<CycleResult> {
  const settings = deps.settings ?? processSettings();
  const now = deps.now ?? Date.now;
  const region = deps.region ?? settings.region;
  const ttlMs = settings.pollLeaseTtlMs;
  const me: UnitClaimant = {
    holder: `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
    pid: process.pid,
    hostname: os.hostname(),
    region,
  };
  const unit = await waitForUnit(store, me, balancerId, ttlMs, now, deps.waitMs ?? UNIT_WAIT_MS);
  const renew = setInterval(
    () => void renewUnits(store, me, [unit], ttlMs, now()).catch(() => undefined),
    Math.max(100, Math.floor(ttlMs / 3)),
  );
  renew.unref();
  let stored: { at: number; probes: number } | null = null;
  try {
    const result = await runCycle(store, balancerId, {
      probe: deps.probe ?? createDefaultProbe(settings),
      resolve: deps.resolve ?? resolveAllAddresses,
      now,
      variables: deps.variables ?? settings.environment,
      region,
      limiter: deps.limiter ?? createLimiter(settings.pollerConcurrency),
      fence: (extend) =>
        store.write((tx) => unitFenceHolds(store, tx, unit, region, me.holder, extend ? ttlMs : undefined)),
      ...(deps.dueAt !== undefined ? { dueAt: deps.dueAt } : {}),
      ...(deps.onProbeStart ? { onProbeStart: deps.onProbeStart } : {}),
      ...(deps.signal ? { signal: deps.signal } : {}),
      ...(deps.gateRevisions ? { gateRevisions: deps.gateRevisions } : {}),
    });
    stored = { at: result.at, probes: result.probes };
    return result;
  } finally {
    clearInterval(renew);
    await releaseUnit(store, me, unit, unit.dueAt, { attempted: true, stored }, now()).catch(() => false);
  }
}

async function waitForUnit(
  store: Store,
  me: UnitClaimant,
  balancerId: string,
  ttlMs: number,
  now: () => number,
  waitMs: number,
): Promise<ClaimedUnit> {
  const giveUpAt = now() + waitMs;
  for (;;) {
    // A holder killed on this host never hands back: take its unit at once rather than after its lease.
    const here = await unitHoldersOnHost(store, me.hostname, me.holder, now());
    const goneHolders = here
      .filter((h) => holderGoneOnThisHost({ hostname: me.hostname, pid: h.pid }))
      .map((h) => h.holder);
    const unit = await claimUnit(
      store,
      me,
      { kind: 'balancer', unitId: balancerId },
      { ttlMs, now: now(), goneHolders },
    );
    if (unit) return unit;
    if (now() >= giveUpAt) throw new ConflictError(`a cycle of '${balancerId}' is still running elsewhere`);
    await new Promise((r) => setTimeout(r, 50));
  }
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
