// Retention: rollups, closed history spans and events older than the cutoff go, so a quiet fleet's database
// stays flat. The open span of each node and every node's current state always stay.
export { pruneOldData, type PruneResult } from '@/db/queries/subjects';

export const DEFAULT_RETENTION_MS = 30 * 24 * 3_600_000;

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
