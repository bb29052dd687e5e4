// Retention: rollups, closed history spans and events older than the cutoff go, so a quiet fleet's database
// stays flat. The open span of each node and every node's current state always stay.
import { writeTransaction, type Store } from '@/db';
import { firstKeyOfHour, hourOf } from '@/db/rollup-key';

export const DEFAULT_RETENTION_MS = 30 * 24 * 3_600_000;

export interface PruneResult {
  rollups: number;
  history: number;
  events: number;
}

export function pruneOldData(store: Store, cutoff: number): PruneResult {
  if (!Number.isFinite(cutoff)) throw new RangeError('cutoff must be epoch milliseconds');
  return writeTransaction(store, () => ({
    rollups: store.sqlite
      .prepare('DELETE FROM node_rollups WHERE key < ?')
      .run(firstKeyOfHour(hourOf(cutoff))).changes,
    history:
      store.sqlite.prepare('DELETE FROM node_history WHERE ended_at IS NOT NULL AND ended_at < ?').run(cutoff)
        .changes +
      store.sqlite
        .prepare('DELETE FROM stdio_target_history WHERE ended_at IS NOT NULL AND ended_at < ?')
        .run(cutoff).changes,
    events: store.sqlite.prepare('DELETE FROM events WHERE at < ?').run(cutoff).changes,
  }));
}

/** `ERAWATCH_RETENTION_DAYS` (a positive number), else 30 days. */
export function retentionFromEnv(env: Record<string, string | undefined>): number {
  const raw = env.ERAWATCH_RETENTION_DAYS;
  if (raw === undefined || raw.trim() === '') return DEFAULT_RETENTION_MS;
  const days = Number(raw);
  if (!Number.isFinite(days) || days <= 0) {
    throw new RangeError(`ERAWATCH_RETENTION_DAYS must be a positive number of days, got '${raw}'`);
  }
  return Math.round(days * 24 * 3_600_000);
}
