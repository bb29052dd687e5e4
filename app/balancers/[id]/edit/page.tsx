import type { Metadata } from 'next';
import Link from 'next/link';
import { RoleGate } from '@/components/session/role';
import { notFound } from 'next/navigation';
import { BalancerForm } from '@/components/balancers/balancer-form';
import { LoadError } from '@/components/ui/query-state';
import { NotFoundError } from '@/lib/errors';
import { pageRead } from '@/lib/api/page-read';
import type { BalancerDetail } from '@/lib/query/types';
import { formFromBalancer } from '@/lib/query/balancer-form';

export const metadata: Metadata = { title: 'Edit balancer' };

export default async function EditBalancerPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  let balancer: BalancerDetail;
  try {
    balancer = await pageRead('dashboardBalancer', { params: { id } });
  } catch (err) {
    if (err instanceof NotFoundError) notFound();
    return <LoadError error={err} what="the balancer" />;
  }
  return (
    <>
      <div className="crumbs">
        <Link href="/">Fleet</Link> /{' '}
        <Link href={`/balancers/${encodeURIComponent(id)}`}>{balancer.name}</Link> / edit
      </div>
      <div className="page-head">
        <h1>Edit {balancer.name}</h1>
        <span className="sub">Header values stay hidden; leave [redacted] to keep a stored value.</span>
      </div>
      <RoleGate need="operator" what="Editing balancers">
        <BalancerForm mode="edit" id={id} initial={formFromBalancer(balancer)} />
      </RoleGate>
    </>
  );
}
