// A real OpenID Connect provider (oidc-provider) on loopback, for the sign-in tests: one confidential client,
// PKCE required, users in groups, and its own development login and consent pages. A test drives those pages
// with form posts (`signInThrough`) or in the browser. The signing key is the fixture's, so a test can also
// sign tokens the provider never issued (an expired one) with the provider's own key.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import Provider from 'oidc-provider';

export interface FixtureUser {
  sub: string;
  email: string;
  name: string;
  groups: string[];
}

/** The provider's users: log in with the `sub` (any password) on its login page. */
export const OIDC_USERS: Record<'viewer' | 'operator' | 'admin' | 'none', FixtureUser> = {
  viewer: { sub: 'vera', email: 'vera@example.test', name: 'Vera Viewer', groups: ['mcp-viewers'] },
  operator: {
    sub: 'otto',
    email: 'otto@example.test',
    name: 'Otto Operator',
    groups: ['mcp-viewers', 'mcp-operators'],
  },
  admin: { sub: 'ada', email: 'ada@example.test', name: 'Ada Admin', groups: ['mcp-admins', 'staff'] },
  none: { sub: 'nils', email: 'nils@example.test', name: 'Nils Nobody', groups: ['staff'] },
};

/** The group lists that map the fixture's users to roles. */
export const OIDC_GROUP_SETTINGS = {
  ERAWATCH_OIDC_ADMIN_GROUPS: 'mcp-admins',
  ERAWATCH_OIDC_OPERATOR_GROUPS: 'mcp-operators',
  ERAWATCH_OIDC_VIEWER_GROUPS: 'mcp-viewers',
};

export interface OidcFixture {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Signs a JWT with the provider's own key (kid included). */
  sign(claims: Record<string, unknown>): Promise<string>;
  /** Moves a user to other groups at the provider: their next sign-in carries these. */
  setGroups(sub: string, groups: string[]): void;
  close(): Promise<void>;
}

export interface OidcFixtureOptions {
  /** Where the relying party receives the code: `{ERAWATCH_PUBLIC_URL}/auth/callback`. */
  redirectUris: string[];
  postLogoutRedirectUris?: string[];
  clientId?: string;
  clientSecret?: string;
}

export async function startOidcProvider(options: OidcFixtureOptions): Promise<OidcFixture> {
  const server = http.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: 'fixture-1', alg: 'RS256', use: 'sig' };
  const clientId = options.clientId ?? 'erawatch';
  const clientSecret = options.clientSecret ?? 'fixture-client-secret-0123456789';
  // This provider's own copy of the users, so moving one to other groups stays within it.
  const bySub = new Map(Object.values(OIDC_USERS).map((u) => [u.sub, { ...u, groups: [...u.groups] }]));

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        post_logout_redirect_uris: options.postLogoutRedirectUris ?? [],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [jwk] },
    pkce: { required: () => true },
    scopes: ['openid', 'email', 'profile', 'groups'],
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name'],
      groups: ['groups'],
    },
    features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
    cookies: { keys: ['fixture-cookie-key-0123456789abcdef'] },
    findAccount(_ctx, sub) {
      const user = bySub.get(sub);
      if (!user) return undefined;
      return {
        accountId: sub,
        claims: () => ({
          sub,
          email: user.email,
          email_verified: true,
          name: user.name,
          groups: user.groups,
        }),
      };
    },
  });
  // Its own development warnings are noise in a test run.
  provider.on('server_error', (_ctx, err) => console.error('oidc fixture:', err));
  server.on('request', provider.callback());

  return {
    issuer,
    clientId,
    clientSecret,
    async sign(claims) {
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: 'fixture-1', typ: 'JWT' })
        .sign(privateKey as CryptoKey);
    },
    setGroups(sub, groups) {
      const user = bySub.get(sub);
      if (!user) throw new Error(`the fixture has no user ${sub}`);
      user.groups = [...groups];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A cookie jar per origin, enough for the provider's interaction cookies. */
class Jar {
  private readonly cookies = new Map<string, string>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair?.indexOf('=') ?? -1;
      if (pair && eq > 0) this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

function formAction(html: string): string {
  const match = /<form[^>]*action="([^"]+)"/.exec(html);
  if (!match?.[1]) throw new Error(`no form on the provider's page: ${html.slice(0, 300)}`);
  return match[1].replace(/&amp;/g, '&');
}

/**
 * Follows an authorization URL through the provider's login and consent pages as `sub` (form posts, as a
 * browser would) and returns the redirect back to the relying party: the callback URL with code and state.
 */
export async function signInThrough(authorizationUrl: string, sub: string): Promise<URL> {
  const jar = new Jar();
  let url = new URL(authorizationUrl);
  let body: URLSearchParams | null = null;
  const origin = url.origin;
  for (let hop = 0; hop < 20; hop++) {
    const res: Response = await fetch(url, {
      method: body ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        cookie: jar.header(),
        ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: body ?? undefined,
    });
    jar.take(res);
    body = null;
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      const next = new URL(location, url);
      if (next.origin !== origin) return next;
      url = next;
      continue;
    }
    const html: string = await res.text();
    if (res.status !== 200) throw new Error(`provider answered ${res.status}: ${html.slice(0, 300)}`);
    url = new URL(formAction(html), url);
    body = /name="login"/.test(html)
      ? new URLSearchParams({ prompt: 'login', login: sub, password: 'any' })
      : new URLSearchParams({ prompt: 'consent' });
  }
  throw new Error('the provider did not redirect back within 20 steps');
}
