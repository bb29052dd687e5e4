import { HydrationBoundary, dehydrate } from '@tanstack/react-query';
import type { Metadata } from 'next';
import { StdioTargetView } from '@/components/stdio/stdio-target-view';
import { makeQueryClient } from '@/lib/query/make-query-client';
import { makeServerFetcher } from '@/lib/query/server-fetcher';
import { stdioTargetQuery } from '@/lib/query/stdio';

export const metadata: Metadata = { title: 'stdio server' };

export default async function StdioTargetPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const client = makeQueryClient();
  await client.prefetchQuery(stdioTargetQuery(await makeServerFetcher(), id));
  return (
    <HydrationBoundary state={dehydrate(client)}>
      <StdioTargetView id={id} />
    </HydrationBoundary>
  );
}
