// Response shapes of the REST API and the dashboard read model as the dashboard reads them, derived from the
// zod schemas that define them (lib/schemas). Client-safe: types only.
import type { z } from 'zod';
import type { BalancerView, NodeHistoryEntry, NodeWithState, RollupEntry } from '@/lib/schemas/balancer-view';
import type { pageOf } from '@/lib/schemas/common';
import type { Event } from '@/lib/schemas/event';

export type { BalancerDetail, NodeSummary, VerdictSummary } from '@/lib/schemas/dashboard';
import type { NodeRow } from '@/lib/schemas/node-query';
export type { NodeRow } from '@/lib/schemas/node-query';

/** A page of the node matrix: `matched` rows pass the filter out of `total`. */
export interface NodeRowPage {
  items: NodeRow[];
  matched: number;
  total: number;
  nextCursor: string | null;
}
export type { BalancerAnalysisView } from '@/lib/schemas/balancer-analysis';
export type { RolloutWindow } from '@/lib/schemas/rollout';

export type Page<T> = z.output<ReturnType<typeof pageOf<z.ZodType<T>>>>;

/** A balancer's settings as the API shows them (header secrets redacted). */
export type Balancer = Omit<z.output<typeof BalancerView>, 'summary'>;
export type NodeDetail = NodeWithState;
export type NodeHistorySpan = z.output<typeof NodeHistoryEntry>;
export type RollupItem = z.output<typeof RollupEntry>;
export type { LatencyPoint } from '@/lib/schemas/dashboard';
export type EventItem = Event;
