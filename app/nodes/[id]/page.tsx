import { HydrationBoundary, dehydrate } from '@tanstack/react-query';
import type { Metadata } from 'next';
import { NodeView } from '@/components/nodes/node-view';
import { notFound } from 'next/navigation';
import { answeredNotFound, makeQueryClient } from '@/lib/query/make-query-client';
import { nodeHistoryQuery, nodeQuery, nodeRollupsQuery } from '@/lib/query/options';
import { makeServerFetcher } from '@/lib/query/server-fetcher';

export const metadata: Metadata = { title: 'Node' };

export default async function NodePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const fetcher = await makeServerFetcher();
  const client = makeQueryClient();
  await Promise.all([
    client.prefetchQuery(nodeQuery(fetcher, id)),
    client.prefetchQuery(nodeHistoryQuery(fetcher, id)),
    client.prefetchQuery(nodeRollupsQuery(fetcher, id)),
  ]);
  if (answeredNotFound(client, nodeQuery(fetcher, id).queryKey)) notFound();
  return (
    <HydrationBoundary state={dehydrate(client)}>
      <NodeView id={id} />
    </HydrationBoundary>
  );
}
