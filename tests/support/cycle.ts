// Runs one cycle of a subject the way a poll worker does: claim its unit (waiting while another holder runs it),
// run it with runUnitCycle under the unit's lease (renewed while it runs), and let runUnitCycle hand it back.
// Tests drive the production path through this, limiter, lease check, fence and hand-back included; the
// cycle's result is what the poll role reports in its events.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Store } from '@/db';
import {
  claimUnit,
  renewUnits,
  unitHoldersOnHost,
  type UnitClaimant,
  type UnitKind,
} from '@/db/queries/units';
import type { CycleResult, ProbeFn, ResolveFn } from '@/lib/poller';
import type { ReverseFn } from '@/lib/poller/types';
import type { StdioCycleResult } from '@/lib/poller/stdio-cycle';
import { createDefaultProbe, resolveAllAddresses } from '@/lib/poller/default-probe';
import { createPollerEvents } from '@/lib/poller/events';
import { holderGoneOnThisHost } from '@/lib/poller/lease';
import { LeaseKeeper } from '@/lib/poller/lease-renewal';
import { createLimiter, type Limiter } from '@/lib/poller/limiter';
import { PollerCounters } from '@/lib/poller/status';
import { createStdioProbe, type StdioProbeFn } from '@/lib/poller/stdio-cycle';
import { runUnitCycle, type HeldUnit } from '@/lib/poller/unit-cycle';
import { processSettings, type Env, type Settings } from '@/lib/settings';

export interface CycleOptions {
  /** Defaults to this process's settings (tests set ERAWATCH_ALLOW_LOOPBACK before the first use). */
  settings?: Settings;
  probe?: ProbeFn;
  stdioProbe?: StdioProbeFn;
  resolve?: ResolveFn;
  /** DNS nodes' reverse names; none looked up unless given. */
  reverse?: ReverseFn;
  now?: () => number;
  variables?: Env;
  region?: string;
  limiter?: Limiter;
  /** How long to wait for the unit while another holder runs it. */
  waitMs?: number;
  /** The subject's interval and phase, for the due time the unit is handed back with. */
  intervalMs?: number;
  log?: (line: string) => void;
}

/** How long a cycle waits for the unit while another holder's cycle runs. */
export const UNIT_WAIT_MS = 120_000;

/** One balancer cycle through the production path; throws what the poll role would log as a failed cycle. */
export async function runOneCycle(
  store: Store,
  balancerId: string,
  opts: CycleOptions = {},
): Promise<CycleResult> {
  const outcome = await runOneUnit(store, 'balancer', balancerId, opts);
  if (!outcome.cycle) throw new Error(`the cycle of balancer '${balancerId}' reported no result`);
  return outcome.cycle;
}

/** One stdio target's cycle through the production path. */
export async function runOneStdioCycle(
  store: Store,
  targetId: string,
  opts: CycleOptions = {},
): Promise<StdioCycleResult> {
  const outcome = await runOneUnit(store, 'stdio', targetId, opts);
  if (!outcome.stdio) throw new Error(`the cycle of stdio target '${targetId}' reported no result`);
  return outcome.stdio;
}

async function runOneUnit(
  store: Store,
  kind: UnitKind,
  unitId: string,
  opts: CycleOptions,
): Promise<{ cycle?: CycleResult; stdio?: StdioCycleResult }> {
  const settings = opts.settings ?? processSettings();
  const now = opts.now ?? Date.now;
  const ttlMs = settings.pollLeaseTtlMs;
  const renewMs = Math.max(100, Math.floor(ttlMs / 3));
  const me: UnitClaimant = {
    holder: `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
    pid: process.pid,
    hostname: os.hostname(),
    region: opts.region ?? settings.region,
  };
  const unit = await waitForUnit(store, me, kind, unitId, ttlMs, now, opts.waitMs ?? UNIT_WAIT_MS);
  const claimedAt = now();
  const held: HeldUnit = {
    unit,
    lost: false,
    leasedAt: performance.now(),
    running: Promise.resolve(),
    probing: false,
  };
  const leases = new LeaseKeeper({
    store,
    me,
    ttlMs,
    renewMs,
    now,
    held: () => [held],
    presence: () => ({ unitsHeld: 1, lastCycleAt: null }),
    onLost: () => undefined,
    onError: () => undefined,
  });
  // The unit's lease only (no presence row, which would make this process a poll worker of the region).
  const renew = setInterval(() => {
    const sentAt = performance.now();
    void renewUnits(store, me, [unit], ttlMs, now()).then(
      (lost) => {
        if (lost.length > 0) held.lost = true;
        else held.leasedAt = sentAt;
      },
      () => undefined,
    );
  }, renewMs);
  renew.unref();
  const events = createPollerEvents();
  const outcome: { cycle?: CycleResult; stdio?: StdioCycleResult; failed?: string; fenced?: boolean } = {};
  events.on('cycle', (r) => (outcome.cycle = r));
  events.on('stdioCycle', (r) => (outcome.stdio = r));
  events.on('cycleFailed', (_u, message) => (outcome.failed = message));
  events.on('cycleFenced', () => (outcome.fenced = true));
  try {
    await runUnitCycle(held, { id: unitId, intervalMs: opts.intervalMs ?? 60_000, phaseMs: 0 }, claimedAt, {
      store,
      me,
      probe: opts.probe ?? createDefaultProbe(settings),
      stdioProbe: opts.stdioProbe ?? createStdioProbe(settings.environment),
      resolve: opts.resolve ?? resolveAllAddresses,
      ...(opts.reverse ? { reverse: opts.reverse } : {}),
      now,
      variables: opts.variables ?? settings.environment,
      limiter: opts.limiter ?? createLimiter(settings.pollerConcurrency),
      leases,
      leaseTtlMs: ttlMs,
      refreshMs: 5_000,
      signal: new AbortController().signal,
      events,
      counters: new PollerCounters(),
      capacityChanged: () => undefined,
      log: opts.log ?? (() => undefined),
    });
  } finally {
    clearInterval(renew);
  }
  if (outcome.failed !== undefined) throw new Error(outcome.failed);
  if (outcome.fenced) throw new Error(`the cycle of ${kind} '${unitId}' was fenced: its unit was taken over`);
  return outcome;
}

async function waitForUnit(
  store: Store,
  me: UnitClaimant,
  kind: UnitKind,
  unitId: string,
  ttlMs: number,
  now: () => number,
  waitMs: number,
) {
  const giveUpAt = Date.now() + waitMs;
  for (;;) {
    // A holder killed on this host never hands back: take its unit at once rather than after its lease.
    const here = await unitHoldersOnHost(store, me.hostname, me.holder, now());
    const goneHolders = here
      .filter((h) => holderGoneOnThisHost({ hostname: me.hostname, pid: h.pid }))
      .map((h) => h.holder);
    const unit = await claimUnit(store, me, { kind, unitId }, { ttlMs, now: now(), goneHolders });
    if (unit) return unit;
    if (Date.now() >= giveUpAt) throw new Error(`a cycle of ${kind} '${unitId}' is still running elsewhere`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
