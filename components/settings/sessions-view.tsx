'use client';
// The live dashboard sessions, for admins: who is signed in, with which role, since when, until when, from
// which address, and "End session" for anyone else's (ending one's own is "Log out"). Others see why not.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ActionError } from '@/components/balancers/balancer-actions';
import { RoleGate, useRole } from '@/components/session/role';
import { Age } from '@/components/ui/age';
import { Badge } from '@/components/ui/badge';
import { LoadError, Loading } from '@/components/ui/query-state';
import { browserFetcher } from '@/lib/query/fetch-json';
import { endSession } from '@/lib/query/mutations';
import { queryKeys, sessionsQuery } from '@/lib/query/options';
import type { DashboardSession } from '@/lib/schemas/session';

export function SessionsView() {
  return (
    <section className="panel" aria-labelledby="sessions-h">
      <div className="panel-head">
        <h2 id="sessions-h">Sessions</h2>
        <span className="muted">everyone signed in to the dashboard now</span>
      </div>
      <RoleGate need="admin" what="Seeing and ending other people’s sessions">
        <SessionList />
      </RoleGate>
    </section>
  );
}

function who(s: DashboardSession): { name: string; detail: string | null } {
  if (s.user === null) return { name: 'admin secret', detail: null };
  const name = s.user.name ?? s.user.email ?? s.user.sub;
  return { name, detail: s.user.email && s.user.email !== name ? s.user.email : null };
}

function SessionList() {
  const client = useQueryClient();
  const { role } = useRole();
  // Asked for once the role is known to be admin (an admin's first paint has the server's prefetch).
  const sessions = useQuery({ ...sessionsQuery(browserFetcher), enabled: role === 'admin' });
  const end = useMutation({
    mutationFn: (id: string) => endSession(browserFetcher, id),
    onSettled: () => client.invalidateQueries({ queryKey: queryKeys.sessions }),
  });
  return (
    <>
      <ActionError error={end.error} />
      {sessions.isPending ? <Loading what="sessions" /> : null}
      {sessions.error && !sessions.data ? <LoadError error={sessions.error} what="sessions" /> : null}
      {sessions.data && sessions.data.length === 0 ? (
        <p className="panel-body muted">No live sessions.</p>
      ) : null}
      {sessions.data && sessions.data.length > 0 ? (
        <div className="table-wrap">
          <table className="data stack" data-testid="session-list">
            <thead>
              <tr>
                <th>User</th>
                <th>Role</th>
                <th>Signed in with</th>
                <th>Issued</th>
                <th>Expires</th>
                <th>Address</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {sessions.data.map((s) => {
                const { name, detail } = who(s);
                return (
                  <tr
                    key={s.id}
                    data-testid="session-row"
                    data-session={s.id}
                    data-user={s.user?.sub ?? 'admin-secret'}
                    data-current={s.current ? 'true' : undefined}
                  >
                    <td data-label="User">
                      {name}
                      {detail ? <span className="muted"> · {detail}</span> : null}
                    </td>
                    <td data-label="Role">{s.role}</td>
                    <td data-label="Sign-in">{s.issuedVia === 'sso' ? 'single sign-on' : 'admin secret'}</td>
                    <td data-label="Issued">
                      <Age at={s.issuedAt} />
                    </td>
                    <td data-label="Expires">
                      <Age at={s.expiresAt} />
                    </td>
                    <td data-label="Address" className="mono">
                      {s.address ?? <span className="muted">—</span>}
                    </td>
                    <td>
                      {s.current ? (
                        <Badge
                          p={{
                            label: 'This session',
                            icon: 'info',
                            tone: 'info',
                            hint: 'the session this browser uses; end it with Log out',
                          }}
                          testId="session-current"
                        />
                      ) : (
                        <button
                          type="button"
                          className="btn btn-small btn-danger"
                          disabled={end.isPending}
                          onClick={() => {
                            if (
                              window.confirm(
                                `End the session of ${name}? Their next request is refused and they must sign in again.`,
                              )
                            )
                              end.mutate(s.id);
                          }}
                        >
                          End session
                        </button>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
    </>
  );
}
