// OAuth 2.1 client credentials for probes, through oauth4webapi. A credential is bound to its issuer: the
// token endpoint is the configured tokenUrl, or the one the issuer's RFC 8414 metadata names (its `issuer`
// must be the credential's, exactly), never one a node's own metadata points at. A protected resource whose
// metadata does not list the issuer gets no token request. The scope is configured, or chosen by the MCP
// rule: the challenge's scope, else the resource's scopes_supported, else none.
// Tokens are cached per credential until shortly before they expire; one request at a time per credential.
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import * as oauth from 'oauth4webapi';
import { SideRequestError, type SideFetch } from './auth-http';
import type { OAuthClientCredentials, ProtectedResourceEvidence, ScopeSource, TokenEvidence } from './types';

/** A token is replaced this long before it expires (at most a tenth of its lifetime). */
const EXPIRY_MARGIN_MS = 60_000;
/** A token response without expires_in is reused this long. */
const NO_EXPIRY_REUSE_MS = 60_000;
/** A failed token request is not repeated for this long (every node of a balancer would repeat it). */
const FAILURE_REUSE_MS = 10_000;
const METADATA_REUSE_MS = 60 * 60_000;
const CACHE_LIMIT = 1_024;

export interface TokenContext {
  /** For URLs the operator gave: the issuer's metadata, a configured tokenUrl. */
  fetch: SideFetch;
  /** For URLs a server named (a token endpoint from metadata): loopback only on the target's own host. */
  namedFetch?: SideFetch;
  /** The scope of the challenge that asked for a new token, if any. */
  challengeScope?: string | null;
  /** The resource indicator when the credential names none: the balancer's public URL. */
  defaultResource: string;
  /** Finds the trusted protected-resource metadata of `defaultResource` (for token endpoint discovery). */
  findMetadata: () => Promise<ProtectedResourceEvidence | null>;
}

export type TokenResult =
  | { ok: true; accessToken: string; fromCache: boolean; evidence: TokenEvidence }
  | { ok: false; evidence: TokenEvidence };

interface Entry {
  pending: Promise<TokenResult> | null;
  result: TokenResult | null;
  /** Epoch ms after which the result is not reused. */
  reuseUntil: number;
}

function isLoopbackHost(url: URL): boolean {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/** Plain http is allowed for loopback authorization servers only (tests, a local sidecar). */
function insecureAllowed(url: URL): boolean {
  return url.protocol === 'http:' && isLoopbackHost(url);
}

function oauthFetch(fetch: SideFetch) {
  return (url: string, init: oauth.CustomFetchOptions<string, unknown>): Promise<Response> =>
    fetch(url, {
      method: init.method,
      headers: init.headers,
      body: init.body instanceof URLSearchParams ? init.body : undefined,
    });
}

/** The authorization server's `error` (or our own code) and a description, never the secret. */
export function tokenErrorOf(err: unknown): { error: string; detail: string } {
  if (err instanceof oauth.ResponseBodyError) {
    return { error: err.error, detail: err.error_description ?? `HTTP ${err.status}` };
  }
  if (err instanceof oauth.WWWAuthenticateChallengeError) {
    const params = err.cause[0]?.parameters;
    return {
      error: params?.error ?? (err.status === 401 ? 'invalid_client' : 'token_request_refused'),
      detail: params?.error_description ?? `HTTP ${err.status}`,
    };
  }
  if (err instanceof SideRequestError) return { error: err.outcome, detail: err.message };
  if (err instanceof oauth.OperationProcessingError) {
    const code = err.code === oauth.HTTP_REQUEST_FORBIDDEN ? 'insecure_endpoint' : 'invalid_token_response';
    return { error: code, detail: err.message };
  }
  if (err instanceof oauth.UnsupportedOperationError) {
    return { error: 'insecure_endpoint', detail: err.message };
  }
  return { error: 'token_request_failed', detail: err instanceof Error ? err.message : String(err) };
}

export class OAuthTokenCache {
  private readonly entries = new Map<string, Entry>();
  private readonly servers = new Map<string, { as: oauth.AuthorizationServer; until: number }>();
  private readonly now: () => number;
  /** Token requests made (for tests and metrics): each is one POST to a token endpoint. */
  requests = 0;

  constructor(opts: { now?: () => number } = {}) {
    this.now = opts.now ?? Date.now;
  }

  private keyOf(creds: OAuthClientCredentials, ctx: TokenContext): string {
    const secret = createHash('sha256').update(creds.clientSecret).digest('base64url');
    return JSON.stringify([
      creds.tokenUrl ?? '',
      creds.issuer ?? '',
      creds.clientId,
      secret,
      creds.scope ?? '',
      creds.resource ?? ctx.defaultResource,
    ]);
  }

  /** A valid token from the cache, or a new one (one request in flight per credential). */
  async token(creds: OAuthClientCredentials, ctx: TokenContext): Promise<TokenResult> {
    const key = this.keyOf(creds, ctx);
    let entry = this.entries.get(key);
    if (entry?.result && this.now() < entry.reuseUntil) {
      const r = entry.result;
      return r.ok ? { ...r, fromCache: true } : r;
    }
    if (entry?.pending) return entry.pending;
    if (!entry) {
      if (this.entries.size >= CACHE_LIMIT) this.entries.clear();
      entry = { pending: null, result: null, reuseUntil: 0 };
      this.entries.set(key, entry);
    }
    const target = entry;
    const pending = this.request(creds, ctx).then(({ result, reuseUntil }) => {
      target.result = result;
      target.pending = null;
      target.reuseUntil = reuseUntil;
      return result;
    });
    target.pending = pending;
    return pending;
  }

  /** Drops `accessToken` after a resource server rejected it, unless another probe already replaced it. */
  invalidate(creds: OAuthClientCredentials, ctx: TokenContext, accessToken: string): void {
    const entry = this.entries.get(this.keyOf(creds, ctx));
    if (entry?.result?.ok && entry.result.accessToken === accessToken) {
      entry.result = null;
      entry.reuseUntil = 0;
    }
  }

  /** Until when a token issued at `issuedAt` is reused. */
  private reuseUntil(issuedAt: number, expiresInS: number | undefined): number {
    if (expiresInS === undefined) return issuedAt + NO_EXPIRY_REUSE_MS;
    const lifetime = expiresInS * 1000;
    return issuedAt + lifetime - Math.min(EXPIRY_MARGIN_MS, lifetime / 10);
  }

  private async endpointOf(
    creds: OAuthClientCredentials,
    ctx: TokenContext,
    evidence: TokenEvidence,
  ): Promise<oauth.AuthorizationServer> {
    if (creds.tokenUrl) {
      evidence.tokenEndpoint = creds.tokenUrl;
      evidence.endpointSource = 'configured';
      return { issuer: creds.issuer ?? new URL(creds.tokenUrl).origin, token_endpoint: creds.tokenUrl };
    }
    const issuer = creds.issuer;
    if (!issuer) {
      throw new TokenSetupError(
        'no_issuer',
        'the credential names neither an issuer nor a tokenUrl, so no token endpoint can be trusted',
      );
    }
    const cached = this.servers.get(issuer);
    if (cached && this.now() < cached.until) {
      evidence.tokenEndpoint = cached.as.token_endpoint ?? null;
      evidence.endpointSource = 'discovered';
      return cached.as;
    }
    const issuerUrl = new URL(issuer);
    const options = {
      [oauth.customFetch]: oauthFetch(ctx.fetch),
      [oauth.allowInsecureRequests]: insecureAllowed(issuerUrl),
    };
    let as: oauth.AuthorizationServer | null = null;
    let lastError: unknown = null;
    // RFC 8414 first; an OpenID provider may publish only openid-configuration (RFC 8414 §5).
    for (const algorithm of ['oauth2', 'oidc'] as const) {
      try {
        const res = await oauth.discoveryRequest(issuerUrl, { ...options, algorithm });
        as = await oauth.processDiscoveryResponse(issuerUrl, res);
        break;
      } catch (err) {
        lastError = err;
        if (err instanceof SideRequestError && err.outcome === 'timeout') break;
      }
    }
    if (as && as.issuer !== issuer) {
      // RFC 8414 §3.3: identical to the issuer the metadata was asked for, character for character.
      throw new TokenSetupError(
        'issuer_mismatch',
        `the metadata of ${issuer} names the issuer ${as.issuer}; no token was requested`,
      );
    }
    if (!as?.token_endpoint) {
      const { detail } = tokenErrorOf(lastError);
      throw new TokenSetupError('no_token_endpoint', `authorization server metadata of ${issuer}: ${detail}`);
    }
    this.servers.set(issuer, { as, until: this.now() + METADATA_REUSE_MS });
    evidence.tokenEndpoint = as.token_endpoint;
    evidence.endpointSource = 'discovered';
    return as;
  }

  /** The issuer binding: a protected resource that lists authorization servers must list the issuer. */
  private checkListed(creds: OAuthClientCredentials, metadata: ProtectedResourceEvidence | null): void {
    if (!creds.issuer || !metadata?.trusted) return;
    if (metadata.authorizationServers.includes(creds.issuer)) return;
    const listed = metadata.authorizationServers.join(', ') || 'none';
    throw new TokenSetupError(
      'issuer_not_listed',
      `the protected resource ${metadata.resource ?? metadata.url} lists authorization servers ${listed}, not the credential's issuer ${creds.issuer}; no token was requested`,
    );
  }

  /** The MCP rule: configured, else the challenge's scope, else the resource's scopes_supported, else none. */
  private async scopeOf(
    creds: OAuthClientCredentials,
    ctx: TokenContext,
    metadata: () => Promise<ProtectedResourceEvidence | null>,
  ): Promise<{ scope: string | null; source: ScopeSource }> {
    if (creds.scope) return { scope: creds.scope, source: 'configured' };
    if (ctx.challengeScope) return { scope: ctx.challengeScope, source: 'challenge' };
    const found = await metadata();
    const supported = found?.trusted ? found.scopesSupported : [];
    if (supported.length > 0) return { scope: supported.join(' '), source: 'metadata' };
    return { scope: null, source: 'none' };
  }

  private async request(
    creds: OAuthClientCredentials,
    ctx: TokenContext,
  ): Promise<{ result: TokenResult; reuseUntil: number }> {
    const evidence: TokenEvidence = {
      tokenEndpoint: null,
      endpointSource: null,
      issuer: creds.issuer ?? null,
      scope: null,
      scopeSource: null,
      refreshed: false,
      error: null,
    };
    try {
      // The resource's metadata is looked up at most once per token request, and only when needed.
      let metadata: Promise<ProtectedResourceEvidence | null> | null = null;
      const findMetadata = () => (metadata ??= ctx.findMetadata());
      if (creds.issuer) this.checkListed(creds, await findMetadata());
      const as = await this.endpointOf(creds, ctx, evidence);
      const chosen = await this.scopeOf(creds, ctx, findMetadata);
      evidence.scope = chosen.scope;
      evidence.scopeSource = chosen.source;
      const client: oauth.Client = { client_id: creds.clientId };
      const methods = as.token_endpoint_auth_methods_supported;
      const clientAuth =
        !methods || methods.includes('client_secret_basic')
          ? oauth.ClientSecretBasic(creds.clientSecret)
          : oauth.ClientSecretPost(creds.clientSecret);
      const params: Record<string, string> = { resource: creds.resource ?? ctx.defaultResource };
      if (chosen.scope) params.scope = chosen.scope;
      const endpoint = new URL(as.token_endpoint ?? '');
      // A token endpoint from metadata is a URL a server named; a configured one is the operator's.
      const tokenFetch = evidence.endpointSource === 'discovered' ? (ctx.namedFetch ?? ctx.fetch) : ctx.fetch;
      const issuedAt = this.now();
      this.requests += 1;
      const res = await oauth.clientCredentialsGrantRequest(as, client, clientAuth, params, {
        [oauth.customFetch]: oauthFetch(tokenFetch),
        [oauth.allowInsecureRequests]: insecureAllowed(endpoint),
      });
      const tokens = await oauth.processClientCredentialsResponse(as, client, res);
      if (tokens.token_type !== 'bearer') {
        throw new TokenSetupError('unsupported_token_type', `token_type ${tokens.token_type}`);
      }
      return {
        result: { ok: true, accessToken: tokens.access_token, fromCache: false, evidence },
        reuseUntil: this.reuseUntil(issuedAt, tokens.expires_in),
      };
    } catch (err) {
      const { error, detail } = err instanceof TokenSetupError ? err : tokenErrorOf(err);
      evidence.error = error;
      evidence.detail = detail;
      return { result: { ok: false, evidence }, reuseUntil: this.now() + FAILURE_REUSE_MS };
    }
  }
}

class TokenSetupError extends Error {
  constructor(
    readonly error: string,
    readonly detail: string,
  ) {
    super(detail);
  }
}

/** One cache per process: the poller's probes of one balancer share its token. */
export const sharedTokenCache = new OAuthTokenCache();
