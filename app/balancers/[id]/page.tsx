import { HydrationBoundary, dehydrate } from '@tanstack/react-query';
import type { Metadata } from 'next';
import { BalancerView } from '@/components/balancers/balancer-view';
import { notFound } from 'next/navigation';
import { answeredNotFound, makeQueryClient } from '@/lib/query/make-query-client';
import { balancerEventsParams, queryKeys } from '@/lib/query/options';
import { prefetchRead } from '@/lib/api/page-read';

export const metadata: Metadata = { title: 'Balancer' };

export default async function BalancerPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const client = makeQueryClient();
  const path = { id };
  await Promise.all([
    prefetchRead(client, queryKeys.balancer(id), 'dashboardBalancer', { params: path }, (r) => r),
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
