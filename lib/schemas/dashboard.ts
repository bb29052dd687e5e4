// What the dashboard's read model (/dashboard-data) serves: exactly what the screens draw. Client-safe.
import { z } from 'zod';
import { CLIENT_ERAS, SERVED_ERAS } from '@/lib/probe/types';
import { BalancerAnalysisView } from './balancer-analysis';
import { BalancerView, NodeView } from './balancer-view';
import { RolloutWindow } from './rollout';

/** One balancer's settings (secrets redacted), latest analysis and open rollout window. */
export const BalancerDetailView = BalancerView.omit({ summary: true }).extend({
  analysis: BalancerAnalysisView.nullable(),
  window: RolloutWindow.nullable(),
});
export type BalancerDetail = z.output<typeof BalancerDetailView>;

/** The part of a verdict the node matrix draws: no evidence, so 1,000 rows stay small on every refresh. */
export const VerdictSummary = z.object({
  verdict: z.enum(CLIENT_ERAS),
  reason: z.string(),
  negotiatedVersion: z.string().nullable(),
  supported: z.array(z.string()),
  servedEras: z.enum(SERVED_ERAS),
  durationMs: z.int(),
});
export type VerdictSummary = z.output<typeof VerdictSummary>;

export const NodeSummaryView = NodeView.pick({
  id: true,
  balancerId: true,
  origin: true,
  url: true,
  address: true,
  servedBy: true,
}).extend({
  state: NodeView.shape.state
    .unwrap()
    .pick({ region: true, clientEra: true, reason: true, probedAt: true })
    .extend({ verdict: VerdictSummary })
    .nullable(),
});
export type NodeSummary = z.output<typeof NodeSummaryView>;

/** The node ids whose labels a list needs, comma-separated. */
export const NodeLabelsQuery = z.object({
  ids: z
    .string()
    .max(20_000)
    .transform((s) => s.split(',').filter((id) => id !== ''))
    .pipe(z.array(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be node ids')).max(500, 'at most 500 ids')),
});
