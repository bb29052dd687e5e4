// The poll lease: one row. Whoever holds an unexpired row polls; everyone else waits and takes over once it
// expires, or at once when the caller can tell the holder is gone. Every step is one write transaction, so
// two contenders cannot both win.
import { and, eq, sql } from 'drizzle-orm';
import { sqliteOf, type Db, type Store } from '@/db/index';
import { sqliteReleaseLeaseNow } from '@/db/engines/sqlite-exit';

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

async function leaseRow(store: Store, db: Db): Promise<LeaseHolder | null> {
  const { pollerLease: l } = store.t;
  const rows = await db
    .select({
      holder: l.holder,
      pid: l.pid,
      hostname: l.hostname,
      acquiredAt: l.acquiredAt,
      renewedAt: l.renewedAt,
      expiresAt: l.expiresAt,
      lastCycleAt: l.lastCycleAt,
    })
    .from(l)
    .where(eq(l.name, LEASE_NAME));
  return rows[0] ?? null;
}

export function readLease(store: Store): Promise<LeaseHolder | null> {
  return store.read((db) => leaseRow(store, db));
}

export interface LeaseClaimant {
  holder: string;
  pid: number;
  hostname: string;
  /** True when the current holder is known to be gone (e.g. its pid on this host no longer exists). */
  holderGone?: (current: LeaseHolder) => boolean;
}

/** Takes the lease when it is free, expired, its holder is gone, or already ours (which renews it). */
export function acquireLease(
  store: Store,
  me: LeaseClaimant,
  ttlMs: number,
  now: number,
): Promise<LeaseAttempt> {
  const { pollerLease: l } = store.t;
  return store.write(async (tx) => {
    const current = await leaseRow(store, tx);
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
    const { holder, pid, hostname, acquiredAt, renewedAt, expiresAt, lastCycleAt } = lease;
    await tx
      .insert(l)
      .values({ name: LEASE_NAME, ...lease })
      .onConflictDoUpdate({
        target: l.name,
        set: { holder, pid, hostname, acquiredAt, renewedAt, expiresAt, lastCycleAt },
      });
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
): Promise<boolean> {
  const { pollerLease: l } = store.t;
  return store.write(async (tx) => {
    const rows = await tx
      .update(l)
      .set({
        renewedAt: now,
        expiresAt: now + ttlMs,
        lastCycleAt: lastCycleAt === null ? sql`${l.lastCycleAt}` : lastCycleAt,
      })
      .where(and(eq(l.name, LEASE_NAME), eq(l.holder, holder)))
      .returning({ name: l.name });
    return rows.length === 1;
  });
}

export async function releaseLease(store: Store, holder: string): Promise<void> {
  const { pollerLease: l } = store.t;
  await store.write((tx) => tx.delete(l).where(and(eq(l.name, LEASE_NAME), eq(l.holder, holder))));
}

/**
 * At process exit, where nothing can be awaited: releases the lease synchronously on SQLite. Other engines
 * cannot, so their lease simply expires. Never throws (the store may already be closed).
 */
export function releaseLeaseAtExit(store: Store, holder: string): void {
  if (store.engine !== 'sqlite') return;
  try {
    sqliteReleaseLeaseNow(sqliteOf(store), LEASE_NAME, holder);
  } catch {
    // The database may already be closed; the lease then expires on its own.
  }
}
