// Readiness heartbeats: a real write that needs a free page, so a full disk (or a store that may not grow)
// fails it while reads still work.
import crypto from 'node:crypto';
import { writeTransaction, type Store } from '@/db/index';

const PAD_BYTES = 4096;

export type HeartbeatResult = { ok: true } | { ok: false; error: string; code: string | null };

/** Writes this holder's new heartbeat row, then drops its older ones, in one transaction. */
export function writeHeartbeat(store: Store, holder: string, now: number): HeartbeatResult {
  try {
    writeTransaction(store, () => {
      const { lastInsertRowid } = store.sqlite
        .prepare('INSERT INTO store_heartbeats (holder, at, pad) VALUES (?, ?, ?)')
        .run(holder, now, crypto.randomBytes(PAD_BYTES));
      store.sqlite
        .prepare('DELETE FROM store_heartbeats WHERE (holder = ? AND id < ?) OR at < ?')
        .run(holder, lastInsertRowid, now - 86_400_000);
    });
    return { ok: true };
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    return {
      ok: false,
      error: err instanceof Error ? err.message : String(err),
      code: typeof code === 'string' ? code : null,
    };
  }
}
