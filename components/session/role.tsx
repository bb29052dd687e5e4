'use client';
// What the signed-in person may do, for hiding or disabling what their role may not (the API refuses it
// anyway). Reads the same session query as the top bar. While it loads, or in local mode, nothing is hidden.
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { Icon } from '@/components/ui/icon';
import { browserFetcher, requestJson } from '@/lib/query/fetch-json';
import { USER_ROLES, type SessionUser, type UserRole } from '@/lib/schemas/session';

export interface SessionInfo {
  authenticated: boolean;
  via: string;
  loginRequired: boolean;
  role: UserRole | null;
  user: SessionUser | null;
  sso: boolean;
}

export function useSessionInfo() {
  return useQuery({
    queryKey: ['session'],
    queryFn: () => requestJson<SessionInfo>(browserFetcher, '/api/v1/session'),
    refetchInterval: 60_000,
  });
}

const atLeast = (role: UserRole, need: UserRole) => USER_ROLES.indexOf(role) >= USER_ROLES.indexOf(need);

/** The caller's role, and whether it reaches `need` (true while unknown: the API has the last word). */
export function useRole(): { role: UserRole | null; can: (need: UserRole) => boolean } {
  const session = useSessionInfo();
  const role = session.data?.role ?? null;
  return { role, can: (need) => role === null || atLeast(role, need) };
}

const article = (r: string) => (r === 'admin' || r === 'operator' ? `an ${r}` : `a ${r}`);

/** Why something is not offered: "Registering balancers needs the operator role; you are signed in as a viewer." */
export function roleReason(what: string, need: UserRole, role: UserRole | null): string {
  return `${what} needs the ${need} role; you are signed in as ${role ? article(role) : 'nobody'}.`;
}

/** Its children when the role reaches `need`; else a short note saying why they are not there. */
export function RoleGate({
  need,
  what,
  children,
  quiet = false,
}: {
  need: UserRole;
  /** What the children do, for the note: "Registering balancers". */
  what: string;
  children: ReactNode;
  /** Show nothing at all instead of the note (a second place on the same page). */
  quiet?: boolean;
}) {
  const { role, can } = useRole();
  if (can(need)) return <>{children}</>;
  if (quiet) return null;
  return (
    <p className="muted role-note" data-testid="role-note">
      <Icon name="info" /> {roleReason(what, need, role)}
    </p>
  );
}

/** The login page's link, named for how this server signs in. */
export function LoginLink() {
  const session = useSessionInfo();
  return <Link href="/login">{session.data?.sso ? 'Sign in' : 'Log in with the admin secret'}</Link>;
}
