import type { Metadata } from 'next';
import Link from 'next/link';
import { RoleGate } from '@/components/session/role';
import { BalancerForm } from '@/components/balancers/balancer-form';
import { EMPTY_FORM } from '@/lib/query/balancer-form';

export const metadata: Metadata = { title: 'Register balancer' };

export default function NewBalancerPage() {
  return (
    <>
      <div className="crumbs">
        <Link href="/">Fleet</Link> / register
      </div>
      <div className="page-head">
        <h1>Register a balancer</h1>
        <span className="sub">
          Erawatch probes it on its interval and flags nodes that answer differently.
        </span>
      </div>
      <RoleGate need="operator" what="Registering balancers">
        <BalancerForm mode="create" initial={EMPTY_FORM} />
      </RoleGate>
    </>
  );
}
