import { HydrationBoundary, dehydrate } from '@tanstack/react-query';
import type { Metadata } from 'next';
import { EndpointsView } from '@/components/endpoints/endpoints-view';
import { makeQueryClient } from '@/lib/query/make-query-client';
import { webhooksQuery } from '@/lib/query/options';
import { makeServerFetcher } from '@/lib/query/server-fetcher';

export const metadata: Metadata = { title: 'Webhooks' };

export default async function WebhooksPage() {
  const client = makeQueryClient();
  await client.prefetchQuery(webhooksQuery(await makeServerFetcher()));
  return (
    <>
      <div className="page-head">
        <h1>Webhooks</h1>
        <span className="sub">
          Signed (Standard Webhooks) deliveries of fleet events, with retries and a log.
        </span>
      </div>
      <HydrationBoundary state={dehydrate(client)}>
        <EndpointsView kind="webhook" />
      </HydrationBoundary>
    </>
  );
}
