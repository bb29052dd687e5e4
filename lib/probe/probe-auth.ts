// The auth side of one HTTP probe: the bearer token before discover (OAuth client credentials), one refresh
// when a cached token draws a 401, and the evidence of a refusal: the parsed challenge and the
// protected-resource metadata. Every side request is bounded and stays inside the probe's deadline.
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
  private readonly sideFetchOptions: Parameters<typeof createSideFetch>[0];
  private readonly tokens: OAuthTokenCache;
  private readonly resource: string;
  private accessToken: string | null = null;
  private tokenFromCache = false;
  private refreshed = false;

  constructor(
    private readonly target: ProbeTarget,
    options: ProbeOptions,
    deps: { dispatcher: Dispatcher; now: () => number; tokens?: OAuthTokenCache },
    started: number,
  ) {
    this.credential = credentialOf(target);
    this.tokens = deps.tokens ?? sharedTokenCache;
    // A refused node gets no retry after -32022 and no initialize: their share of the deadline is ours.
    const deadline = started + probeDeadlineMs(options);
    this.sideFetchOptions = { dispatcher: deps.dispatcher, deadline, now: deps.now };
    this.resource = target.oauth?.resource ?? target.publicUrl ?? target.url;
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
      defaultResource: oauth.resource ?? this.resource,
      findMetadata: async () => {
        const found = await findProtectedResource(this.resource, null, this.accepted(), this.fetch);
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
    this.tokenFromCache = got.fromCache;
    return { ok: true, headers: this.withToken() };
  }

  /** After a 401 on a cached token: one new token. Null when there is nothing to refresh (or it failed). */
  async refresh(status: number | null): Promise<Record<string, string> | null> {
    const oauth = this.target.oauth;
    if (!oauth || status !== 401 || !this.tokenFromCache || this.refreshed || !this.accessToken) return null;
    this.refreshed = true;
    const ctx = this.context(oauth);
    this.tokens.invalidate(oauth, ctx, this.accessToken);
    const got = await this.tokens.token(oauth, ctx);
    const ev = this.ensureEvidence();
    ev.token = { ...got.evidence, refreshed: got.ok };
    if (!got.ok) return null;
    this.accessToken = got.accessToken;
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
        this.fetch,
      );
      ev.metadataAttempts.push(...found.attempts);
      ev.metadata = found.metadata;
    }
    return this.credential === 'none' ? 'auth_required' : 'auth_failed';
  }
}
