// The store's edge: every JSON value read back from the store is parsed here, once, with its schema. A value
// that does not parse is a StoredDataInvalidError (the API answers 500 stored_data_invalid), never a silent
// null. Client-safe: pure functions of the value read.
import type { z } from 'zod';
import { StoredDataInvalidError, toFieldIssues } from '@/lib/errors';
import { BalancerSnapshot, type AnalysisFields, type BalancerAnalysis } from '@/lib/rollout/analysis';
import { analysisViewOf, type StoredAnalysisView } from './balancer-analysis';
import { storedAnalysisSchemaOf, upgradeStoredAnalysis } from './stored-analysis';
import { Verdict } from './verdict';

export function parseStored<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new StoredDataInvalidError(what, toFieldIssues(parsed.error.issues));
  return parsed.data;
}

/** A node's stored verdict JSON. */
export function parseStoredVerdict(value: unknown): z.output<typeof Verdict> {
  return parseStored(Verdict, value, 'verdict');
}

/**
 * The time and cycle count of a stored analysis row, from its columns. A cycle that finds what the last one
 * found writes only those (db/subject-state.ts, analysisDigest), so the JSON keeps the ones of its last change
 * and a reader takes them from here.
 */
export interface CycleOf {
  at: number;
  cycle: number;
}

/** A balancer's stored snapshot JSON (what the next cycle diffs against), at its row's time and cycle. */
export function parseStoredSnapshot(value: unknown, of: CycleOf): BalancerSnapshot {
  return { ...parseStored(BalancerSnapshot, value, 'balancer snapshot'), at: of.at, cycle: of.cycle };
}

/**
 * A balancer's stored analysis JSON, as the poller wrote it (of any version: lib/schemas/stored-analysis.ts
 * upgrades the first one), at its row's time. Each region's verdict takes its time from `regionTimes` (the
 * regions' rows) where given; a lone region's is the row's time.
 */
export function parseStoredAnalysisJson(
  value: unknown,
  at: number,
  regionTimes?: ReadonlyMap<string, number>,
): AnalysisFields {
  const parsed = upgradeStoredAnalysis(
    parseStored(storedAnalysisSchemaOf(value), value, 'balancer analysis'),
  );
  const regions = parsed.regions.map((r) => ({
    ...r,
    analyzedAt: regionTimes?.get(r.region) ?? (parsed.regions.length === 1 ? at : r.analyzedAt),
  }));
  return { ...parsed, analyzedAt: at, regions };
}

/** A region's stored analysis with its snapshot, as the cross-region step combines them. */
export function parseStoredRegionAnalysis(
  analysis: unknown,
  snapshot: unknown,
  of: CycleOf,
): BalancerAnalysis {
  return { ...parseStoredAnalysisJson(analysis, of.at), snapshot: parseStoredSnapshot(snapshot, of) };
}

/** A balancer's stored analysis JSON as the API answers it, at its row's time (see parseStoredAnalysisJson). */
export function parseStoredAnalysis(
  value: unknown,
  since: number | null,
  at: number,
  regionTimes?: ReadonlyMap<string, number>,
): StoredAnalysisView {
  return analysisViewOf(parseStoredAnalysisJson(value, at, regionTimes), since);
}
