// OAuth against hostile servers on loopback: an authorization server that echoes the credential, a node
// whose metadata names itself as authorization server with a token endpoint elsewhere, metadata whose
// issuer differs, server-named URLs on other loopback hosts, and the MCP rule for choosing the scope.
import { afterAll, describe, expect, it } from 'vitest';
import { closeSharedProbeAgents, DEFAULT_PROBE_OPTIONS, probeNode, type ProbeTarget } from '@/lib/probe';
import { OAuthTokenCache } from '@/lib/probe/oauth';
import { startRoutes, type RouteServer } from '@/tests/support/oauth-routes';
import {
  authorizationServer,
  echoCredential,
  formEncode,
  grant,
  resourceServer,
  scopeOf,
  secretFormsOf,
} from '@/tests/support/oauth-scene';

process.env.ERAWATCH_ALLOW_LOOPBACK = '1';

const egress = { allowLoopback: true, allowPrivate: true };
const options = { ...DEFAULT_PROBE_OPTIONS, timeoutMs: 4_000, legacyProbeTimeoutMs: 3_000 };
// Characters that every encoding changes: a space, reserved and non-ASCII ones.
const SECRET = 'sé cret/p@ss+w~rd:42';

const servers: RouteServer[] = [];
async function routes(...args: Parameters<typeof startRoutes>): Promise<RouteServer> {
  const s = await startRoutes(...args);
  servers.push(s);
  return s;
}
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await closeSharedProbeAgents();
});

function expectNoSecret(text: string): void {
  for (const form of secretFormsOf('erawatch', SECRET)) expect(text).not.toContain(form);
}

const creds = (issuer: string, over: Partial<NonNullable<ProbeTarget['oauth']>> = {}) => ({
  clientId: 'erawatch',
  clientSecret: SECRET,
  issuer,
  ...over,
});
const probe = (target: ProbeTarget) => probeNode(target, options, { egress, tokens: new OAuthTokenCache() });

describe('the client secret never comes back', () => {
  it('an authorization server echoing the Basic credential: raw, form-encoded and base64 are redacted', async () => {
    const as = await authorizationServer(routes, echoCredential);
    const rs = await resourceServer(routes, { authorizationServers: () => [as.issuer] });
    const v = await probe({ url: rs.url, oauth: creds(as.issuer) });
    expect(v.reason).toBe('oauth_token_failed: invalid_client');
    expect(as.hits('/token')).toBe(1);
    const text = JSON.stringify(v);
    expectNoSecret(text);
    expect(v.auth?.token?.detail).toContain('[redacted]');
  });

  it('client_secret_post with the secret percent-encoded in the body is redacted too', async () => {
    const as = await authorizationServer(routes, echoCredential, { methods: ['client_secret_post'] });
    const rs = await resourceServer(routes, { authorizationServers: () => [as.issuer] });
    const v = await probe({ url: rs.url, oauth: creds(as.issuer) });
    expect(as.received.find((r) => r.path === '/token')?.body).toContain('client_secret=');
    expectNoSecret(JSON.stringify(v));
    expect(v.auth?.token?.detail).toContain('client_secret=[redacted]');
  });

  it("a secret with one of -_.* and one of !~'() echoed from a client_secret_post body is redacted", async () => {
    // WHATWG form encoding leaves `-` and escapes `!` and `~`: a form no single older encoding matched.
    const secret = 'S3CR3T-redteam!value~123';
    const as = await authorizationServer(routes, echoCredential, { methods: ['client_secret_post'] });
    const rs = await resourceServer(routes, { authorizationServers: () => [as.issuer] });
    const v = await probe({ url: rs.url, oauth: creds(as.issuer, { clientSecret: secret }) });
    expect(as.received.find((r) => r.path === '/token')?.body).toContain('S3CR3T-redteam%21value%7E123');
    const text = JSON.stringify(v);
    for (const form of secretFormsOf('erawatch', secret)) expect(text).not.toContain(form);
    expect(v.auth?.token?.detail).toContain('client_secret=[redacted]');
  });

  it('a resource server echoing it in its challenge is redacted', async () => {
    const as = await authorizationServer(routes, grant);
    const rs = await resourceServer(routes, {
      authorizationServers: () => [as.issuer],
      accepts: () => false,
      challenge: () =>
        `Bearer error="invalid_token", error_description="not for ${SECRET} or ${formEncode(SECRET)}"`,
    });
    const v = await probe({ url: rs.url, oauth: creds(as.issuer) });
    expect(v.reason).toBe('auth_failed');
    expectNoSecret(JSON.stringify(v));
    expect(v.auth?.challenge?.errorDescription).toBe('not for [redacted] or [redacted]');
  });
});

describe('a credential is bound to its issuer', () => {
  it('a node naming itself as authorization server, with a token endpoint elsewhere, gets no token request', async () => {
    const legit = await authorizationServer(routes, grant);
    const thief = await routes({ '/token': grant });
    // The node's own metadata: itself as the authorization server, whose metadata names the thief's endpoint.
    const rs = await resourceServer(routes, { authorizationServers: () => [rs.origin] });
    rs.routes['/.well-known/oauth-authorization-server'] = () => ({
      status: 200,
      body: { issuer: rs.origin, token_endpoint: `${thief.origin}/token` },
    });
    const v = await probe({ url: rs.url, oauth: creds(legit.issuer) });
    expect(v).toMatchObject({ verdict: 'unavailable', reason: 'oauth_token_failed: issuer_not_listed' });
    expect(v.auth?.token?.detail).toContain(`not the credential's issuer ${legit.issuer}`);
    expect(v.auth?.metadata?.authorizationServers).toEqual([rs.origin]);
    expect(thief.hits('/token')).toBe(0);
    expect(legit.hits('/token')).toBe(0);
    expect(rs.hits('/mcp')).toBe(0);
  });

  it("the issuer's metadata must name that issuer exactly", async () => {
    const as = await authorizationServer(routes, grant, { issuerInMetadata: (origin) => `${origin}/` });
    const rs = await resourceServer(routes, { authorizationServers: () => [as.issuer] });
    const v = await probe({ url: rs.url, oauth: creds(as.issuer) });
    expect(v.reason).toBe('oauth_token_failed: issuer_mismatch');
    expect(as.hits('/token')).toBe(0);
  });

  it('a listed issuer gives a token from its own metadata', async () => {
    const as = await authorizationServer(routes, grant);
    const rs = await resourceServer(routes, {
      authorizationServers: () => ['https://other.example', as.issuer],
    });
    const v = await probe({ url: rs.url, oauth: creds(as.issuer, { scope: 'mcp:read' }) });
    expect(v.verdict).toBe('modern');
    expect(v.auth?.token).toMatchObject({
      issuer: as.issuer,
      tokenEndpoint: `${as.issuer}/token`,
      endpointSource: 'discovered',
      scope: 'mcp:read',
      scopeSource: 'configured',
    });
  });
});

describe('the scope by the MCP rule', () => {
  it("no configured scope: the resource's scopes_supported, then the challenge's scope when it asks for another", async () => {
    const as = await authorizationServer(routes, grant);
    const rs = await resourceServer(routes, {
      authorizationServers: () => [as.issuer],
      scopesSupported: ['mcp:read', 'mcp:write'],
      accepts: (token) => token === 'tok.mcp:tools',
      challenge: () => 'Bearer error="insufficient_scope", scope="mcp:tools"',
    });
    const v = await probe({ url: rs.url, oauth: creds(as.issuer) });
    expect(v.verdict).toBe('modern');
    expect(as.received.filter((r) => r.path === '/token').map(scopeOf)).toEqual([
      'mcp:read mcp:write',
      'mcp:tools',
    ]);
    expect(v.auth?.token).toMatchObject({ scope: 'mcp:tools', scopeSource: 'challenge', refreshed: true });
    expect(v.evidence.map((e) => [e.step, e.httpStatus])).toEqual([
      ['discover', 401],
      ['discover-reauth', 200],
    ]);
  });

  it('no scope anywhere: no scope parameter', async () => {
    const as = await authorizationServer(routes, grant);
    const rs = await resourceServer(routes, { authorizationServers: () => [as.issuer] });
    const v = await probe({ url: rs.url, oauth: creds(as.issuer) });
    expect(v.verdict).toBe('modern');
    const sent = as.received.find((r) => r.path === '/token');
    expect(new URLSearchParams(sent?.body).has('scope')).toBe(false);
    expect(v.auth?.token).toMatchObject({ scope: null, scopeSource: 'none' });
  });
});

describe('server-named URLs keep the loopback exemption only on the target host', () => {
  it("a challenge's resource_metadata on another loopback host is refused, on the target's host fetched", async () => {
    const elsewhere = await routes({
      '/prm': () => ({ status: 200, body: { resource: 'x', authorization_servers: ['leak'] } }),
    });
    const foreign = `http://localhost:${elsewhere.port}/prm`;
    const rs = await resourceServer(routes, {
      authorizationServers: () => [],
      challenge: () => `Bearer resource_metadata="${foreign}"`,
    });
    const v = await probe({ url: rs.url });
    expect(v.reason).toBe('auth_required');
    expect(v.auth?.metadataAttempts[0]).toMatchObject({
      source: 'challenge',
      url: foreign,
      outcome: 'egress_refused',
    });
    expect(elsewhere.hits('/prm')).toBe(0);
    // The well-known URL on the target's own host is still fetched.
    expect(v.auth?.metadata).toMatchObject({ source: 'path', resource: rs.url });

    const own = `${rs.origin}/.well-known/oauth-protected-resource/mcp`;
    rs.routes['/mcp'] = () => ({
      status: 401,
      headers: { 'www-authenticate': `Bearer resource_metadata="${own}"` },
    });
    const same = await probe({ url: rs.url });
    expect(same.auth?.metadata).toMatchObject({ source: 'challenge', url: own });
  });

  it("a challenge naming another port of the target's own host is refused: origins, not host names", async () => {
    const admin = await routes({ '/admin/export': () => ({ status: 200, body: 'all the secrets' }) });
    const named = `${admin.origin}/admin/export`;
    const rs = await resourceServer(routes, {
      authorizationServers: () => [],
      challenge: () => `Bearer resource_metadata="${named}"`,
    });
    // Same host name (127.0.0.1), another port.
    expect(new URL(named).hostname).toBe(new URL(rs.url).hostname);
    const v = await probe({ url: rs.url });
    expect(v.auth?.metadataAttempts[0]).toMatchObject({ url: named, outcome: 'egress_refused' });
    expect(admin.hits('/admin/export')).toBe(0);
    expect(JSON.stringify(v)).not.toContain('all the secrets');
  });

  it("a token endpoint from metadata on another port of the issuer's host is refused", async () => {
    const admin = await routes({ '/token': grant });
    const as = await authorizationServer(routes, grant, { tokenEndpoint: `${admin.origin}/token` });
    const rs = await resourceServer(routes, { authorizationServers: () => [as.issuer] });
    const v = await probe({ url: rs.url, oauth: creds(as.issuer) });
    expect(v.reason).toBe('oauth_token_failed: egress_refused');
    expect(admin.hits('/token')).toBe(0);
    // On the issuer's own origin it is fetched.
    const own = await authorizationServer(routes, grant);
    const rs2 = await resourceServer(routes, { authorizationServers: () => [own.issuer] });
    const ok = await probe({ url: rs2.url, oauth: creds(own.issuer) });
    expect(ok.verdict).toBe('modern');
    expect(own.hits('/token')).toBe(1);
  });

  it('a token endpoint from metadata on another loopback host is refused; a configured one is not', async () => {
    const elsewhere = await routes({ '/token': grant });
    const as = await authorizationServer(routes, grant, {
      tokenEndpoint: `http://localhost:${elsewhere.port}/token`,
    });
    const rs = await resourceServer(routes, { authorizationServers: () => [as.issuer] });
    const v = await probe({ url: rs.url, oauth: creds(as.issuer) });
    expect(v.reason).toBe('oauth_token_failed: egress_refused');
    expect(elsewhere.hits('/token')).toBe(0);
    const configured = await probe({
      url: rs.url,
      oauth: creds(as.issuer, { tokenUrl: `http://localhost:${elsewhere.port}/token` }),
    });
    expect(configured.verdict).toBe('modern');
    expect(elsewhere.hits('/token')).toBe(1);
  });
});
