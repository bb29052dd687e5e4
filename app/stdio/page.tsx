import { HydrationBoundary, dehydrate } from '@tanstack/react-query';
import type { Metadata } from 'next';
import { StdioList } from '@/components/stdio/stdio-list';
import { makeQueryClient } from '@/lib/query/make-query-client';
import { prefetchRead } from '@/lib/api/page-read';
import { stdioQueryKeys } from '@/lib/query/stdio';

export const metadata: Metadata = { title: 'stdio servers' };

export default async function StdioPage() {
  const client = makeQueryClient();
  await prefetchRead(client, stdioQueryKeys.list, 'listStdioTargets', {}, (r) => r.items);
  return (
    <>
      <div className="page-head">
        <h1>stdio servers</h1>
        <span className="sub">MCP servers the poller launches as commands, from the config file.</span>
      </div>
      <HydrationBoundary state={dehydrate(client)}>
        <StdioList />
      </HydrationBoundary>
    </>
  );
}
