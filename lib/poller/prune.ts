// Retention: rollups, closed history spans and events older than the cutoff go, so a quiet fleet's database
// stays flat. The open span of each node and every node's current state always stay.
export { pruneOldData, type PruneResult } from '@/db/queries/subjects';

export const DEFAULT_RETENTION_MS = 30 * 24 * 3_600_000;
