import { HydrationBoundary, dehydrate } from '@tanstack/react-query';
import type { Metadata } from 'next';
import { EventsView } from '@/components/events/events-view';
import { makeQueryClient } from '@/lib/query/make-query-client';
import {
  EVENT_WINDOWS,
  eventsQueryParams,
  queryKeys,
  type EventFilter,
  type EventWindow,
} from '@/lib/query/options';
import { prefetchRead } from '@/lib/api/page-read';
import { EVENT_TYPES } from '@/lib/rollout/types';
import { EVENT_LIMITS } from '@/lib/ui/events';

export const metadata: Metadata = { title: 'Events' };

function one(v: string | string[] | undefined): string {
  return typeof v === 'string' ? v : '';
}

/** Reads the filter from the URL, dropping what the API would refuse so a bad link still shows the log. */
function readFilter(sp: Record<string, string | string[] | undefined>): EventFilter {
  const id = (v: string) => (/^[A-Za-z0-9_-]{1,64}$/.test(v) ? v : '');
  const balancerId = id(one(sp.balancerId));
  const type = (EVENT_TYPES as readonly string[]).includes(one(sp.type)) ? one(sp.type) : '';
  const limit = Number(one(sp.limit));
  const within = Object.hasOwn(EVENT_WINDOWS, one(sp.within)) ? (one(sp.within) as EventWindow) : '';
  return {
    balancerId,
    type,
    limit: (EVENT_LIMITS as readonly number[]).includes(limit) ? limit : 50,
    within,
    nodeId: id(one(sp.nodeId)),
    cursor: /^[A-Za-z0-9_-]{1,200}$/.test(one(sp.cursor)) ? one(sp.cursor) : '',
  };
}

export default async function EventsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const filter = readFilter(await searchParams);
  const client = makeQueryClient();
  await Promise.all([
    prefetchRead(
      client,
      queryKeys.events(filter),
      'listEvents',
      { query: (now) => eventsQueryParams(filter, now) },
      (r) => r,
    ),
    prefetchRead(client, queryKeys.fleet, 'dashboardFleet', {}, (r) => r.rows),
  ]);
  return (
    <>
      <div className="page-head">
        <h1>Events</h1>
        <span className="sub">Every transition, recorded once, newest first.</span>
      </div>
      <HydrationBoundary state={dehydrate(client)}>
        <EventsView filter={filter} />
      </HydrationBoundary>
    </>
  );
}
