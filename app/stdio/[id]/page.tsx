import { HydrationBoundary, dehydrate } from '@tanstack/react-query';
import type { Metadata } from 'next';
import { StdioTargetView } from '@/components/stdio/stdio-target-view';
import { notFound } from 'next/navigation';
import { answeredNotFound, makeQueryClient } from '@/lib/query/make-query-client';
import { makeServerFetcher } from '@/lib/query/server-fetcher';
import { stdioTargetQuery } from '@/lib/query/stdio';

export const metadata: Metadata = { title: 'stdio server' };

export default async function StdioTargetPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const client = makeQueryClient();
  const query = stdioTargetQuery(await makeServerFetcher(), id);
  await client.prefetchQuery(query);
  if (answeredNotFound(client, query.queryKey)) notFound();
  return (
    <HydrationBoundary state={dehydrate(client)}>
      <StdioTargetView id={id} />
    </HydrationBoundary>
  );
}
