import { HydrationBoundary, dehydrate } from '@tanstack/react-query';
import type { Metadata } from 'next';
import { EndpointsView } from '@/components/endpoints/endpoints-view';
import { makeQueryClient } from '@/lib/query/make-query-client';
import { queryKeys } from '@/lib/query/options';
import { prefetchRead } from '@/lib/api/page-read';

export const metadata: Metadata = { title: 'Alert sinks' };

export default async function AlertSinksPage() {
  const client = makeQueryClient();
  await prefetchRead(client, queryKeys.alertSinks, 'listAlertSinks', {}, (r) => r.items);
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
