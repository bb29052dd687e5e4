import { HydrationBoundary, dehydrate } from '@tanstack/react-query';
import type { Metadata } from 'next';
import { EndpointsView } from '@/components/endpoints/endpoints-view';
import { makeQueryClient } from '@/lib/query/make-query-client';
import { alertSinksQuery } from '@/lib/query/options';
import { makeServerFetcher } from '@/lib/query/server-fetcher';

export const metadata: Metadata = { title: 'Alert sinks' };

export default async function AlertSinksPage() {
  const client = makeQueryClient();
  await client.prefetchQuery(alertSinksQuery(await makeServerFetcher()));
  return (
    <>
      <div className="page-head">
        <h1>Alert sinks</h1>
        <span className="sub">
          Alertmanager receives Erawatch&apos;s alerts, re-sent while they fire and resolved when they clear.
        </span>
      </div>
      <HydrationBoundary state={dehydrate(client)}>
        <EndpointsView kind="alertmanager" />
      </HydrationBoundary>
    </>
  );
}
