// The reads a server page renders from, by their route-table entry: the route handler answers one as JSON,
// and a page (lib/api/page-read.ts) calls the same function in process, so a page and the API it prefetches
// for can never disagree on the data, and a page render sends no request to its own server.
import { readBalancerDetail, readNodeRowPage } from '@/db/queries/dashboard';
import { listEvents, type StoredEvent } from '@/db/queries/events';
import { listAlertSinks } from '@/db/queries/alert-sinks';
import { getMinuteRollups, getNode, getNodeHistory, getRollups, listNodePage } from '@/db/queries/nodes';
import { listLiveSessions } from '@/db/queries/sessions';
import { getStdioTarget, listStdioTargets } from '@/db/queries/stdio-targets';
import { listApiTokens } from '@/db/queries/tokens';
import { listWebhooks } from '@/db/queries/webhooks';
import { principalRole } from '@/lib/auth/roles';
import { latencyPoints } from '@/lib/schemas/dashboard';
import { readFleetRows, readNodeLabels } from './read-model';
import { route, type RouteContext } from './route';
import type { OperationId } from './routes';
import { tokenOwnerOf } from './token-owner';
import { balancerView } from './views';
import { asQueryErrors, json } from './with-api';

/** What a read needs of a request: the store, the time, the settings, who asks, the path and the query. */
export type ReadContext<K extends OperationId> = Pick<
  RouteContext<K>,
  'store' | 'now' | 'settings' | 'principal' | 'params' | 'query'
>;

/** A node's hourly rollups reach back 31 days: the node page's range picker goes to 30 days. */
const HOURS_MS = 31 * 86_400_000;
const MINUTES_MS = 6 * 3_600_000;

function eventView({ seq: _seq, ...event }: StoredEvent) {
  return event;
}

const reads = {
  dashboardFleet: async ({ store, now }: ReadContext<'dashboardFleet'>) => ({
    rows: await readFleetRows(store, now),
    generatedAt: now,
  }),
  dashboardBalancer: async ({ store, params, now }: ReadContext<'dashboardBalancer'>) =>
    balancerView(await readBalancerDetail(store, params.id, now)),
  dashboardBalancerNodes: ({ store, params, query }: ReadContext<'dashboardBalancerNodes'>) =>
    asQueryErrors(async () => await readNodeRowPage(store, params.id, query)),
  listBalancerNodes: ({ store, params, query }: ReadContext<'listBalancerNodes'>) =>
    asQueryErrors(async () => await listNodePage(store, params.id, query)),
  dashboardNodeLabels: async ({ store, query }: ReadContext<'dashboardNodeLabels'>) => ({
    labels: await readNodeLabels(store, query.ids),
  }),
  // A node's latency chart: minute buckets for the last six hours, where the poller has them, and hourly
  // rollups for the week before.
  dashboardNodeRollups: async ({ store, params, now }: ReadContext<'dashboardNodeRollups'>) => {
    const hours = await getRollups(store, { nodeId: params.id, since: now - HOURS_MS }, now);
    const minutes = await getMinuteRollups(store, params.id, now - MINUTES_MS, now);
    return {
      items: latencyPoints(
        hours.map(({ latency: _l, ...r }) => r),
        minutes,
      ),
      nextCursor: null,
    };
  },
  listEvents: async ({ store, query: q }: ReadContext<'listEvents'>) => {
    const page = await asQueryErrors(
      async () =>
        await listEvents(store, {
          balancerId: q.balancerId,
          nodeId: q.nodeId,
          type: q.type,
          since: q.since,
          until: q.until,
          limit: q.limit,
          cursor: q.cursor,
        }),
    );
    return { items: page.items.map(eventView), nextCursor: page.nextCursor };
  },
  getNode: ({ store, params }: ReadContext<'getNode'>) => getNode(store, params.id),
  getNodeHistory: async ({ store, params, query }: ReadContext<'getNodeHistory'>) => ({
    items: await getNodeHistory(store, params.id, { limit: query.limit }),
  }),
  listWebhooks: async ({ store, now }: ReadContext<'listWebhooks'>) => ({
    items: await listWebhooks(store, now),
  }),
  listAlertSinks: async ({ store }: ReadContext<'listAlertSinks'>) => ({
    items: await listAlertSinks(store),
  }),
  /** An admin sees every token; anyone else the tokens they minted. */
  /** An admin sees every token, or one person's (`owner`); anyone else the tokens they minted. */
  listTokens: async ({ store, principal, query }: ReadContext<'listTokens'>) => {
    const own = tokenOwnerOf(principal).by;
    if (principalRole(principal) === 'admin') return { items: await listApiTokens(store, query.owner) };
    // Someone else's tokens are as unknown to a non-admin as tokens that do not exist.
    if (query.owner !== undefined && query.owner !== own) return { items: [] };
    return { items: await listApiTokens(store, own) };
  },
  /** Every live dashboard session, newest first; the one the caller presents is marked `current`. */
  listSessions: async ({ store, now, principal }: ReadContext<'listSessions'>) => {
    const own = principal.kind === 'session' ? principal.sid : null;
    return { items: (await listLiveSessions(store, now)).map((s) => ({ ...s, current: s.id === own })) };
  },
  listStdioTargets: async ({ store, settings }: ReadContext<'listStdioTargets'>) => ({
    items: await listStdioTargets(store, settings.region),
  }),
  getStdioTarget: ({ store, params, settings }: ReadContext<'getStdioTarget'>) =>
    getStdioTarget(store, params.id, settings.region),
};

export type ReadId = keyof typeof reads;
export type ReadResult<K extends ReadId> = Awaited<ReturnType<(typeof reads)[K]>>;
export type ReadFn<K extends ReadId> = (ctx: ReadContext<K>) => Promise<ReadResult<K>>;

export const READS: { [K in ReadId]: ReadFn<K> } = reads;

/** The read `op` as the route handler of its entry: the API's access check, then the read as JSON. */
export function readRoute<K extends ReadId>(op: K) {
  const read = READS[op] as ReadFn<K>;
  return route(op, async (ctx) => json(await read(ctx as ReadContext<K>)));
}
