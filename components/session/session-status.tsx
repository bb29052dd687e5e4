'use client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { browserFetcher, sendJson } from '@/lib/query/fetch-json';
import { useSessionInfo } from './role';

/**
 * Who is signed in, their role and "Log out" when a dashboard session is in use; nothing in local mode, where
 * no login exists. A single sign-on user is then sent to the provider's logout when it has one.
 */
export function SessionStatus() {
  const client = useQueryClient();
  const router = useRouter();
  const session = useSessionInfo();
  const logout = useMutation({
    mutationFn: () => sendJson<{ endSessionUrl?: string }>(browserFetcher, 'DELETE', '/api/v1/session'),
    onSuccess: (res) => {
      client.clear();
      if (res?.endSessionUrl) window.location.assign(res.endSessionUrl);
      else router.push('/login');
    },
  });
  if (!session.data?.loginRequired || !session.data.authenticated) return null;
  const { user, role } = session.data;
  const who = user ? (user.name ?? user.email ?? user.sub) : 'admin secret';
  return (
    <span className="topbar-session" data-testid="session-status">
      <span className="muted" title={user?.email ?? undefined}>
        <span className="who">{who}</span>
        {role ? (
          <span className="role-badge" data-testid="session-role">
            {role}
          </span>
        ) : null}
      </span>
      <button type="button" className="btn btn-small topbar-btn" onClick={() => logout.mutate()}>
        Log out
      </button>
    </span>
  );
}
