import { HydrationBoundary, dehydrate } from '@tanstack/react-query';
import type { Metadata } from 'next';
import { StdioTargetView } from '@/components/stdio/stdio-target-view';
import { notFound } from 'next/navigation';
import { answeredNotFound, makeQueryClient } from '@/lib/query/make-query-client';
import { prefetchRead } from '@/lib/api/page-read';
import { stdioQueryKeys } from '@/lib/query/stdio';

export const metadata: Metadata = { title: 'stdio server' };

export default async function StdioTargetPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const client = makeQueryClient();
  await prefetchRead(client, stdioQueryKeys.one(id), 'getStdioTarget', { params: { id } }, (r) => r);
  if (answeredNotFound(client, stdioQueryKeys.one(id))) notFound();
  return (
    <HydrationBoundary state={dehydrate(client)}>
      <StdioTargetView id={id} />
    </HydrationBoundary>
  );
}
