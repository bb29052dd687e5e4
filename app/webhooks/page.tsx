import { HydrationBoundary, dehydrate } from '@tanstack/react-query';
import type { Metadata } from 'next';
import { EndpointsView } from '@/components/endpoints/endpoints-view';
import { makeQueryClient } from '@/lib/query/make-query-client';
import { queryKeys } from '@/lib/query/options';
import { prefetchRead } from '@/lib/api/page-read';

export const metadata: Metadata = { title: 'Webhooks' };

export default async function WebhooksPage() {
  const client = makeQueryClient();
  await prefetchRead(client, queryKeys.webhooks, 'listWebhooks', {}, (r) => r.items);
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
