// The poll lease: one row. Whoever holds an unexpired row polls; everyone else waits and takes over once it
// expires, or at once when the caller can tell the holder is gone. Every step is one BEGIN IMMEDIATE
// transaction, so two contenders cannot both win.
import { writeTransaction, type Store } from '@/db/index';

export const LEASE_NAME = 'poller';

export interface LeaseHolder {
  holder: string;
  pid: number;
  hostname: string;
  acquiredAt: number;
  renewedAt: number;
  expiresAt: number;
  lastCycleAt: number | null;
}

export type LeaseAttempt = { acquired: true; lease: LeaseHolder } | { acquired: false; heldBy: LeaseHolder };

const SELECT = `SELECT holder, pid, hostname, acquired_at AS acquiredAt, renewed_at AS renewedAt,
  expires_at AS expiresAt, last_cycle_at AS lastCycleAt FROM poller_lease WHERE name = ?`;

export function readLease(store: Store): LeaseHolder | null {
  return (store.sqlite.prepare(SELECT).get(LEASE_NAME) as LeaseHolder | undefined) ?? null;
}

export interface LeaseClaimant {
  holder: string;
  pid: number;
  hostname: string;
  /** True when the current holder is known to be gone (e.g. its pid on this host no longer exists). */
  holderGone?: (current: LeaseHolder) => boolean;
}

/** Takes the lease when it is free, expired, its holder is gone, or already ours (which renews it). */
export function acquireLease(store: Store, me: LeaseClaimant, ttlMs: number, now: number): LeaseAttempt {
  return writeTransaction(store, () => {
    const current = readLease(store);
    if (current && current.holder !== me.holder && current.expiresAt > now && !me.holderGone?.(current))
      return { acquired: false, heldBy: current };
    const mine = current?.holder === me.holder;
    const lease: LeaseHolder = {
      holder: me.holder,
      pid: me.pid,
      hostname: me.hostname,
      acquiredAt: mine && current ? current.acquiredAt : now,
      renewedAt: now,
      expiresAt: now + ttlMs,
      lastCycleAt: mine && current ? current.lastCycleAt : null,
    };
    store.sqlite
      .prepare(
        `INSERT INTO poller_lease (name, holder, pid, hostname, acquired_at, renewed_at, expires_at, last_cycle_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(name) DO UPDATE SET holder = excluded.holder, pid = excluded.pid, hostname = excluded.hostname,
           acquired_at = excluded.acquired_at, renewed_at = excluded.renewed_at, expires_at = excluded.expires_at,
           last_cycle_at = excluded.last_cycle_at`,
      )
      .run(
        LEASE_NAME,
        lease.holder,
        lease.pid,
        lease.hostname,
        lease.acquiredAt,
        lease.renewedAt,
        lease.expiresAt,
        lease.lastCycleAt,
      );
    return { acquired: true, lease };
  });
}

/** Extends our lease; false when it is no longer ours (we stalled past expiry and another poller took over). */
export function renewLease(
  store: Store,
  holder: string,
  ttlMs: number,
  now: number,
  lastCycleAt: number | null,
): boolean {
  return writeTransaction(store, () => {
    const res = store.sqlite
      .prepare(
        `UPDATE poller_lease SET renewed_at = ?, expires_at = ?, last_cycle_at = COALESCE(?, last_cycle_at)
         WHERE name = ? AND holder = ?`,
      )
      .run(now, now + ttlMs, lastCycleAt, LEASE_NAME, holder);
    return res.changes === 1;
  });
}

export function releaseLease(store: Store, holder: string): void {
  store.sqlite.prepare('DELETE FROM poller_lease WHERE name = ? AND holder = ?').run(LEASE_NAME, holder);
}
