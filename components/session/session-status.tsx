'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { browserFetcher, requestJson, sendJson } from '@/lib/query/fetch-json';

interface SessionInfo {
  authenticated: boolean;
  via: string;
  loginRequired: boolean;
}

/** "Log out" when a dashboard session is in use; nothing in local mode, where no login exists. */
export function SessionStatus() {
  const client = useQueryClient();
  const router = useRouter();
  const session = useQuery({
    queryKey: ['session'],
    queryFn: () => requestJson<SessionInfo>(browserFetcher, '/api/v1/session'),
    refetchInterval: 60_000,
  });
  const logout = useMutation({
    mutationFn: () => sendJson<unknown>(browserFetcher, 'DELETE', '/api/v1/session'),
    onSuccess: () => {
      client.clear();
      router.push('/login');
    },
  });
  if (!session.data?.loginRequired || !session.data.authenticated) return null;
  return (
    <button type="button" className="btn btn-small topbar-btn" onClick={() => logout.mutate()}>
      Log out
    </button>
  );
}
