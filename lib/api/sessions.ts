// Dashboard sessions as the API records them: a login (the admin secret's, or a single sign-on) records the
// session it issues with the login's audit entry, in one transaction, so an admin can list and end it.
import { recordDashboardSession } from '@/db/queries/sessions';
import type { Session } from '@/lib/auth/session';
import type { SessionIssuer, SessionUser } from '@/lib/schemas/session';
import { auditAction, type AuditContext } from './audit';
import { clientAddress } from './front-door';

/** How a session is named in the audit trail: its user's email (or sub), or the admin secret. */
export function sessionName(user: SessionUser | null): string {
  return user ? (user.email ?? user.sub) : 'admin secret';
}

/** Records a session just issued, and its `session.login` audit entry (with `detail`), in one transaction. */
export function recordLogin(
  ctx: AuditContext,
  session: Session,
  issuedVia: SessionIssuer,
  detail: Record<string, unknown> = {},
): Promise<void> {
  return ctx.store.write(async () => {
    await recordDashboardSession(ctx.store, {
      id: session.sid,
      issuedVia,
      role: session.role,
      user: session.user,
      address: clientAddress(ctx.req, ctx.settings),
      issuedAt: ctx.now,
      expiresAt: session.expiresAt,
    });
    await auditAction(
      ctx,
      'session.login',
      { type: 'session', id: session.sid, name: sessionName(session.user) },
      detail,
    );
  });
}
