// The poller lease: one row in SQLite. Whoever holds an unexpired row polls; everyone else waits and takes
// over once it expires. Every step is one BEGIN IMMEDIATE transaction, so two contenders cannot both win.
import os from 'node:os';
import { writeTransaction, type Store } from '@/db';

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

interface LeaseRow {
  holder: string;
  pid: number;
  hostname: string;
  acquiredAt: number;
  renewedAt: number;
  expiresAt: number;
  lastCycleAt: number | null;
}

const SELECT = `SELECT holder, pid, hostname, acquired_at AS acquiredAt, renewed_at AS renewedAt,
  expires_at AS expiresAt, last_cycle_at AS lastCycleAt FROM poller_lease WHERE name = ?`;

export function readLease(store: Store): LeaseHolder | null {
  return (store.sqlite.prepare(SELECT).get(LEASE_NAME) as LeaseRow | undefined) ?? null;
}

/** Takes the lease when it is free, expired or already ours (which renews it). */
export function acquireLease(store: Store, holder: string, ttlMs: number, now: number): LeaseAttempt {
  return writeTransaction(store, () => {
    const current = readLease(store);
    if (current && current.holder !== holder && current.expiresAt > now)
      return { acquired: false, heldBy: current };
    const mine = current?.holder === holder;
    const lease: LeaseHolder = {
      holder,
      pid: process.pid,
      hostname: os.hostname(),
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
  const res = store.sqlite
    .prepare(
      `UPDATE poller_lease SET renewed_at = ?, expires_at = ?, last_cycle_at = COALESCE(?, last_cycle_at)
       WHERE name = ? AND holder = ?`,
    )
    .run(now, now + ttlMs, lastCycleAt, LEASE_NAME, holder);
  return res.changes === 1;
}

export function releaseLease(store: Store, holder: string): void {
  store.sqlite.prepare('DELETE FROM poller_lease WHERE name = ? AND holder = ?').run(LEASE_NAME, holder);
}

export function describeHolder(h: LeaseHolder, now: number): string {
  const seconds = Math.max(0, Math.ceil((h.expiresAt - now) / 1000));
  return `${h.holder} (pid ${h.pid} on ${h.hostname}), lease expires in ${seconds}s`;
}
