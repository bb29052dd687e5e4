// Shared query keys and options: a server page prefetches under these keys from the store (lib/api/page-read.ts)
// and its client component reads the same key with useQuery, so the first paint is server data and polling
// takes over from there.
import { infiniteQueryOptions, keepPreviousData, queryOptions } from '@tanstack/react-query';
import type { ApiToken } from '@/lib/schemas/token';
import type { GateAnswer } from '@/lib/schemas/rollout';
import type { DashboardSession } from '@/lib/schemas/session';
import type { AlertSink, SinkAlert } from '@/lib/schemas/alert-sink';
import type { WebhookDelivery, WebhookEndpoint } from '@/lib/schemas/webhook';
import { requestJson, type Fetcher } from './fetch-json';
import type { FleetRow } from '@/lib/ui/fleet';
import { matrixParams, type MatrixQuery } from '@/lib/ui/node-filter';
import { NODE_LIMIT_MAX } from '@/lib/schemas/node-query';
import type {
  NodePage,
  NodeRow,
  BalancerDetail,
  EventItem,
  NodeDetail,
  NodeHistorySpan,
  NodeSummary,
  Page,
  LatencyPoint,
} from './types';

export const queryKeys = {
  fleet: ['fleet'] as const,
  balancer: (id: string) => ['balancer', id] as const,
  balancerNodes: (id: string) => ['balancer', id, 'nodes'] as const,
  balancerNodePages: (id: string, query: MatrixQuery) => ['balancer', id, 'nodes', 'pages', query] as const,
  groupMembers: (id: string, key: string, analyzedAt: number) =>
    ['balancer', id, 'nodes', 'group', key, analyzedAt] as const,
  balancerEvents: (id: string) => ['balancer', id, 'events'] as const,
  gate: (id: string, revision: string, reasons: string) =>
    ['balancer', id, 'gate', revision, reasons] as const,
  node: (id: string) => ['node', id] as const,
  nodeHistory: (id: string) => ['node', id, 'history'] as const,
  nodeRollups: (id: string) => ['node', id, 'rollups'] as const,
  events: (filter: EventFilter) => ['events', filter] as const,
  webhooks: ['webhooks'] as const,
  deliveries: (id: string) => ['webhooks', id, 'deliveries'] as const,
  alertSinks: ['alert-sinks'] as const,
  sinkAlerts: (id: string) => ['alert-sinks', id, 'alerts'] as const,
  tokens: ['tokens'] as const,
  sessions: ['sessions'] as const,
  nodeLabels: (ids: readonly string[]) => ['node-labels', ids] as const,
};

/** The overview's rows, sorted and summarised on the server (see lib/api/read-model.ts). */
export function fleetQuery(fetcher: Fetcher) {
  return queryOptions({
    queryKey: queryKeys.fleet,
    queryFn: async () => (await requestJson<{ rows: FleetRow[] }>(fetcher, '/dashboard-data/fleet')).rows,
  });
}

const enc = encodeURIComponent;

export function balancerQuery(fetcher: Fetcher, id: string) {
  return queryOptions({
    queryKey: queryKeys.balancer(id),
    queryFn: () => requestJson<BalancerDetail>(fetcher, `/dashboard-data/balancers/${enc(id)}`),
  });
}

/** A balancer's first 1,000 nodes by name, for a pick list (the events page's node filter). */
export function balancerNodesQuery(fetcher: Fetcher, id: string) {
  return queryOptions({
    queryKey: queryKeys.balancerNodes(id),
    queryFn: async () =>
      (
        await requestJson<Page<NodeSummary>>(
          fetcher,
          `/dashboard-data/balancers/${enc(id)}/nodes?limit=${NODE_LIMIT_MAX}`,
        )
      ).items,
  });
}

/** Rows per page of the node matrix: one request fills a screen and more, and stays small. */
export const NODE_PAGE_SIZE = 100;

/** The node matrix's query string: its filter and sort, the page size and the cursor of a page past the first. */
export function nodePageParams(query: MatrixQuery, cursor: string | null): URLSearchParams {
  const params = new URLSearchParams(matrixParams(query));
  params.set('limit', String(NODE_PAGE_SIZE));
  if (cursor) params.set('cursor', cursor);
  return params;
}

/**
 * The node matrix's rows, filtered and sorted on the server, a page at a time as the window scrolls. A
 * refresh refetches the loaded pages; when nothing changed the server answers each with 304 (ETag).
 */
export function balancerNodePagesQuery(fetcher: Fetcher, id: string, query: MatrixQuery) {
  return infiniteQueryOptions({
    queryKey: queryKeys.balancerNodePages(id, query),
    queryFn: ({ pageParam }) =>
      requestJson<NodePage<NodeRow>>(
        fetcher,
        `/dashboard-data/balancers/${enc(id)}/nodes?${nodePageParams(query, pageParam).toString()}`,
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

/** A small group's nodes are named on its card; a larger one is counted and opens the matrix instead. */
export const GROUP_NAMES_MAX = 8;

/**
 * The nodes of one fingerprint group (at most GROUP_NAMES_MAX rows, by name), for its card. Who is in a group
 * changes only with a cycle: asked again when the analysis is newer (`analyzedAt`), not at every refresh.
 */
export function groupMembersQuery(fetcher: Fetcher, id: string, key: string, analyzedAt: number) {
  return queryOptions({
    queryKey: queryKeys.groupMembers(id, key, analyzedAt),
    refetchInterval: false,
    staleTime: Infinity,
    placeholderData: keepPreviousData,
    queryFn: async () => {
      const params = new URLSearchParams({ group: key, limit: String(GROUP_NAMES_MAX) });
      const page = await requestJson<NodePage<NodeRow>>(
        fetcher,
        `/dashboard-data/balancers/${enc(id)}/nodes?${params.toString()}`,
      );
      // A node probed from several regions is one row per region: named once.
      const seen = new Set<string>();
      return page.items.filter((row) => !seen.has(row.id) && seen.add(row.id));
    },
  });
}

/**
 * The gate's answer for one revision: its reasons with the nodes each names (count and node filter), for the
 * balancer page's links to them. Keyed by the analysis' reasons, so it is asked for again only when they
 * change: an unchanged page's refresh costs nothing here.
 */
export function gateQuery(fetcher: Fetcher, id: string, revision: string, reasons: readonly string[]) {
  return queryOptions({
    queryKey: queryKeys.gate(id, revision, reasons.join('\n')),
    queryFn: () =>
      requestJson<GateAnswer>(fetcher, `/api/v1/balancers/${enc(id)}/gate?revision=${enc(revision)}`),
    enabled: reasons.length > 0,
    refetchInterval: false,
    staleTime: Infinity,
    placeholderData: keepPreviousData,
  });
}

export function balancerEventsQuery(fetcher: Fetcher, id: string) {
  return queryOptions({
    queryKey: queryKeys.balancerEvents(id),
    queryFn: async () => {
      const params = new URLSearchParams(balancerEventsParams(id));
      return (await requestJson<Page<EventItem>>(fetcher, `/api/v1/events?${params.toString()}`)).items;
    },
  });
}

export function nodeQuery(fetcher: Fetcher, id: string) {
  return queryOptions({
    queryKey: queryKeys.node(id),
    queryFn: () => requestJson<NodeDetail>(fetcher, `/api/v1/nodes/${enc(id)}`),
  });
}

export function nodeHistoryQuery(fetcher: Fetcher, id: string) {
  return queryOptions({
    queryKey: queryKeys.nodeHistory(id),
    queryFn: async () =>
      (await requestJson<Page<NodeHistorySpan>>(fetcher, `/api/v1/nodes/${enc(id)}/history`)).items,
  });
}

export function nodeRollupsQuery(fetcher: Fetcher, id: string) {
  return queryOptions({
    queryKey: queryKeys.nodeRollups(id),
    queryFn: async () =>
      (await requestJson<Page<LatencyPoint>>(fetcher, `/dashboard-data/nodes/${enc(id)}/rollups`)).items,
  });
}

export interface EventFilter {
  balancerId: string;
  /** One node's events only; '' for all. */
  nodeId: string;
  type: string;
  limit: number;
  /** Only events of the last hour, day or week; '' for all. */
  within: '' | EventWindow;
  /** A page past the first: the `nextCursor` of the page before; '' for the newest. */
  cursor: string;
}

export const EVENT_WINDOWS = { '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000 } as const;
export type EventWindow = keyof typeof EVENT_WINDOWS;

/** The event log's query string for a filter; a window is relative to `now`, so "the last hour" slides. */
export function eventsQueryParams(filter: EventFilter, now: number): Record<string, string> {
  const params: Record<string, string> = { limit: String(filter.limit) };
  if (filter.balancerId) params.balancerId = filter.balancerId;
  if (filter.nodeId) params.nodeId = filter.nodeId;
  if (filter.type) params.type = filter.type;
  if (filter.cursor) params.cursor = filter.cursor;
  if (filter.within) params.since = String(now - EVENT_WINDOWS[filter.within]);
  return params;
}

/** One balancer's last 200 events, for its detail screen. */
export function balancerEventsParams(id: string): Record<string, string> {
  return { balancerId: id, limit: '200' };
}

export function eventsQuery(fetcher: Fetcher, filter: EventFilter) {
  return queryOptions({
    queryKey: queryKeys.events(filter),
    queryFn: () => {
      const params = new URLSearchParams(eventsQueryParams(filter, Date.now()));
      return requestJson<Page<EventItem>>(fetcher, `/api/v1/events?${params.toString()}`);
    },
  });
}

export function webhooksQuery(fetcher: Fetcher) {
  return queryOptions({
    queryKey: queryKeys.webhooks,
    queryFn: async () => (await requestJson<Page<WebhookEndpoint>>(fetcher, '/api/v1/webhooks')).items,
  });
}

/** A delivery log: webhooks and alert sinks keep the same one, under their own resource path. */
export function deliveriesQuery(fetcher: Fetcher, id: string, resource: DeliveryResource = 'webhooks') {
  return queryOptions({
    queryKey: queryKeys.deliveries(id),
    queryFn: async () =>
      (
        await requestJson<Page<WebhookDelivery>>(
          fetcher,
          `/api/v1/${resource}/${enc(id)}/deliveries?limit=100`,
        )
      ).items,
  });
}

export type DeliveryResource = 'webhooks' | 'alert-sinks';

export function alertSinksQuery(fetcher: Fetcher) {
  return queryOptions({
    queryKey: queryKeys.alertSinks,
    queryFn: async () => (await requestJson<Page<AlertSink>>(fetcher, '/api/v1/alert-sinks')).items,
  });
}

export function sinkAlertsQuery(fetcher: Fetcher, id: string) {
  return queryOptions({
    queryKey: queryKeys.sinkAlerts(id),
    queryFn: async () =>
      (await requestJson<Page<SinkAlert>>(fetcher, `/api/v1/alert-sinks/${enc(id)}/alerts`)).items,
  });
}

export function tokensQuery(fetcher: Fetcher) {
  return queryOptions({
    queryKey: queryKeys.tokens,
    queryFn: async () => (await requestJson<Page<ApiToken>>(fetcher, '/api/v1/tokens')).items,
  });
}

/** The live dashboard sessions (admins only). */
export function sessionsQuery(fetcher: Fetcher) {
  return queryOptions({
    queryKey: queryKeys.sessions,
    queryFn: async () => (await requestJson<Page<DashboardSession>>(fetcher, '/api/v1/sessions')).items,
  });
}

/** URL labels for node ids shown in a list; the ids are sorted so the key is stable between refreshes. */
export function nodeLabelsQuery(fetcher: Fetcher, ids: readonly string[]) {
  const sorted = [...new Set(ids)].sort();
  return queryOptions({
    queryKey: queryKeys.nodeLabels(sorted),
    queryFn: async () =>
      (
        await requestJson<{ labels: Record<string, string> }>(
          fetcher,
          `/dashboard-data/node-labels?ids=${encodeURIComponent(sorted.join(','))}`,
        )
      ).labels,
    enabled: sorted.length > 0,
    // Node URLs do not change: no need to poll them.
    refetchInterval: false,
    staleTime: Infinity,
  });
}
