// The store's edge: every JSON value read back from the store is parsed here, once, with its schema. A value
// that does not parse is a StoredDataInvalidError (the API answers 500 stored_data_invalid), never a silent
// null. Client-safe: pure functions of the value read.
import type { z } from 'zod';
import { StoredDataInvalidError, toFieldIssues } from '@/lib/errors';
import { analysisViewOf, type BalancerAnalysisView } from './balancer-analysis';
import { BalancerSnapshot, ComputedAnalysis, StoredAnalysisJson } from './snapshot';
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

/** A balancer's stored snapshot JSON (what the next cycle diffs against). */
export function parseStoredSnapshot(value: unknown): z.output<typeof BalancerSnapshot> {
  return parseStored(BalancerSnapshot, value, 'balancer snapshot');
}

/** A balancer's stored analysis JSON, as the poller wrote it. */
export function parseStoredAnalysisJson(value: unknown): StoredAnalysisJson {
  return parseStored(StoredAnalysisJson, value, 'balancer analysis');
}

/** A region's stored analysis with its snapshot, as the cross-region step combines them. */
export function parseStoredRegionAnalysis(
  analysis: unknown,
  snapshot: unknown,
): z.output<typeof ComputedAnalysis> {
  return { ...parseStoredAnalysisJson(analysis), snapshot: parseStoredSnapshot(snapshot) };
}

/** A balancer's stored analysis JSON in the API's vocabulary. */
export function parseStoredAnalysis(value: unknown, since: number | null): BalancerAnalysisView {
  return analysisViewOf(parseStoredAnalysisJson(value), since);
}
