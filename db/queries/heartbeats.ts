// Readiness heartbeats: a real write that needs a free page, so a full disk (or a store that may not grow)
// fails it while reads still work.
import crypto from 'node:crypto';
import { and, eq, lt, or, sql } from 'drizzle-orm';
import { selectRows, type Store } from '@/db/index';

const PAD_BYTES = 4096;

export type HeartbeatResult = { ok: true } | { ok: false; error: string; code: string | null };

/** Writes this holder's new heartbeat row, then drops its older ones, in one transaction. */
export async function writeHeartbeat(store: Store, holder: string, now: number): Promise<HeartbeatResult> {
  const { storeHeartbeats: h } = store.t;
  try {
    await store.write(async (tx) => {
      const [row] = await tx
        .insert(h)
        .values({ holder, at: now, pad: crypto.randomBytes(PAD_BYTES) })
        .returning({ id: h.id });
      const id = row?.id ?? 0;
      await tx.delete(h).where(or(and(eq(h.holder, holder), lt(h.id, id)), lt(h.at, now - 86_400_000)));
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

/** Drops one holder's heartbeat rows (tests make room in a full store with it). */
export async function deleteHeartbeats(store: Store, holder: string): Promise<void> {
  const { storeHeartbeats: h } = store.t;
  await store.write((tx) => tx.delete(h).where(eq(h.holder, holder)));
}

/** One read round trip: the store answers (readiness for anonymous callers, which must not write). */
export async function pingStore(store: Store): Promise<{ ok: boolean }> {
  try {
    const rows = await store.read(() => selectRows<{ one: number | string }>(store, sql`SELECT 1 AS one`));
    return { ok: Number(rows[0]?.one) === 1 };
  } catch {
    return { ok: false };
  }
}
