import { HydrationBoundary, dehydrate } from '@tanstack/react-query';
import type { Metadata } from 'next';
import { BalancerView } from '@/components/balancers/balancer-view';
import { notFound } from 'next/navigation';
import { answeredNotFound, makeQueryClient } from '@/lib/query/make-query-client';
import { balancerEventsQuery, balancerNodesQuery, balancerQuery } from '@/lib/query/options';
import { makeServerFetcher } from '@/lib/query/server-fetcher';

export const metadata: Metadata = { title: 'Balancer' };

export default async function BalancerPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const fetcher = await makeServerFetcher();
  const client = makeQueryClient();
  await Promise.all([
    client.prefetchQuery(balancerQuery(fetcher, id)),
    client.prefetchQuery(balancerNodesQuery(fetcher, id)),
    client.prefetchQuery(balancerEventsQuery(fetcher, id)),
  ]);
  if (answeredNotFound(client, balancerQuery(fetcher, id).queryKey)) notFound();
  return (
    <HydrationBoundary state={dehydrate(client)}>
      <BalancerView id={id} />
    </HydrationBoundary>
  );
}
