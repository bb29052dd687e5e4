// A subject's probes run under its claim in the store, whichever process runs them (a scheduled cycle in the
// poll-role holder, a probe-now in any web process), so one node is never probed twice at once.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Store } from '@/db';
import { claimSubject, releaseSubject, renewSubjectClaim, subjectHolder } from '@/db/queries/claims';
import { ConflictError } from '@/lib/errors';
import { holderGoneOnThisHost } from './lease';

export const CLAIM_TTL_MS = 60_000;
const RENEW_EVERY_MS = 20_000;

export function newClaimHolder(role: string): string {
  return `${role}:${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

const HOLDER = /^[a-z-]+:(.+):(\d+):[0-9a-f]{6}$/;

/** The holder of `subjectId` when it is a process of this host that no longer runs (kill -9), else null. */
async function goneHolder(store: Store, subjectId: string): Promise<string | null> {
  const holder = await subjectHolder(store, subjectId);
  const m = holder === null ? null : HOLDER.exec(holder);
  if (!holder || !m) return null;
  return holderGoneOnThisHost({ hostname: m[1] ?? '', pid: Number(m[2]) }) ? holder : null;
}

export interface ClaimOptions {
  now?: () => number;
  /** How long to wait for another holder to finish; 0 gives up at once (returns null). */
  waitMs?: number;
  /** Pause between two tries while waiting. */
  retryMs?: number;
  /** How long the claim lasts unrenewed (default CLAIM_TTL_MS); the poll role uses its unit lease TTL. */
  ttlMs?: number;
  /** How often the claim is renewed while the task runs; null when the caller renews it (renewHolderClaims). */
  renewMs?: number | null;
}

/**
 * Runs `task` while holding the claim on `subjectId` (renewed while it runs, released after). Answers null
 * when someone else holds it and `waitMs` is 0; throws ConflictError when waiting longer did not free it.
 */
export async function withSubjectClaim<T>(
  store: Store,
  subjectId: string,
  holder: string,
  task: () => Promise<T>,
  opts: ClaimOptions = {},
): Promise<T | null> {
  const now = opts.now ?? Date.now;
  const waitMs = opts.waitMs ?? 0;
  const retryMs = opts.retryMs ?? 50;
  const giveUpAt = now() + waitMs;
  const ttlMs = opts.ttlMs ?? CLAIM_TTL_MS;
  const take = async () => {
    if (await claimSubject(store, subjectId, holder, ttlMs, now())) return true;
    // A holder killed on this host never releases: take its claim at once rather than after its TTL.
    const gone = await goneHolder(store, subjectId);
    return gone !== null && claimSubject(store, subjectId, holder, ttlMs, now(), gone);
  };
  while (!(await take())) {
    if (now() >= giveUpAt) {
      if (waitMs === 0) return null;
      throw new ConflictError(`a cycle of '${subjectId.replace(/^[a-z]+:/, '')}' is still running elsewhere`);
    }
    await new Promise((r) => setTimeout(r, retryMs));
  }
  // A failed renewal leaves the claim to expire on its own; the task itself is not interrupted. Renewals go
  // on the lease connection, so a pool busy with cycle writes cannot let the claim lapse under a live probe.
  const renew =
    opts.renewMs === null
      ? null
      : setInterval(() => {
          void renewSubjectClaim(store, subjectId, holder, ttlMs, now()).catch(() => undefined);
        }, opts.renewMs ?? RENEW_EVERY_MS);
  renew?.unref();
  try {
    return await task();
  } finally {
    if (renew) clearInterval(renew);
    try {
      await releaseSubject(store, subjectId, holder);
    } catch {
      // The claim expires after its TTL.
    }
  }
}
