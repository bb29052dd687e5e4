// The auth side of one HTTP probe: the bearer token before discover (OAuth client credentials), one refresh
// when a cached token draws a 401, and the evidence of a refusal: the parsed challenge and the
// protected-resource metadata. Every side request is bounded and stays inside the probe's deadline.
// A URL a server names (a challenge's resource_metadata, a token endpoint from metadata) keeps the loopback
// exemption only on the target's own host (or the credential's issuer's, which the operator named).
import type { Dispatcher } from 'undici';
import { challengeEvidence } from './auth-challenge';
import { createSideFetch, type SideFetch } from './auth-http';
import { sharedTokenCache, type OAuthTokenCache, type TokenContext } from './oauth';
import { findProtectedResource } from './protected-resource';
import type { Exchange } from './transport';
import type {
  AuthEvidence,
  CredentialKind,
  OAuthClientCredentials,
  ProbeOptions,
  ProbeTarget,
} from './types';
import { probeDeadlineMs } from './types';

/** Header names that carry a credential: a refusal after sending one is `auth_failed`, not `auth_required`. */
const CREDENTIAL_HEADER = /^(authorization|proxy-authorization|cookie)$|key|token|secret|auth/i;

export function credentialOf(target: ProbeTarget): CredentialKind {
  if (target.oauth) return 'oauth';
  return Object.keys(target.headers ?? {}).some((h) => CREDENTIAL_HEADER.test(h)) ? 'header' : 'none';
}

export type Prepared = { ok: true; headers: Record<string, string> } | { ok: false; reason: string };

export class ProbeAuth {
  readonly credential: CredentialKind;
  evidence: AuthEvidence | null = null;
  private sideFetch: SideFetch | null = null;
  private namedSideFetch: SideFetch | null = null;
  private readonly sideFetchOptions: Parameters<typeof createSideFetch>[0];
  private readonly strictDispatcher: () => Dispatcher;
  private readonly ownOrigins: Set<string>;
  private readonly tokens: OAuthTokenCache;
  private readonly resource: string;
  private accessToken: string | null = null;
  private tokenScope: string | null = null;
  private tokenFromCache = false;
  private refreshed = false;

  constructor(
    private readonly target: ProbeTarget,
    options: ProbeOptions,
    deps: {
      dispatcher: Dispatcher;
      /** The same egress without the loopback exemption, built on first use; defaults to `dispatcher`. */
      strictDispatcher?: () => Dispatcher;
      now: () => number;
      tokens?: OAuthTokenCache;
    },
    started: number,
  ) {
    this.credential = credentialOf(target);
    this.tokens = deps.tokens ?? sharedTokenCache;
    // A refused node gets no retry after -32022 and no initialize: their share of the deadline is ours.
    const deadline = started + probeDeadlineMs(options);
    this.sideFetchOptions = { dispatcher: deps.dispatcher, deadline, now: deps.now };
    this.resource = target.oauth?.resource ?? target.publicUrl ?? target.url;
    this.strictDispatcher = deps.strictDispatcher ?? (() => deps.dispatcher);
    this.ownOrigins = new Set([originOf(target.url)]);
    if (target.oauth?.issuer) this.ownOrigins.add(originOf(target.oauth.issuer));
  }

  /**
   * For URLs a server named: the full egress on the target's (or issuer's) origin, no loopback elsewhere.
   * Origins, not host names: another port of the target's own host is another service (an admin port, a
   * database's HTTP interface), which a challenge must not be able to make the probe fetch.
   */
  private get namedFetch(): SideFetch {
    const strict = this.strictDispatcher;
    const full = this.sideFetchOptions.dispatcher;
    this.namedSideFetch ??= createSideFetch({
      ...this.sideFetchOptions,
      dispatcherFor: (url) => (this.ownOrigins.has(originOf(url.href)) ? full : strict()),
    });
    return this.namedSideFetch;
  }

  /** Built on first use: most probes carry no OAuth and draw no refusal, so they never fetch on the side. */
  private get fetch(): SideFetch {
    this.sideFetch ??= createSideFetch(this.sideFetchOptions);
    return this.sideFetch;
  }

  private ensureEvidence(): AuthEvidence {
    this.evidence ??= {
      credential: this.credential,
      httpStatus: null,
      challenge: null,
      metadataAttempts: [],
      metadata: null,
      token: null,
    };
    return this.evidence;
  }

  private accepted(): string[] {
    return [...new Set([this.target.url, this.resource, this.target.publicUrl ?? this.target.url])];
  }

  private context(oauth: OAuthClientCredentials): TokenContext {
    return {
      fetch: this.fetch,
      namedFetch: this.namedFetch,
      defaultResource: oauth.resource ?? this.resource,
      findMetadata: async () => {
        const found = await findProtectedResource(this.resource, null, this.accepted(), this.namedFetch);
        const ev = this.ensureEvidence();
        ev.metadataAttempts.push(...found.attempts);
        ev.metadata ??= found.metadata;
        return found.metadata;
      },
    };
  }

  private withToken(): Record<string, string> {
    const headers = { ...(this.target.headers ?? {}) };
    for (const name of Object.keys(headers)) if (name.toLowerCase() === 'authorization') delete headers[name];
    if (this.accessToken) headers.authorization = `Bearer ${this.accessToken}`;
    return headers;
  }

  /** The request headers for discover; with OAuth, a token first (a token failure is the verdict). */
  async prepare(): Promise<Prepared> {
    const oauth = this.target.oauth;
    if (!oauth) return { ok: true, headers: this.target.headers ?? {} };
    const got = await this.tokens.token(oauth, this.context(oauth));
    const ev = this.ensureEvidence();
    ev.token = { ...got.evidence, refreshed: false };
    if (!got.ok) return { ok: false, reason: `oauth_token_failed: ${got.evidence.error ?? 'unknown'}` };
    this.accessToken = got.accessToken;
    this.tokenScope = got.evidence.scope ?? null;
    this.tokenFromCache = got.fromCache;
    return { ok: true, headers: this.withToken() };
  }

  /**
   * After a refusal of our token, one new token: a cached token drew a 401, or (no scope configured) the
   * challenge names a scope the token was not asked with. Null when there is nothing to refresh (or it failed).
   */
  async refresh(status: number | null, header?: string | null): Promise<Record<string, string> | null> {
    const oauth = this.target.oauth;
    if (!oauth || this.refreshed || !this.accessToken) return null;
    const challengeScope = oauth.scope ? null : (challengeEvidence(header ?? null)?.scope ?? null);
    const wantsScope = challengeScope !== null && challengeScope !== this.tokenScope;
    const expired = status === 401 && this.tokenFromCache;
    if (!(status === 401 || status === 403) || !(expired || wantsScope)) return null;
    this.refreshed = true;
    const ctx = { ...this.context(oauth), challengeScope };
    this.tokens.invalidate(oauth, ctx, this.accessToken);
    const got = await this.tokens.token(oauth, ctx);
    const ev = this.ensureEvidence();
    ev.token = { ...got.evidence, refreshed: got.ok };
    if (!got.ok) return null;
    this.accessToken = got.accessToken;
    this.tokenScope = got.evidence.scope ?? null;
    return this.withToken();
  }

  /** Records a 401/403 and looks for the metadata; returns the verdict's reason. */
  async refused(ex: Exchange): Promise<string> {
    const ev = this.ensureEvidence();
    ev.httpStatus = ex.httpStatus;
    ev.challenge = challengeEvidence(ex.challenge ?? null);
    if (!ev.challenge) ev.detail = 'no challenge';
    // Metadata found while discovering the token endpoint is already in the evidence.
    if (!ev.metadata) {
      const found = await findProtectedResource(
        this.target.url,
        ev.challenge?.resourceMetadata ?? null,
        this.accepted(),
        this.namedFetch,
      );
      ev.metadataAttempts.push(...found.attempts);
      ev.metadata = found.metadata;
    }
    return this.credential === 'none' ? 'auth_required' : 'auth_failed';
  }
}

/** A URL's origin (scheme, host and port; default ports and case normalised); '' when it does not parse. */
function originOf(url: string): string {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? '' : origin;
  } catch {
    return '';
  }
}
