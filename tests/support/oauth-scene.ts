// OAuth scenes for the probe's tests, over tests/support/oauth-routes: an authorization server (RFC 8414
// metadata and a token route) and a node behind OAuth (discover, a 401 challenge, RFC 9728 metadata), each
// as hostile as a test makes it.
import { discoverResult } from './fault-peer';
import { rpcIdOf, startRoutes, type RouteRequest, type RouteServer } from './oauth-routes';

/** Starts a route server that the calling test stops (it keeps the list). */
export type Starter = (...args: Parameters<typeof startRoutes>) => Promise<RouteServer>;

/** oauth4webapi's (and RFC 6749 §2.3.1's) form encoding, as a Basic credential carries the secret. */
export function formEncode(text: string): string {
  return encodeURIComponent(text)
    .replace(/[-_.!~*'()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** The forms a client secret travels in: raw, percent- and form-encoded, inside a Basic credential. */
export function secretFormsOf(clientId: string, secret: string): string[] {
  return [
    secret,
    encodeURIComponent(secret),
    formEncode(secret),
    // WHATWG form encoding (a client_secret_post body), Go's QueryEscape and Python's quote_plus.
    new URLSearchParams({ v: secret }).toString().slice(2),
    encodeURIComponent(secret)
      .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
      .replace(/%20/g, '+'),
    Buffer.from(`${clientId}:${formEncode(secret)}`).toString('base64'),
    Buffer.from(`${clientId}:${secret}`).toString('base64'),
  ];
}

/** An authorization server: RFC 8414 metadata naming `issuer` and a token endpoint, and a token route. */
export async function authorizationServer(
  routes: Starter,
  token: (req: RouteRequest) => { status: number; body: unknown },
  over: { issuerInMetadata?: (origin: string) => string; tokenEndpoint?: string; methods?: string[] } = {},
): Promise<RouteServer & { issuer: string }> {
  const as = await routes({});
  as.routes['/.well-known/oauth-authorization-server'] = () => ({
    status: 200,
    body: {
      issuer: over.issuerInMetadata ? over.issuerInMetadata(as.origin) : as.origin,
      token_endpoint: over.tokenEndpoint ?? `${as.origin}/token`,
      ...(over.methods ? { token_endpoint_auth_methods_supported: over.methods } : {}),
    },
  });
  as.routes['/token'] = token;
  return Object.assign(as, { issuer: as.origin });
}

/** The scope a token was asked with, from the recorded token request body. */
export function scopeOf(req: RouteRequest): string | null {
  return new URLSearchParams(req.body).get('scope');
}

export const grant = (req: RouteRequest) => ({
  status: 200,
  body: { access_token: `tok.${scopeOf(req) ?? 'none'}`, token_type: 'Bearer', expires_in: 3600 },
});

/**
 * A node behind OAuth: discover with a bearer token it accepts answers modern; anything else gets a 401
 * with `challenge`. Its protected-resource metadata (at the path well-known URL) lists `servers`.
 */
export async function resourceServer(
  routes: Starter,
  opts: {
    authorizationServers: () => string[];
    scopesSupported?: string[];
    challenge?: (req: RouteRequest) => string;
    accepts?: (token: string) => boolean;
  },
): Promise<RouteServer & { url: string }> {
  const rs = await routes({});
  const url = `${rs.origin}/mcp`;
  rs.routes['/mcp'] = (req) => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (token && (opts.accepts ?? (() => true))(token)) {
      return { status: 200, body: discoverResult(rpcIdOf(req)) };
    }
    return {
      status: 401,
      headers: {
        'www-authenticate':
          opts.challenge?.(req) ??
          `Bearer resource_metadata="${rs.origin}/.well-known/oauth-protected-resource/mcp"`,
      },
      body: { error: 'unauthorized' },
    };
  };
  rs.routes['/.well-known/oauth-protected-resource/mcp'] = () => ({
    status: 200,
    body: {
      resource: url,
      authorization_servers: opts.authorizationServers(),
      ...(opts.scopesSupported ? { scopes_supported: opts.scopesSupported } : {}),
    },
  });
  return Object.assign(rs, { url });
}

/** Echoes everything it was sent: the Basic header, what it decodes to, the secret in the clear, the body. */
export const echoCredential = (req: RouteRequest) => {
  const basic = req.headers.authorization ?? '';
  const decoded = Buffer.from(basic.replace(/^Basic /, ''), 'base64').toString('utf8');
  return {
    status: 400,
    body: {
      error: 'invalid_client',
      error_description: `got ${basic} = ${decoded} = ${decodeURIComponent(decoded.replace(/\+/g, ' '))}; body ${req.body}`,
    },
  };
};
