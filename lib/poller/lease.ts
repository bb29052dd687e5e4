// The poll lease's policy: who we are, and when a holder is gone without waiting for its lease to expire
// (it ran on this host and its pid no longer exists). The row itself lives in db/queries/lease.
import os from 'node:os';
import type { Store } from '@/db';
import {
  acquireLease as acquireLeaseRow,
  readLease,
  type LeaseAttempt,
  type LeaseHolder,
} from '@/db/queries/lease';

export { LEASE_NAME, readLease, releaseLease, releaseLeaseAtExit, renewLease } from '@/db/queries/lease';
export type { LeaseAttempt, LeaseHolder } from '@/db/queries/lease';

/** The holder ran on this host and its process is gone (ESRCH); EPERM means it exists under another user. */
export function holderGoneOnThisHost(current: LeaseHolder, hostname: string = os.hostname()): boolean {
  if (current.hostname !== hostname || current.pid === process.pid) return false;
  try {
    process.kill(current.pid, 0);
    return false;
  } catch (err) {
    return (err as { code?: string }).code === 'ESRCH';
  }
}

/** Takes the lease when it is free, expired, held by a dead process on this host, or already ours. */
export function acquireLease(
  store: Store,
  holder: string,
  ttlMs: number,
  now: number,
): Promise<LeaseAttempt> {
  return acquireLeaseRow(
    store,
    { holder, pid: process.pid, hostname: os.hostname(), holderGone: (h) => holderGoneOnThisHost(h) },
    ttlMs,
    now,
  );
}

export function describeHolder(h: LeaseHolder, now: number): string {
  const seconds = Math.max(0, Math.ceil((h.expiresAt - now) / 1000));
  return `${h.holder} (pid ${h.pid} on ${h.hostname}), lease expires in ${seconds}s`;
}

export async function leaseHeldNow(store: Store, now: number): Promise<boolean> {
  const lease = await readLease(store);
  return lease !== null && lease.expiresAt > now;
}
