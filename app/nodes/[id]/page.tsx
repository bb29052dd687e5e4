import { HydrationBoundary, dehydrate } from '@tanstack/react-query';
import type { Metadata } from 'next';
import { NodeView } from '@/components/nodes/node-view';
import { notFound } from 'next/navigation';
import { answeredNotFound, makeQueryClient } from '@/lib/query/make-query-client';
import { queryKeys } from '@/lib/query/options';
import { prefetchRead } from '@/lib/api/page-read';

export const metadata: Metadata = { title: 'Node' };

export default async function NodePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const client = makeQueryClient();
  const path = { id };
  await Promise.all([
    prefetchRead(client, queryKeys.node(id), 'getNode', { params: path }, (r) => r),
    prefetchRead(client, queryKeys.nodeHistory(id), 'getNodeHistory', { params: path }, (r) => r.items),
    prefetchRead(client, queryKeys.nodeRollups(id), 'dashboardNodeRollups', { params: path }, (r) => r.items),
  ]);
  if (answeredNotFound(client, queryKeys.node(id))) notFound();
  return (
    <HydrationBoundary state={dehydrate(client)}>
      <NodeView id={id} />
    </HydrationBoundary>
  );
}
