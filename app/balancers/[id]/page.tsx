import { HydrationBoundary, dehydrate } from '@tanstack/react-query';
import type { Metadata } from 'next';
import { BalancerView } from '@/components/balancers/balancer-view';
import { notFound } from 'next/navigation';
import { answeredNotFound, makeQueryClient } from '@/lib/query/make-query-client';
import { balancerEventsParams, nodePageParams, queryKeys } from '@/lib/query/options';
import { prefetchRead } from '@/lib/api/page-read';
import { readMatrixQuery } from '@/lib/ui/node-filter';

export const metadata: Metadata = { title: 'Balancer' };

type SearchParams = Record<string, string | string[] | undefined>;

/** The page's query string as URLSearchParams (a repeated parameter counts once, its first value). */
function searchOf(sp: SearchParams): URLSearchParams {
  const out = new URLSearchParams();
  for (const [key, value] of Object.entries(sp)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) out.set(key, first);
  }
  return out;
}

export default async function BalancerPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const { id } = await params;
  // The matrix's first page as the URL filters and sorts it, so the first paint has its rows.
  const matrix = readMatrixQuery(searchOf(await searchParams));
  const client = makeQueryClient();
  const path = { id };
  await Promise.all([
    prefetchRead(client, queryKeys.balancer(id), 'dashboardBalancer', { params: path }, (r) => r),
    prefetchRead(
      client,
      queryKeys.balancerNodePages(id, matrix),
      'dashboardBalancerNodes',
      { params: path, query: Object.fromEntries(nodePageParams(matrix, null)) },
      (r) => ({ pages: [r], pageParams: [null] }),
    ),
    prefetchRead(
      client,
      queryKeys.balancerEvents(id),
      'listEvents',
      { query: balancerEventsParams(id) },
      (r) => r.items,
    ),
  ]);
  if (answeredNotFound(client, queryKeys.balancer(id))) notFound();
  return (
    <HydrationBoundary state={dehydrate(client)}>
      <BalancerView id={id} />
    </HydrationBoundary>
  );
}
