'use client';
// The audit trail: who changed what, from where, field by field; filtered by subject and actor, paged with
// the API's cursor ("Older entries").
import { useInfiniteQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { RoleGate } from '@/components/session/role';
import { Age } from '@/components/ui/age';
import { LoadError, Loading } from '@/components/ui/query-state';
import { browserFetcher, requestJson } from '@/lib/query/fetch-json';
import type { AuditEntry } from '@/lib/schemas/audit';

interface Page {
  items: AuditEntry[];
  nextCursor: string | null;
}

function actorText(a: AuditEntry['actor']): string {
  switch (a.kind) {
    case 'user':
      return a.name ?? a.id ?? 'a user';
    case 'token':
      return `token ${a.name ?? ''} (${a.id ?? '?'})`;
    case 'admin_secret':
      return 'the admin secret';
    case 'config':
      return 'the config file';
    case 'local':
      return 'local mode';
  }
}

function shown(v: unknown): string {
  if (v === null || v === undefined) return '—';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

export function AuditView() {
  const [subject, setSubject] = useState('');
  const [actor, setActor] = useState('');
  const [filter, setFilter] = useState({ subject: '', actor: '' });
  const trail = useInfiniteQuery({
    queryKey: ['audit', filter],
    initialPageParam: null as string | null,
    queryFn: ({ pageParam }) => {
      const q = new URLSearchParams({ limit: '50' });
      if (filter.subject) q.set('subject', filter.subject);
      if (filter.actor) q.set('actor', filter.actor);
      if (pageParam) q.set('cursor', pageParam);
      return requestJson<Page>(browserFetcher, `/api/v1/audit?${q}`);
    },
    getNextPageParam: (last) => last.nextCursor,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setFilter({ subject: subject.trim(), actor: actor.trim() });
  };
  const entries = trail.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <RoleGate need="admin" what="The audit log">
      <section className="panel">
        <form className="toolbar panel-body" onSubmit={submit} aria-label="Filter the audit log">
          <label htmlFor="audit-subject">Subject id</label>
          <input id="audit-subject" value={subject} onChange={(e) => setSubject(e.target.value)} />
          <label htmlFor="audit-actor">Actor (id or kind)</label>
          <input id="audit-actor" value={actor} onChange={(e) => setActor(e.target.value)} />
          <button type="submit" className="btn">
            Filter
          </button>
        </form>
        {trail.isPending ? <Loading what="the audit log" /> : null}
        {trail.error && !trail.data ? <LoadError error={trail.error} what="the audit log" /> : null}
        {trail.data && entries.length === 0 ? <p className="panel-body muted">No entries.</p> : null}
        {entries.length > 0 ? (
          <div className="table-wrap">
            <table className="data stack" data-testid="audit-log">
              <thead>
                <tr>
                  <th>When</th>
                  <th>Who</th>
                  <th>From</th>
                  <th>What</th>
                  <th>Subject</th>
                  <th>Changes</th>
                </tr>
              </thead>
              <tbody>
                {entries.map((e) => (
                  <tr key={e.id} data-testid="audit-row" data-operation={e.operation}>
                    <td className="nowrap" data-label="When">
                      <Age at={e.at} />
                    </td>
                    <td data-testid="audit-actor" data-label="Who">
                      {actorText(e.actor)}
                    </td>
                    <td className="mono" data-label="From">
                      {e.actor.address ?? '—'}
                    </td>
                    <td className="mono" data-label="What">
                      {e.operation}
                    </td>
                    <td data-label="Subject">
                      {e.subject.name ?? e.subject.id} <span className="muted mono">{e.subject.type}</span>
                    </td>
                    <td data-label="Changes">
                      <ul className="audit-changes">
                        {Object.entries(e.changes).map(([field, c]) => (
                          <li key={field}>
                            <span className="mono">{field}</span>: <del>{shown(c.before)}</del> →{' '}
                            <ins>{shown(c.after)}</ins>
                          </li>
                        ))}
                      </ul>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
        {trail.hasNextPage ? (
          <div className="panel-body">
            <button
              type="button"
              className="btn"
              onClick={() => void trail.fetchNextPage()}
              disabled={trail.isFetchingNextPage}
            >
              Older entries
            </button>
          </div>
        ) : null}
      </section>
    </RoleGate>
  );
}
