// The auth side of a verdict: what the node's WWW-Authenticate challenge said, the protected-resource
// metadata found (and whether it can be trusted), and the OAuth token step.
import { Badge } from '@/components/ui/badge';
import type { AuthEvidence } from '@/lib/probe/types';

const SOURCE_TEXT = {
  challenge: 'named by the challenge',
  path: 'well-known, path inserted',
  root: 'well-known, at the root',
} as const;

const CREDENTIAL_TEXT = {
  none: 'none sent',
  header: 'a static credential header',
  oauth: 'an OAuth access token (client credentials)',
} as const;

export function AuthEvidencePanel({ auth }: { auth: AuthEvidence }) {
  const c = auth.challenge;
  const m = auth.metadata;
  const t = auth.token;
  return (
    <div className="step" data-testid="auth-evidence">
      <div className="step-head">
        <span className="step-n">Authorization</span>
        {auth.httpStatus !== null ? (
          <Badge
            p={{
              label: `Auth-gated (${auth.httpStatus})`,
              icon: 'lock',
              tone: 'warn',
              hint: 'Auth status is never era evidence',
            }}
          />
        ) : (
          <Badge p={{ label: 'Let in', icon: 'unlock', tone: 'ok', hint: 'the credential was accepted' }} />
        )}
      </div>
      <dl className="kv">
        <dt>Credential</dt>
        <dd>{CREDENTIAL_TEXT[auth.credential]}</dd>
        {auth.httpStatus !== null ? (
          <>
            <dt>Challenge</dt>
            <dd className="mono" data-testid="auth-challenge">
              {c
                ? [
                    c.scheme,
                    c.error ? `error=${c.error}` : null,
                    c.scope ? `scope="${c.scope}"` : null,
                    c.resourceMetadata ? `resource_metadata=${c.resourceMetadata}` : null,
                  ]
                    .filter(Boolean)
                    .join(' · ')
                : (auth.detail ?? 'no challenge')}
            </dd>
          </>
        ) : null}
        {auth.metadataAttempts.length > 0 ? (
          <>
            <dt>Metadata lookups</dt>
            <dd>
              <ul className="checks">
                {auth.metadataAttempts.map((a) => (
                  <li key={a.url} className="mono">
                    {a.outcome} · {a.httpStatus ?? 'no response'} · {a.url}{' '}
                    <span className="muted">({SOURCE_TEXT[a.source]})</span>
                  </li>
                ))}
              </ul>
            </dd>
          </>
        ) : null}
        <dt>Protected resource</dt>
        <dd data-testid="auth-metadata">
          {m ? (
            <>
              <span className="mono">{m.resource ?? '—'}</span>{' '}
              {m.resourceMatches ? (
                <Badge
                  p={{ label: 'matches the URL', icon: 'check', tone: 'ok', hint: 'resource matches' }}
                />
              ) : (
                <Badge
                  p={{
                    label: 'resource mismatch: not trusted',
                    icon: 'alert',
                    tone: 'bad',
                    hint: 'the metadata names another resource; its authorization servers are not used',
                  }}
                />
              )}
              <div className="mono muted">
                authorization servers: {m.authorizationServers.join(', ') || '—'} · scopes:{' '}
                {m.scopesSupported.join(' ') || '—'}
              </div>
            </>
          ) : (
            'no protected-resource metadata found'
          )}
        </dd>
        {t ? (
          <>
            <dt>Token</dt>
            <dd className="mono" data-testid="auth-token">
              {t.error ? `failed: ${t.error}${t.detail ? ` (${t.detail})` : ''}` : 'obtained'}
              {t.refreshed ? ' · refreshed after a 401' : ''}
              {t.tokenEndpoint ? ` · ${t.tokenEndpoint} (${t.endpointSource ?? '?'})` : ''}
            </dd>
          </>
        ) : null}
      </dl>
    </div>
  );
}
