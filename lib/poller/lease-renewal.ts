// Lease renewal: while this worker holds units, their leases and its presence row are renewed every TTL/3 on
// the store's lease connection. A unit another worker took over is marked lost (its cycle writes nothing). A
// holder also keeps, per unit, how long it may still start probes: renewals that fail (the store cut off, the
// process paused) must not let a cycle probe on past its lease beside the worker that took the unit over.
import { performance } from 'node:perf_hooks';
import type { Store } from '@/db';
import {
  heartbeatPollWorker,
  renewUnitLeases,
  type ClaimedUnit,
  type UnitClaimant,
} from '@/db/queries/units';

/** A unit this worker holds, as the lease keeper sees it. */
export interface LeasedUnit {
  unit: ClaimedUnit;
  /** Another worker took the unit over: whatever the cycle still does, it writes nothing. */
  lost: boolean;
  /** When (performance.now()) the claim or the last renewal that held was sent. */
  leasedAt: number;
}

export interface LeaseKeeperOptions {
  store: Store;
  me: UnitClaimant;
  ttlMs: number;
  renewMs: number;
  now: () => number;
  held: () => Iterable<LeasedUnit>;
  presence: () => { unitsHeld: number; lastCycleAt: number | null };
  onLost: (unit: ClaimedUnit) => void;
  onError: (what: string, err: unknown) => void;
}

export class LeaseKeeper {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly opts: LeaseKeeperOptions) {}

  /**
   * Whether a cycle of `u` may start another probe: not once its lease is about to lapse by the store's clock
   * (the last renewal that held was sent more than a TTL, less a second or a renewal period, ago); the worker
   * that takes the unit over starts the cycle afresh. A slow renewal under load is tolerated up to that point.
   */
  mayProbe(u: LeasedUnit): boolean {
    const margin = Math.min(this.opts.renewMs, 1_000);
    return !u.lost && performance.now() - u.leasedAt < this.opts.ttlMs - margin;
  }

  start(): void {
    void heartbeatPollWorker(this.opts.store, this.opts.me, this.opts.ttlMs, this.opts.now(), 0, null).catch(
      (err: unknown) => this.opts.onError('registering the poll worker', err),
    );
    this.schedule();
  }

  /** Stops renewing; waits for a renewal under way (it would write the presence row back after it is removed). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.running = this.renew();
    }, this.opts.renewMs);
  }

  private async renew(): Promise<void> {
    this.timer = null;
    if (this.stopped) return;
    const { store, me, ttlMs, now } = this.opts;
    const sentAt = performance.now();
    try {
      const mine = [...this.opts.held()].filter((u) => !u.lost);
      const { unitsHeld, lastCycleAt } = this.opts.presence();
      // One transaction on the lease connection: the units and the presence.
      const { renewed, lost } = await store.lease(async () => {
        const outcome = await renewUnitLeases(
          store,
          me,
          mine.map((u) => u.unit),
          ttlMs,
          now(),
        );
        await heartbeatPollWorker(store, me, ttlMs, now(), unitsHeld, lastCycleAt);
        return outcome;
      });
      const key = (u: ClaimedUnit) => `${u.kind}:${u.unitId}:${u.token}`;
      const lostKeys = new Set(lost.map(key));
      const renewedKeys = new Set(renewed.map(key));
      for (const u of mine) {
        if (lostKeys.has(key(u.unit))) {
          u.lost = true;
          this.opts.onLost(u.unit);
        } else if (renewedKeys.has(key(u.unit))) u.leasedAt = sentAt;
        // A unit whose row was locked (another worker's claim under way, or our own fence) was not renewed:
        // its lease still ends where the last renewal that extended it put it.
      }
    } catch (err) {
      this.opts.onError('renewing unit claims', err);
    }
    if (!this.stopped) this.schedule();
  }
}
