'use client';
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { usePathname, useRouter } from 'next/navigation';
import { useMemo } from 'react';
import { Badge } from '@/components/ui/badge';
import { LoadError, Loading } from '@/components/ui/query-state';
import { browserFetcher } from '@/lib/query/fetch-json';
import {
  balancerNodesQuery,
  eventsQuery,
  fleetQuery,
  nodeLabelsQuery,
  type EventFilter,
} from '@/lib/query/options';
import { When } from '@/components/ui/when';
import { nodeLabel } from '@/lib/ui/node-label';
import { EVENT_LABELS } from '@/lib/rollout/labels';
import { EVENT_TYPES } from '@/lib/rollout/types';
import { EVENT_LIMITS, describeEvent, eventLook, withNodeNames } from '@/lib/ui/events';

function stamp(at: number): string {
  return new Date(at).toISOString().replace('T', ' ').slice(0, 19);
}

export function EventsView({ filter }: { filter: EventFilter }) {
  const router = useRouter();
  const pathname = usePathname();
  const events = useQuery(eventsQuery(browserFetcher, filter));
  const fleet = useQuery(fleetQuery(browserFetcher));
  const names = useMemo(() => new Map((fleet.data ?? []).map((r) => [r.id, r.name])), [fleet.data]);
  const nodeIds = useMemo(
    () => (events.data?.items ?? []).flatMap((e) => (e.nodeId ? [e.nodeId] : [])),
    [events.data],
  );
  const labels = useQuery(nodeLabelsQuery(browserFetcher, nodeIds));
  const nodeNames = useMemo(() => new Map(Object.entries(labels.data ?? {})), [labels.data]);
  // The node filter offers the chosen balancer's nodes (one row per node, whatever its regions).
  const balancerNodes = useQuery({
    ...balancerNodesQuery(browserFetcher, filter.balancerId),
    enabled: filter.balancerId !== '',
  });
  const nodeOptions = useMemo(() => {
    const seen = new Map<string, string>();
    for (const n of balancerNodes.data ?? []) if (!seen.has(n.id)) seen.set(n.id, nodeLabel(n));
    return [...seen].sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  }, [balancerNodes.data]);

  // Any change of filter starts again at the newest page; only the pager moves the cursor.
  const update = (patch: Partial<EventFilter>) => {
    const next = { ...filter, cursor: '', ...patch };
    const qs = new URLSearchParams();
    if (next.balancerId) qs.set('balancerId', next.balancerId);
    if (next.nodeId) qs.set('nodeId', next.nodeId);
    if (next.type) qs.set('type', next.type);
    if (next.limit !== 50) qs.set('limit', String(next.limit));
    if (next.within) qs.set('within', next.within);
    if (next.cursor) qs.set('cursor', next.cursor);
    const s = qs.toString();
    router.replace(s ? `${pathname}?${s}` : pathname, { scroll: false });
  };

  return (
    <>
      <div className="toolbar" role="search" aria-label="Filter events">
        <label htmlFor="ev-balancer">Balancer</label>
        <select
          id="ev-balancer"
          value={filter.balancerId}
          onChange={(e) => update({ balancerId: e.target.value, nodeId: '' })}
        >
          <option value="">All balancers</option>
          {(fleet.data ?? []).map((r) => (
            <option key={r.id} value={r.id}>
              {r.name}
            </option>
          ))}
        </select>
        {filter.balancerId || filter.nodeId ? (
          <>
            <label htmlFor="ev-node">Node</label>
            <select id="ev-node" value={filter.nodeId} onChange={(e) => update({ nodeId: e.target.value })}>
              <option value="">All nodes</option>
              {filter.nodeId && !nodeOptions.some(([id]) => id === filter.nodeId) ? (
                <option value={filter.nodeId}>{nodeNames.get(filter.nodeId) ?? filter.nodeId}</option>
              ) : null}
              {nodeOptions.map(([id, label]) => (
                <option key={id} value={id}>
                  {label}
                </option>
              ))}
            </select>
          </>
        ) : null}
        <label htmlFor="ev-type">Type</label>
        <select id="ev-type" value={filter.type} onChange={(e) => update({ type: e.target.value })}>
          <option value="">All types</option>
          {EVENT_TYPES.map((t) => (
            <option key={t} value={t}>
              {EVENT_LABELS[t]} ({t})
            </option>
          ))}
        </select>
        <label htmlFor="ev-within">Time</label>
        <select
          id="ev-within"
          value={filter.within}
          onChange={(e) => update({ within: e.target.value as EventFilter['within'] })}
        >
          <option value="">Any time</option>
          <option value="1h">Last hour</option>
          <option value="24h">Last 24 hours</option>
          <option value="7d">Last 7 days</option>
        </select>
        <label htmlFor="ev-limit">Show</label>
        <select
          id="ev-limit"
          value={filter.limit}
          onChange={(e) => update({ limit: Number(e.target.value) })}
        >
          {EVENT_LIMITS.map((n) => (
            <option key={n} value={n}>
              {n} a page
            </option>
          ))}
        </select>
      </div>
      {events.error ? <LoadError error={events.error} what="events" /> : null}
      {events.isPending ? <Loading what="events" /> : null}
      {events.data ? (
        <div className="panel">
          {events.data.items.length === 0 ? (
            <div className="empty">
              <h2>
                No events
                {filter.cursor
                  ? ' older than the page before'
                  : filter.balancerId || filter.nodeId || filter.type || filter.within
                    ? ' match this filter'
                    : ' yet'}
              </h2>
              <p>
                Events are recorded once per transition: divergence and convergence, node outages and
                recoveries, era changes, flapping, stuck rollouts and gates.
              </p>
            </div>
          ) : (
            <div className="table-wrap">
              <table className="data stack" data-testid="event-log">
                <thead>
                  <tr>
                    <th>Time (UTC)</th>
                    <th>Event</th>
                    <th>Balancer</th>
                    <th>Node</th>
                    <th>Detail</th>
                  </tr>
                </thead>
                <tbody>
                  {events.data.items.map((e) => {
                    const look = eventLook(e.type);
                    return (
                      <tr key={e.id} data-testid="event-row" data-type={e.type}>
                        <td className="nowrap" data-label="Time (UTC)">
                          <When at={e.at} stamp={stamp} />
                        </td>
                        <td data-label="Event">
                          <Badge p={{ ...look, hint: e.type }} />
                        </td>
                        <td className="nowrap" data-label="Balancer">
                          <Link href={`/balancers/${encodeURIComponent(e.balancerId)}`}>
                            {names.get(e.balancerId) ?? e.balancerId}
                          </Link>
                        </td>
                        <td data-label="Node">
                          {e.nodeId ? (
                            <>
                              <Link className="mono" href={`/nodes/${encodeURIComponent(e.nodeId)}`}>
                                {nodeNames.get(e.nodeId) ?? e.nodeId}
                              </Link>
                              {filter.nodeId !== e.nodeId ? (
                                <>
                                  {' '}
                                  <button
                                    type="button"
                                    className="btn btn-small"
                                    data-testid="filter-node"
                                    aria-label={`Only events of ${nodeNames.get(e.nodeId) ?? e.nodeId}`}
                                    onClick={() =>
                                      update({ balancerId: e.balancerId, nodeId: e.nodeId ?? '' })
                                    }
                                  >
                                    only this node
                                  </button>
                                </>
                              ) : null}
                            </>
                          ) : (
                            <span className="muted">—</span>
                          )}
                        </td>
                        <td data-label="Detail">{withNodeNames(describeEvent(e), nodeNames)}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )}
          <Pager
            shown={events.data.items.length}
            older={events.data.nextCursor}
            paged={filter.cursor !== ''}
            onOlder={(cursor) => update({ ...filter, cursor })}
            onNewest={() => update({ ...filter, cursor: '' })}
          />
        </div>
      ) : null}
    </>
  );
}

/** Below the log: older pages by cursor, and back to the newest. */
function Pager(props: {
  shown: number;
  older: string | null;
  paged: boolean;
  onOlder: (cursor: string) => void;
  onNewest: () => void;
}) {
  if (!props.older && !props.paged) return null;
  return (
    <nav className="panel-body toolbar" aria-label="Event pages" data-testid="event-pager">
      <span className="muted">
        {props.paged ? `${props.shown} older events` : `the newest ${props.shown} events`}
      </span>
      {props.paged ? (
        <button type="button" className="btn btn-small" onClick={props.onNewest} data-testid="events-newest">
          ← Newest
        </button>
      ) : null}
      {props.older ? (
        <button
          type="button"
          className="btn btn-small"
          onClick={() => props.onOlder(props.older ?? '')}
          data-testid="events-older"
        >
          Older →
        </button>
      ) : (
        <span className="muted">no older events</span>
      )}
    </nav>
  );
}
