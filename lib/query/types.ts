// Response shapes of the REST API and the dashboard read model as the dashboard reads them, derived from the
// zod schemas that define them (lib/schemas). Client-safe: types only.
import type { z } from 'zod';
import type { BalancerView, NodeHistoryEntry, NodeWithState, RollupEntry } from '@/lib/schemas/balancer-view';
import type { pageOf } from '@/lib/schemas/common';
import type { Event } from '@/lib/schemas/event';

export type { BalancerDetail, VerdictSummary } from '@/lib/schemas/dashboard';
/** A matrix row (a node, per region that probed it) with its fingerprint group's key. */
export type { NodeRow, NodeRow as NodeSummary, NodePage } from '@/lib/schemas/node-query';
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
