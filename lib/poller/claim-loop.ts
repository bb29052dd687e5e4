// The claim loop: claims due units of this worker's region from the store, as many as its free probe slots are
// expected to serve, starts their cycles, and sleeps until the next unit can be claimed: the earliest due time
// of a free unit or the end of another worker's lease, whichever comes first. Between ticks it looks for units
// a cycle was asked of (probe-now, the fresh gate), so an ask is taken up within ASK_POLL_MS.
import { performance } from 'node:perf_hooks';
import type { Store } from '@/db';
import {
  claimDueUnits,
  hasAskedUnits,
  nextClaimableAt,
  releaseUnit,
  unitHoldersOnHost,
  type ClaimedUnit,
  type UnitClaimant,
} from '@/db/queries/units';
import { holderGoneOnThisHost } from './lease';
import type { Limiter } from './limiter';
import type { Schedule } from './schedule';

export const CLAIM_RETRY_MS = 250;
/**
 * How long the loop trusts its last look at the other holders on this host (dead ones' units are taken over at
 * once): a tick runs after every cycle, and one look a second is as quick a take-over for a fraction of the reads.
 */
export const HOST_HOLDERS_RECHECK_MS = 1_000;
const CLAIM_BATCH = 64;
/** How often the claim loop looks for asked cycles between its ticks. */
export const ASK_POLL_MS = 200;

export interface ClaimLoopOptions {
  store: Store;
  me: UnitClaimant;
  schedule: Schedule;
  limiter: Limiter;
  concurrency: number;
  maxUnits: number;
  leaseTtlMs: number;
  leaseRenewMs: number;
  refreshMs: number;
  now: () => number;
  /** Units this worker holds now, and how many of them still plan (have not asked for a probe). */
  held: () => { count: number; planning: number };
  /** Probes per finished cycle so far (null before the first): what a unit claimed next is expected to ask. */
  probesPerCycle: () => number | null;
  /**
   * Starts a claimed unit's cycle; `claimedAt` is the store's time of the claim, `sentAt` when (performance.now())
   * the claim was sent: its lease runs from no earlier than that.
   */
  startUnit: (unit: ClaimedUnit, claimedAt: number, sentAt: number) => void;
  onPolling: () => void;
  onError: (what: string, err: unknown) => void;
}

/** How long the loop sleeps when nothing was left to claim: until the next claimable unit, within bounds. */
export function sleepUntilClaimable(
  opts: { refreshMs: number; leaseRenewMs: number },
  claimedAt: number,
  claimableAt: number | null,
): number {
  const until = claimableAt === null ? Infinity : Math.max(0, claimableAt - claimedAt);
  // Past the renewal period the loop looks again anyway: units are added and asked for at any time.
  return Math.min(opts.refreshMs, opts.leaseRenewMs, until);
}

export class ClaimLoop {
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  /** Asked to tick while one ran: tick again once it ends. */
  private wakeAgain = false;
  /** The last tick left due units unclaimed because this worker's probes are all taken: wake when they free. */
  private waitingForCapacity = false;
  private stopped = false;
  private askTimer: NodeJS.Timeout | null = null;
  private asking = false;
  /** The other holders on this host, as last read, and when (this loop's clock). */
  private hostHolders: { at: number; holders: Array<{ holder: string; pid: number }> } | null = null;

  constructor(private readonly opts: ClaimLoopOptions) {}

  start(): void {
    this.wake();
    this.askTimer = setInterval(() => this.lookForAsks(), ASK_POLL_MS);
    this.askTimer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.askTimer) clearInterval(this.askTimer);
    await this.ticking;
  }

  /** Runs a tick now; while one is running, it runs again as soon as that one ends. */
  wake(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.wakeAgain = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.ticking = this.tick().finally(() => {
      this.ticking = null;
    });
  }

  /** A probe slot freed or a cycle started probing: claim more if the last tick had to leave due units. */
  capacityChanged(): void {
    if (this.waitingForCapacity && this.claimRoom() > 0) {
      this.waitingForCapacity = false;
      this.wake();
    }
  }

  /**
   * How many more units to claim now: none while probes wait for the limiter or a claimed unit is still
   * planning its probes, else as many as the idle probe slots are expected to serve (at least one). A worker
   * short of CPU or store thus holds only what it is finishing, and leaves the rest due for other workers.
   */
  private claimRoom(): number {
    const { limiter, concurrency } = this.opts;
    if (limiter.waiting > 0) return 0;
    // Until a cycle has finished, a unit is taken to fill the limiter on its own: one claim at a time.
    const expected = Math.max(1, this.opts.probesPerCycle() ?? concurrency);
    const room = concurrency - limiter.active - this.opts.held().planning * expected;
    return room <= 0 ? 0 : Math.max(1, Math.floor(room / expected));
  }

  private lookForAsks(): void {
    if (this.asking || this.stopped || this.ticking) return;
    this.asking = true;
    hasAskedUnits(this.opts.store, this.opts.me.region, this.opts.now())
      .then((asked) => {
        if (asked) this.wake();
      })
      .catch(() => undefined)
      .finally(() => {
        this.asking = false;
      });
  }

  private async holdersOnHost(): Promise<Array<{ holder: string; pid: number }>> {
    const { store, me, now } = this.opts;
    const t = now();
    if (this.hostHolders && t - this.hostHolders.at < HOST_HOLDERS_RECHECK_MS && t >= this.hostHolders.at)
      return this.hostHolders.holders;
    const holders = await unitHoldersOnHost(store, me.hostname, me.holder, t);
    this.hostHolders = { at: t, holders };
    return holders;
  }

  /** Claims what is due (up to the free capacity), starts it, and sleeps until the next unit can be claimed. */
  private async tick(): Promise<void> {
    if (this.stopped) return;
    const { store, me, schedule, now } = this.opts;
    let sleepMs = this.opts.refreshMs;
    try {
      const t = now();
      if (schedule.due(t, this.opts.refreshMs)) await schedule.refresh(t);
      this.opts.onPolling();
      const here = await this.holdersOnHost();
      const goneHolders = here
        .filter((h) => holderGoneOnThisHost({ hostname: me.hostname, pid: h.pid }))
        .map((h) => h.holder);
      const free = Math.max(0, this.opts.maxUnits - this.opts.held().count);
      const room = this.claimRoom();
      const limit = Math.min(CLAIM_BATCH, free, room);
      const sentAt = performance.now();
      const claim = await claimDueUnits(store, me, {
        limit,
        ttlMs: this.opts.leaseTtlMs,
        now: now(),
        goneHolders,
      });
      if (this.stopped) {
        for (const unit of claim.units)
          await releaseUnit(store, me, unit, unit.dueAt, { attempted: false, stored: null }, now());
        return;
      }
      for (const unit of claim.units) this.opts.startUnit(unit, claim.at, sentAt);
      if (claim.units.length === limit && limit > 0) sleepMs = 0;
      else {
        // Due times and leases are in the store's clock: sleep until the first unit can be claimed.
        const claimable = await nextClaimableAt(store, me.region, me.holder);
        sleepMs = sleepUntilClaimable(this.opts, claim.at, claimable);
        const dueNow = claimable !== null && claimable <= claim.at;
        if (free === 0) sleepMs = Math.max(sleepMs, CLAIM_RETRY_MS);
        else if (room > 0 && dueNow) {
          // What is due but was not claimed is locked by a write still open.
          sleepMs = Math.max(sleepMs, CLAIM_RETRY_MS);
        } else if (room === 0 && dueNow) {
          // Due work left for later: a freed probe slot or a finished cycle wakes the next tick.
          this.waitingForCapacity = true;
          sleepMs = this.opts.leaseRenewMs;
        }
      }
    } catch (err) {
      this.opts.onError('claiming units', err);
      sleepMs = CLAIM_RETRY_MS;
    }
    if (this.wakeAgain) {
      this.wakeAgain = false;
      sleepMs = 0;
    }
    if (!this.stopped) this.timer = setTimeout(() => this.wake(), Math.min(sleepMs, this.opts.refreshMs));
  }
}
