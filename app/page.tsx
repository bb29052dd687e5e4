import { HydrationBoundary, dehydrate } from '@tanstack/react-query';
import type { Metadata } from 'next';
import Link from 'next/link';
import { RoleGate } from '@/components/session/role';
import { FleetView } from '@/components/balancers/fleet-view';
import { makeQueryClient } from '@/lib/query/make-query-client';
import { queryKeys } from '@/lib/query/options';
import { prefetchRead } from '@/lib/api/page-read';

// The root segment's own page gets no title template (it applies to child segments only): spelled out.
export const metadata: Metadata = { title: { absolute: 'Fleet · Erawatch' } };

export default async function FleetPage() {
  const client = makeQueryClient();
  await prefetchRead(client, queryKeys.fleet, 'dashboardFleet', {}, (r) => r.rows);
  return (
    <>
      <div className="page-head">
        <h1>Fleet</h1>
        <span className="sub">
          Is any balancer giving contradictory answers? Non-uniform balancers are listed first.
        </span>
        <span className="spacer" />
        <RoleGate need="operator" what="Registering balancers" quiet>
          <Link className="btn btn-primary" href="/balancers/new">
            Register balancer
          </Link>
        </RoleGate>
      </div>
      <HydrationBoundary state={dehydrate(client)}>
        <FleetView />
      </HydrationBoundary>
    </>
  );
}
