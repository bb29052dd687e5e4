// The current analysis of one balancer as the API answers it: what a script needs in one call to decide
// whether the fleet behind a public URL agrees, and what the dashboard draws. It is the analysis lib/rollout
// computes and the store keeps (lib/rollout/analysis.ts), with the same field names, plus `since`.
// Client-safe: no database imports.
import type { z } from 'zod';
import { AnalysisFields } from '@/lib/rollout/analysis';
import { Timestamp } from './common';

export const BalancerAnalysisView = AnalysisFields.omit({ balancerId: true })
  .extend({
    since: Timestamp.nullable().meta({
      description:
        'when the current status began: the last balancer.diverged (non-uniform) or balancer.converged (uniform) event; null when unknown',
    }),
  })
  .meta({ id: 'BalancerAnalysis' });
export type BalancerAnalysisView = z.output<typeof BalancerAnalysisView>;

/** A stored or computed analysis as the API answers it, with when its status began. */
export function analysisViewOf(a: AnalysisFields, since: number | null): BalancerAnalysisView {
  const { balancerId: _balancerId, ...fields } = a;
  return { ...fields, since };
}
