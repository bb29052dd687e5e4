'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ActionError } from '@/components/balancers/balancer-actions';
import { Age } from '@/components/ui/age';
import { Badge } from '@/components/ui/badge';
import { Icon } from '@/components/ui/icon';
import { useRole } from '@/components/session/role';
import { LoadError, Loading } from '@/components/ui/query-state';
import { browserFetcher } from '@/lib/query/fetch-json';
import { createToken, revokeOwnerTokens, revokeToken } from '@/lib/query/mutations';
import { queryKeys, tokensQuery } from '@/lib/query/options';
import { ApiProblem } from '@/lib/query/problem';
import { TOKEN_SCOPES, type ApiToken, type TokenScope } from '@/lib/schemas/token';

/** The expiries the form offers, in days; 0 is none. */
const EXPIRIES = [
  { days: 0, label: 'never' },
  { days: 7, label: '7 days' },
  { days: 30, label: '30 days' },
  { days: 90, label: '90 days' },
  { days: 365, label: '1 year' },
] as const;

function tokenState(t: ApiToken, now: number): 'revoked' | 'expired' | 'active' {
  if (t.revokedAt !== null) return 'revoked';
  return t.expiresAt !== null && t.expiresAt <= now ? 'expired' : 'active';
}

/** The people who minted the tokens listed, for an admin's filter: createdBy → their name as shown. */
function ownersOf(tokens: readonly ApiToken[]): Array<{ key: string; name: string }> {
  const out = new Map<string, string>();
  for (const t of tokens) {
    if (t.createdBy !== null && !out.has(t.createdBy)) out.set(t.createdBy, t.createdByName ?? t.createdBy);
  }
  return [...out].map(([key, name]) => ({ key, name })).sort((a, b) => a.name.localeCompare(b.name));
}

export function TokensView() {
  const client = useQueryClient();
  const tokens = useQuery(tokensQuery(browserFetcher));
  const { role, can } = useRole();
  const [name, setName] = useState('');
  const [scope, setScope] = useState<TokenScope>('read');
  const [expiryDays, setExpiryDays] = useState<number>(0);
  const [owner, setOwner] = useState<string>('');
  const [shown, setShown] = useState<{ name: string; token: string } | null>(null);
  const refresh = () => client.invalidateQueries({ queryKey: queryKeys.tokens });
  const create = useMutation({
    mutationFn: () =>
      createToken(browserFetcher, {
        name,
        scope,
        ...(expiryDays > 0 ? { expiresAt: Date.now() + expiryDays * 86_400_000 } : {}),
      }),
    onSuccess: (t) => {
      setShown({ name: t.name, token: t.token });
      setName('');
      return refresh();
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => revokeToken(browserFetcher, id),
    onSettled: refresh,
  });
  const revokeAll = useMutation({
    mutationFn: (key: string) => revokeOwnerTokens(browserFetcher, key),
    onSettled: refresh,
  });
  // Expired as of the listing's own time.
  const now = tokens.dataUpdatedAt;
  const owners = role === 'admin' && tokens.data ? ownersOf(tokens.data) : [];
  const listed = tokens.data?.filter((t) => owner === '' || t.createdBy === owner);
  const ownerName = owners.find((o) => o.key === owner)?.name ?? owner;
  const problem = create.error instanceof ApiProblem ? create.error : null;
  const nameError = problem?.fieldMessage('/name') ?? null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <section className="panel" aria-labelledby="tokens-h">
      <div className="panel-head">
        <h2 id="tokens-h">API tokens</h2>
        <span className="muted">
          for CI and scripts: Authorization: Bearer &lt;token&gt;
          {role === 'admin' ? ' · everyone’s tokens' : ' · the tokens you minted'}
        </span>
      </div>
      <div className="panel-body">
        {shown ? (
          <div
            className="notice tone-warn"
            role="status"
            data-testid="token-once"
            style={{ display: 'block' }}
          >
            <p style={{ margin: '0 0 6px' }}>
              <strong>Token {shown.name}.</strong> Copy it now: it is stored hashed and shown only once.
            </p>
            <div className="secret">{shown.token}</div>
            <button
              type="button"
              className="btn btn-small"
              style={{ marginTop: 6 }}
              onClick={() => setShown(null)}
            >
              I have stored it
            </button>
          </div>
        ) : null}
        <form className="toolbar" onSubmit={submit} noValidate aria-label="Create API token">
          <label htmlFor="tok-name">Name</label>
          <input
            id="tok-name"
            type="text"
            value={name}
            onChange={(e) => setName(e.target.value)}
            aria-invalid={nameError ? true : undefined}
          />
          <label htmlFor="tok-scope">Scope</label>
          <select id="tok-scope" value={scope} onChange={(e) => setScope(e.target.value as TokenScope)}>
            {TOKEN_SCOPES.map((s) => (
              <option key={s} value={s} disabled={s === 'write' && !can('operator')}>
                {s}
                {s === 'write' && !can('operator') ? ' (needs the operator role)' : ''}
              </option>
            ))}
          </select>
          <label htmlFor="tok-expiry">Expires</label>
          <select id="tok-expiry" value={expiryDays} onChange={(e) => setExpiryDays(Number(e.target.value))}>
            {EXPIRIES.map((x) => (
              <option key={x.days} value={x.days}>
                {x.days === 0 ? x.label : `in ${x.label}`}
              </option>
            ))}
          </select>
          <button type="submit" className="btn btn-primary" disabled={create.isPending}>
            Create token
          </button>
          {nameError ? (
            <span className="field-error" data-testid="error-tok-name">
              <Icon name="alert" /> name {nameError}
            </span>
          ) : null}
        </form>
        {create.error && !nameError ? <ActionError error={create.error} /> : null}
        <ActionError error={revoke.error} />
        {owners.length > 0 ? (
          <div className="toolbar" aria-label="One person’s tokens">
            <label htmlFor="tok-owner">Person</label>
            <select id="tok-owner" value={owner} onChange={(e) => setOwner(e.target.value)}>
              <option value="">everyone</option>
              {owners.map((o) => (
                <option key={o.key} value={o.key}>
                  {o.name}
                </option>
              ))}
            </select>
            {owner !== '' ? (
              <button
                type="button"
                className="btn btn-small btn-danger"
                data-testid="revoke-owner-tokens"
                disabled={revokeAll.isPending}
                onClick={() => {
                  if (window.confirm(`Revoke every token of ${ownerName}? They stop working at once.`))
                    revokeAll.mutate(owner);
                }}
              >
                Revoke all of {ownerName}’s tokens
              </button>
            ) : null}
          </div>
        ) : null}
        <ActionError error={revokeAll.error} />
      </div>
      {tokens.isPending ? <Loading what="tokens" /> : null}
      {tokens.error && !tokens.data ? <LoadError error={tokens.error} what="tokens" /> : null}
      {tokens.data && tokens.data.length === 0 ? <p className="panel-body muted">No tokens yet.</p> : null}
      {listed && listed.length > 0 ? (
        <div className="table-wrap">
          <table className="data stack" data-testid="token-list">
            <thead>
              <tr>
                <th>Name</th>
                <th>Scope</th>
                <th>Prefix</th>
                <th>Created</th>
                <th>By</th>
                <th>Last used</th>
                <th>Expires</th>
                <th>State</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {listed.map((t) => (
                <tr key={t.id} data-testid="token-row" data-name={t.name}>
                  <td data-label="Name">{t.name}</td>
                  <td data-label="Scope">{t.scope}</td>
                  <td data-label="Prefix" className="mono">
                    {t.prefix}…
                  </td>
                  <td data-label="Created">
                    <Age at={t.createdAt} />
                  </td>
                  <td data-label="By">{t.createdByName ?? <span className="muted">—</span>}</td>
                  <td data-label="Last used">
                    {t.lastUsedAt ? <Age at={t.lastUsedAt} /> : <span className="muted">never</span>}
                  </td>
                  <td data-label="Expires">
                    {t.expiresAt ? (
                      <time dateTime={new Date(t.expiresAt).toISOString()}>
                        {new Date(t.expiresAt).toISOString().slice(0, 16).replace('T', ' ')} UTC
                      </time>
                    ) : (
                      <span className="muted">never</span>
                    )}
                  </td>
                  <td data-label="State">
                    {tokenState(t, now) === 'revoked' ? (
                      <Badge
                        p={{ label: 'Revoked', icon: 'lock', tone: 'muted', hint: 'no longer accepted' }}
                      />
                    ) : tokenState(t, now) === 'expired' ? (
                      <Badge
                        p={{ label: 'Expired', icon: 'lock', tone: 'muted', hint: 'no longer accepted' }}
                      />
                    ) : (
                      <Badge p={{ label: 'Active', icon: 'check', tone: 'ok', hint: 'accepted' }} />
                    )}
                  </td>
                  <td>
                    {tokenState(t, now) !== 'active' ? null : (
                      <button
                        type="button"
                        className="btn btn-small btn-danger"
                        onClick={() => {
                          if (window.confirm(`Revoke the token ${t.name}? It stops working at once.`))
                            revoke.mutate(t.id);
                        }}
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
