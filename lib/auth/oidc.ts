// OpenID Connect sign-in (authorization code with PKCE) through oauth4webapi. The web process discovers the
// provider from its issuer, sends the browser there with a state, a nonce and a PKCE challenge kept in a short,
// signed cookie, and on the way back checks the state, redeems the code (the provider redeems a code once),
// validates the ID token (signature, issuer, audience, nonce, expiry, not issued in the future) and reads the user's claims from it, or
// from userinfo when it lacks them. The groups claim decides the role; a user in no listed group gets none.
import { createHmac, timingSafeEqual } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { isLoopbackHost } from '@/lib/auth/mode';
import { readCookie } from '@/lib/auth/session';
import { type SessionUser, type UserRole } from '@/lib/schemas/session';
import type { Env, OidcSettings } from '@/lib/settings';

export const OIDC_TX_COOKIE = 'erawatch_oidc';
/** How long the provider's login may take before the transaction is refused. */
export const OIDC_TX_TTL_MS = 10 * 60_000;
const PROVIDER_TIMEOUT_MS = 10_000;
/** How far ahead of this server's clock an ID token's `iat` may be. */
export const ID_TOKEN_CLOCK_SKEW_MS = 60_000;

/** Why a sign-in was refused: `code` for the login page and logs, `message` for people. */
export class OidcRefusal extends Error {
  override readonly name = 'OidcRefusal';
  constructor(
    readonly code:
      | 'discovery_failed'
      | 'no_transaction'
      | 'state_mismatch'
      | 'provider_error'
      | 'code_refused'
      | 'id_token_invalid'
      | 'userinfo_failed'
      | 'no_role',
    message: string,
    /** For `no_role`: who the provider vouched for (a valid ID token) and their groups. */
    readonly subject: { user: SessionUser; groups: string[] } | null = null,
  ) {
    super(message);
  }
}

export interface OidcRuntime {
  /** The fetch used towards the provider (tests put a hand between: a forged token response). */
  fetch?: typeof fetch;
}

export function redirectUri(publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/auth/callback`;
}

/** Plain-HTTP providers are allowed only on loopback (a provider on this machine, tests). */
function insecureAllowed(issuer: string): boolean {
  const url = new URL(issuer);
  return url.protocol === 'http:' && isLoopbackHost(url.hostname);
}

function requestOptions(oidc: OidcSettings, runtime: OidcRuntime) {
  return {
    [oauth.allowInsecureRequests]: insecureAllowed(oidc.issuer),
    ...(runtime.fetch ? { [oauth.customFetch]: runtime.fetch } : {}),
    signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
  };
}

const discovered = new Map<string, Promise<oauth.AuthorizationServer>>();

/** The provider's metadata, discovered once per issuer (a failure is not kept, the next sign-in tries again). */
export function discover(oidc: OidcSettings, runtime: OidcRuntime = {}): Promise<oauth.AuthorizationServer> {
  const key = oidc.issuer;
  let found = runtime.fetch ? undefined : discovered.get(key);
  if (!found) {
    const issuer = new URL(oidc.issuer);
    found = oauth
      .discoveryRequest(issuer, { ...requestOptions(oidc, runtime), algorithm: 'oidc' })
      .then((res) => oauth.processDiscoveryResponse(issuer, res))
      .catch((err: unknown) => {
        discovered.delete(key);
        throw new OidcRefusal(
          'discovery_failed',
          `the provider at ${oidc.issuer} could not be discovered: ${describe(err)}`,
        );
      });
    if (!runtime.fetch) discovered.set(key, found);
  }
  return found;
}

/** Forgets discovered providers (tests that restart theirs). */
export function forgetDiscovered(): void {
  discovered.clear();
}

function clientSecretOf(oidc: OidcSettings, env: Env): string {
  if (!oidc.clientSecret.startsWith('env:')) return oidc.clientSecret;
  const name = oidc.clientSecret.slice(4);
  const value = env[name];
  if (value === undefined || value === '') {
    throw new OidcRefusal('discovery_failed', `ERAWATCH_OIDC_CLIENT_SECRET names ${name}, which is not set`);
  }
  return value;
}

interface Transaction {
  state: string;
  nonce: string;
  verifier: string;
  next: string;
  exp: number;
}

function txKey(adminSecret: string): Buffer {
  return createHmac('sha256', adminSecret).update('erawatch-oidc-transaction-v1').digest();
}

function signTx(tx: Transaction, adminSecret: string): string {
  const payload = Buffer.from(JSON.stringify(tx)).toString('base64url');
  return `${payload}.${createHmac('sha256', txKey(adminSecret)).update(payload).digest('base64url')}`;
}

function readTx(value: string | null, adminSecret: string, now: number): Transaction | null {
  if (value === null) return null;
  const dot = value.indexOf('.');
  if (dot <= 0) return null;
  const payload = value.slice(0, dot);
  const given = Buffer.from(value.slice(dot + 1), 'base64url');
  const expected = createHmac('sha256', txKey(adminSecret)).update(payload).digest();
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const tx = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Transaction;
    return typeof tx.exp === 'number' && tx.exp > now ? tx : null;
  } catch {
    return null;
  }
}

export function txCookie(value: string, maxAgeMs: number, secure: boolean): string {
  const attrs = [
    `${OIDC_TX_COOKIE}=${value}`,
    'Path=/auth',
    'HttpOnly',
    // Lax: the cookie must come back on the provider's top-level redirect to the callback.
    'SameSite=Lax',
    `Max-Age=${Math.floor(maxAgeMs / 1000)}`,
  ];
  if (secure) attrs.push('Secure');
  return attrs.join('; ');
}

export const clearTxCookie = `${OIDC_TX_COOKIE}=; Path=/auth; HttpOnly; SameSite=Lax; Max-Age=0`;

/** Where to send the browser to sign in, and the transaction cookie to set on the way. */
export async function startSignIn(
  oidc: OidcSettings,
  opts: { publicUrl: string; adminSecret: string; next: string; now: number },
  runtime: OidcRuntime = {},
): Promise<{ url: URL; cookieValue: string }> {
  const as = await discover(oidc, runtime);
  if (!as.authorization_endpoint) {
    throw new OidcRefusal('discovery_failed', 'the provider names no authorization endpoint');
  }
  const verifier = oauth.generateRandomCodeVerifier();
  const tx: Transaction = {
    state: oauth.generateRandomState(),
    nonce: oauth.generateRandomNonce(),
    verifier,
    next: opts.next,
    exp: opts.now + OIDC_TX_TTL_MS,
  };
  const url = new URL(as.authorization_endpoint);
  url.searchParams.set('client_id', oidc.clientId);
  url.searchParams.set('redirect_uri', redirectUri(opts.publicUrl));
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', oidc.scopes.join(' '));
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('state', tx.state);
  url.searchParams.set('nonce', tx.nonce);
  return { url, cookieValue: signTx(tx, opts.adminSecret) };
}

export interface SignedIn {
  user: SessionUser;
  role: UserRole;
  groups: string[];
  /** Where to go after sign-in (a same-site path). */
  next: string;
}

function stringClaim(claims: Record<string, unknown>, name: string): string | null {
  const v = claims[name];
  return typeof v === 'string' && v !== '' ? v : null;
}

function groupsClaim(claims: Record<string, unknown>, name: string): string[] | null {
  const v = claims[name];
  if (Array.isArray(v)) return v.filter((g): g is string => typeof g === 'string');
  if (typeof v === 'string') return [v];
  return null;
}

/** The highest role any of `groups` grants, or null. */
export function roleForGroups(groups: readonly string[], oidc: OidcSettings): UserRole | null {
  const has = (list: readonly string[]) => list.some((g) => groups.includes(g));
  if (has(oidc.adminGroups)) return 'admin';
  if (has(oidc.operatorGroups)) return 'operator';
  if (has(oidc.viewerGroups)) return 'viewer';
  return null;
}

function describe(err: unknown): string {
  if (err instanceof oauth.ResponseBodyError) {
    return `${err.error}${err.error_description ? `: ${err.error_description}` : ''}`;
  }
  if (err instanceof oauth.AuthorizationResponseError) {
    return `${err.error}${err.error_description ? `: ${err.error_description}` : ''}`;
  }
  return err instanceof Error ? err.message : String(err);
}

/** Finishes a sign-in from the callback request; throws OidcRefusal for everything that is not a valid one. */
export async function completeSignIn(
  oidc: OidcSettings,
  req: Request,
  opts: { publicUrl: string; adminSecret: string; env: Env; now: number },
  runtime: OidcRuntime = {},
): Promise<SignedIn> {
  const callback = new URL(req.url);
  const tx = readTx(readCookie(req.headers.get('cookie'), OIDC_TX_COOKIE), opts.adminSecret, opts.now);
  if (tx === null) {
    throw new OidcRefusal(
      'no_transaction',
      'this sign-in was not started here or took longer than 10 minutes; start it again',
    );
  }
  if (callback.searchParams.get('state') !== tx.state) {
    throw new OidcRefusal('state_mismatch', 'the answer from the provider is not for this sign-in (state)');
  }
  const as = await discover(oidc, runtime);
  const client: oauth.Client = { client_id: oidc.clientId };
  const auth = oauth.ClientSecretBasic(clientSecretOf(oidc, opts.env));
  let params: URLSearchParams;
  try {
    params = oauth.validateAuthResponse(as, client, callback.searchParams, tx.state);
  } catch (err) {
    throw new OidcRefusal('provider_error', `the provider refused the sign-in: ${describe(err)}`);
  }
  let response: Response;
  try {
    response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      auth,
      params,
      redirectUri(opts.publicUrl),
      tx.verifier,
      requestOptions(oidc, runtime),
    );
  } catch (err) {
    throw new OidcRefusal('code_refused', `the provider's token endpoint failed: ${describe(err)}`);
  }
  let result: oauth.TokenEndpointResponse;
  try {
    result = await oauth.processAuthorizationCodeResponse(as, client, response, {
      expectedNonce: tx.nonce,
      requireIdToken: true,
    });
  } catch (err) {
    if (err instanceof oauth.ResponseBodyError) {
      throw new OidcRefusal('code_refused', `the provider refused the code: ${describe(err)}`);
    }
    throw new OidcRefusal('id_token_invalid', `the ID token is not valid: ${describe(err)}`);
  }
  try {
    // The signature too, though the token came straight from the provider: a plain-HTTP loopback provider
    // has no TLS to vouch for it.
    await oauth.validateApplicationLevelSignature(as, response, requestOptions(oidc, runtime));
  } catch (err) {
    throw new OidcRefusal('id_token_invalid', `the ID token's signature is not valid: ${describe(err)}`);
  }
  const idClaims = oauth.getValidatedIdTokenClaims(result) as Record<string, unknown> & { sub: string };
  // Issued in the future is as wrong as not valid yet (`nbf`): only a small clock difference is forgiven.
  if (typeof idClaims.iat !== 'number' || idClaims.iat * 1000 > opts.now + ID_TOKEN_CLOCK_SKEW_MS) {
    throw new OidcRefusal(
      'id_token_invalid',
      `the ID token is not valid: it was issued in the future (iat more than ${ID_TOKEN_CLOCK_SKEW_MS / 1000} s ahead)`,
    );
  }
  let claims: Record<string, unknown> = idClaims;
  const lacking =
    stringClaim(claims, 'email') === null ||
    stringClaim(claims, 'name') === null ||
    groupsClaim(claims, oidc.groupsClaim) === null;
  if (lacking && as.userinfo_endpoint) {
    try {
      const res = await oauth.userInfoRequest(as, client, result.access_token, requestOptions(oidc, runtime));
      const info = await oauth.processUserInfoResponse(as, client, idClaims.sub, res);
      claims = { ...info, ...idClaims };
    } catch (err) {
      throw new OidcRefusal('userinfo_failed', `the provider's userinfo failed: ${describe(err)}`);
    }
  }
  const groups = groupsClaim(claims, oidc.groupsClaim) ?? [];
  const user: SessionUser = {
    sub: idClaims.sub,
    email: stringClaim(claims, 'email'),
    name: stringClaim(claims, 'name') ?? stringClaim(claims, 'preferred_username'),
  };
  const role = roleForGroups(groups, oidc);
  if (role === null) {
    throw new OidcRefusal(
      'no_role',
      `${user.email ?? user.sub} is in none of the groups this Erawatch grants a role to`,
      { user, groups },
    );
  }
  return { user, role, groups, next: tx.next };
}

/** The provider's RP-initiated logout URL, when it has an end_session_endpoint; else null. */
export async function endSessionUrl(
  oidc: OidcSettings,
  opts: { publicUrl: string },
  runtime: OidcRuntime = {},
): Promise<string | null> {
  let as: oauth.AuthorizationServer;
  try {
    as = await discover(oidc, runtime);
  } catch {
    return null;
  }
  if (!as.end_session_endpoint) return null;
  const url = new URL(as.end_session_endpoint);
  url.searchParams.set('client_id', oidc.clientId);
  url.searchParams.set('post_logout_redirect_uri', `${opts.publicUrl.replace(/\/+$/, '')}/login`);
  return url.toString();
}
