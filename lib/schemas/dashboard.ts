// What the dashboard's read model (/dashboard-data) serves: exactly what the screens draw. Client-safe.
import { z } from 'zod';
import { CLIENT_ERAS, SERVED_ERAS } from '@/lib/probe/types';
import { BalancerAnalysisView } from './balancer-analysis';
import { BalancerView, NodeView } from './balancer-view';
import { BalancerProgressView } from './progress';
import { RolloutWindow } from './rollout';

/** One balancer's settings (secrets redacted), latest analysis and open rollout window. */
export const BalancerDetailView = BalancerView.omit({ summary: true }).extend({
  analysis: BalancerAnalysisView.nullable(),
  window: RolloutWindow.nullable(),
  progress: BalancerProgressView.nullable().optional(),
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
  name: true,
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

/** One point of a node's latency chart: a minute for the last hours, an hour before. */
export const LatencyPoint = z.object({
  at: z.int().meta({ description: 'start of the bucket, epoch ms' }),
  spanMs: z.int().meta({ description: '60000 for a minute bucket, 3600000 for an hour' }),
  probes: z.int(),
  failures: z.int(),
  p50Ms: z.number().nullable(),
  p95Ms: z.number().nullable(),
});
export type LatencyPoint = z.output<typeof LatencyPoint>;

/** The chart's points, oldest first: hours up to where the minute buckets begin, then minutes. */
export function latencyPoints(
  hours: ReadonlyArray<{
    hourStart: number;
    probes: number;
    failures: number;
    p50Ms: number | null;
    p95Ms: number | null;
  }>,
  minutes: ReadonlyArray<{
    minuteStart: number;
    probes: number;
    failures: number;
    p50Ms: number | null;
    p95Ms: number | null;
  }>,
): LatencyPoint[] {
  const firstMinute = minutes[0]?.minuteStart ?? Infinity;
  return [
    ...hours
      .filter((h) => h.hourStart + 3_600_000 <= firstMinute)
      .map(({ hourStart, ...r }) => ({ at: hourStart, spanMs: 3_600_000, ...r })),
    ...minutes.map(({ minuteStart, ...r }) => ({ at: minuteStart, spanMs: 60_000, ...r })),
  ];
}
