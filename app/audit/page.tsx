import type { Metadata } from 'next';
import { AuditView } from '@/components/audit/audit-view';

export const metadata: Metadata = { title: 'Audit log' };

export default function AuditPage() {
  return (
    <>
      <div className="page-head">
        <h1>Audit log</h1>
        <span className="sub">
          Every change: who made it, from where, and each field before and after (secrets redacted).
        </span>
      </div>
      <AuditView />
    </>
  );
}
