// Single sign-on against a real OpenID Connect provider (oidc-provider on loopback): the sign-in routes
// called as Request → Response functions, the provider's login and consent pages driven by form posts, the
// session used on the API, and every way a sign-in must be refused.
import { processSettings } from '@/lib/settings';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeLocation } from '../../support/store';
import {
  OIDC_GROUP_SETTINGS,
  OIDC_USERS,
  signInThrough,
  startOidcProvider,
  type OidcFixture,
} from '../../support/oidc-provider';
import type { OidcRuntime } from '@/lib/auth/oidc';

const BASE = 'http://127.0.0.1:3998';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-sso-'));
process.env.ERAWATCH_DB = await storeLocation(dir, 'sso.db');
process.env.ERAWATCH_ADMIN_SECRET = 'admin-secret-for-sso-tests-0123456789';
process.env.ERAWATCH_BIND = '127.0.0.1';
process.env.ERAWATCH_PUBLIC_URL = BASE;
process.env.ERAWATCH_RATE_LIMIT = '0';
process.env.ERAWATCH_AUTH_FAILURE_LIMIT = '0';

type Handler = (req: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response>;

let provider: OidcFixture;
let sso: typeof import('@/lib/api/sso');
let sessionRoute: Record<string, Handler>;
let balancersRoute: Record<string, Handler>;
let tokensRoute: Record<string, Handler>;

beforeAll(async () => {
  provider = await startOidcProvider({
    redirectUris: [`${BASE}/auth/callback`],
    postLogoutRedirectUris: [`${BASE}/login`],
  });
  process.env.ERAWATCH_OIDC_ISSUER = provider.issuer;
  process.env.ERAWATCH_OIDC_CLIENT_ID = provider.clientId;
  // The secret through `env:NAME`, as an operator would keep it out of the settings file.
  process.env.SSO_CLIENT_SECRET = provider.clientSecret;
  process.env.ERAWATCH_OIDC_CLIENT_SECRET = 'env:SSO_CLIENT_SECRET';
  Object.assign(process.env, OIDC_GROUP_SETTINGS);
  sso = await import('@/lib/api/sso');
  sessionRoute = (await import('@/app/api/v1/session/route')) as unknown as Record<string, Handler>;
  balancersRoute = (await import('@/app/api/v1/balancers/route')) as unknown as Record<string, Handler>;
  tokensRoute = (await import('@/app/api/v1/tokens/route')) as unknown as Record<string, Handler>;
});

afterAll(async () => {
  await provider?.close();
  const { getStore } = await import('@/db/index');
  await (await getStore({ settings: processSettings() })).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function handler(mod: Record<string, Handler>, method: string): Handler {
  const h = mod[method];
  if (!h) throw new Error(`no ${method} handler`);
  return h;
}

function cookieOf(res: Response, name: string): string | null {
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(';');
    if (pair?.startsWith(`${name}=`)) return pair.slice(name.length + 1);
  }
  return null;
}

const headers = (cookie: string, extra: Record<string, string> = {}) => ({
  host: '127.0.0.1:3998',
  cookie,
  ...extra,
});

interface Started {
  authorizationUrl: string;
  tx: string;
}

async function start(next = '/'): Promise<Started> {
  const res = await sso.ssoLoginHandler()(
    new Request(`${BASE}/auth/login?next=${encodeURIComponent(next)}`, { headers: headers('') }),
  );
  expect(res.status).toBe(303);
  const tx = cookieOf(res, 'erawatch_oidc');
  expect(tx).toBeTruthy();
  return { authorizationUrl: res.headers.get('location') ?? '', tx: tx ?? '' };
}

async function callback(url: URL | string, tx: string, runtime: OidcRuntime = {}): Promise<Response> {
  const back = new URL(url);
  return sso.ssoCallbackHandler(runtime)(
    new Request(`${BASE}/auth/callback${back.search}`, { headers: headers(`erawatch_oidc=${tx}`) }),
  );
}

function refusal(res: Response): string | null {
  expect(res.status).toBe(303);
  expect(cookieOf(res, 'erawatch_session')).toBeNull();
  return new URL(res.headers.get('location') ?? '', BASE).searchParams.get('refused');
}

async function signIn(who: keyof typeof OIDC_USERS, next = '/'): Promise<{ res: Response; session: string }> {
  const { authorizationUrl, tx } = await start(next);
  const back = await signInThrough(authorizationUrl, OIDC_USERS[who].sub);
  const res = await callback(back, tx);
  return { res, session: cookieOf(res, 'erawatch_session') ?? '' };
}

async function sessionState(session: string): Promise<Record<string, unknown>> {
  const res = await handler(
    sessionRoute,
    'GET',
  )(new Request(`${BASE}/api/v1/session`, { headers: headers(`erawatch_session=${session}`) }));
  return (await res.json()) as Record<string, unknown>;
}

describe('sign-in through the provider', () => {
  it('asks for code + PKCE with state and nonce, the default scopes and the public URL’s callback', async () => {
    const { authorizationUrl } = await start();
    const url = new URL(authorizationUrl);
    expect(url.origin).toBe(provider.issuer);
    expect(url.searchParams.get('response_type')).toBe('code');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('scope')).toBe('openid email profile groups');
    expect(url.searchParams.get('redirect_uri')).toBe(`${BASE}/auth/callback`);
    expect(url.searchParams.get('state')).toBeTruthy();
    expect(url.searchParams.get('nonce')).toBeTruthy();
  });

  it('makes a session carrying the user and the role of the highest group, and goes on to `next`', async () => {
    for (const [who, role] of [
      ['viewer', 'viewer'],
      ['operator', 'operator'],
      ['admin', 'admin'],
    ] as const) {
      const { res, session } = await signIn(who, '/balancers/new');
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe(`${BASE}/balancers/new`);
      expect(session).not.toBe('');
      const state = await sessionState(session);
      expect(state).toMatchObject({
        authenticated: true,
        via: 'session',
        role,
        sso: true,
        user: { sub: OIDC_USERS[who].sub, email: OIDC_USERS[who].email, name: OIDC_USERS[who].name },
      });
    }
  });

  it('records each sign-in and logout in the audit trail, with the role the groups gave', async () => {
    const { session } = await signIn('operator');
    await handler(
      sessionRoute,
      'DELETE',
    )(
      new Request(`${BASE}/api/v1/session`, {
        method: 'DELETE',
        headers: headers(`erawatch_session=${session}`, { origin: BASE }),
      }),
    );
    const { getStore } = await import('@/db/index');
    const { listAudit } = await import('@/db/queries/audit');
    const { items } = await listAudit(await getStore({ settings: processSettings() }), {
      actor: OIDC_USERS.operator.sub,
    });
    expect(items.map((e) => e.operation).slice(0, 2)).toEqual(['session.logout', 'session.login']);
    expect(items[1]).toMatchObject({
      actor: { kind: 'user', name: OIDC_USERS.operator.email },
      subject: { type: 'session' },
      changes: { role: { before: null, after: 'operator' } },
    });
  });

  it('enforces the role on the API: a viewer reads but may not write, an operator writes', async () => {
    const viewer = (await signIn('viewer')).session;
    const operator = (await signIn('operator')).session;
    const list = await handler(
      balancersRoute,
      'GET',
    )(new Request(`${BASE}/api/v1/balancers`, { headers: headers(`erawatch_session=${viewer}`) }));
    expect(list.status).toBe(200);
    const body = JSON.stringify({ name: 'sso-one', publicUrl: 'https://mcp.example.test/mcp' });
    const post = (session: string) =>
      handler(
        balancersRoute,
        'POST',
      )(
        new Request(`${BASE}/api/v1/balancers`, {
          method: 'POST',
          headers: headers(`erawatch_session=${session}`, {
            origin: BASE,
            'content-type': 'application/json',
          }),
          body,
        }),
      );
    const refused = await post(viewer);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(((await refused.json()) as { type: string }).type).toMatch(/insufficient_role$/);
    expect((await post(operator)).status).toBe(201);
  });

  it('reads a group list as comma-separated names with inner spaces: `Admins` is not `Platform Admins`', async () => {
    const { resetProcessSettings } = await import('@/lib/settings');
    const before = process.env.ERAWATCH_OIDC_ADMIN_GROUPS;
    process.env.ERAWATCH_OIDC_ADMIN_GROUPS = 'erawatch-admins,Platform Admins';
    resetProcessSettings();
    try {
      // Nils is in `Admins` and `Platform` (and a viewer group): neither is a listed admin group.
      provider.setGroups(OIDC_USERS.none.sub, ['Admins', 'Platform', 'mcp-viewers']);
      const notAdmin = await signIn('none');
      expect(notAdmin.session).not.toBe('');
      expect(await sessionState(notAdmin.session)).toMatchObject({ authenticated: true, role: 'viewer' });
      // In `Platform Admins` itself, he is an admin.
      provider.setGroups(OIDC_USERS.none.sub, ['Platform Admins']);
      const admin = await signIn('none');
      expect(await sessionState(admin.session)).toMatchObject({ authenticated: true, role: 'admin' });
    } finally {
      provider.setGroups(OIDC_USERS.none.sub, OIDC_USERS.none.groups);
      process.env.ERAWATCH_OIDC_ADMIN_GROUPS = before;
      resetProcessSettings();
    }
  });

  it('refuses a user in none of the groups, and makes no session', async () => {
    const { res } = await signIn('none');
    expect(refusal(res)).toBe('no_role');
  });

  async function postBalancer(
    credential: { session: string } | { token: string },
    name: string,
  ): Promise<Response> {
    const auth: Record<string, string> =
      'session' in credential
        ? { cookie: `erawatch_session=${credential.session}` }
        : { authorization: `Bearer ${credential.token}` };
    return handler(
      balancersRoute,
      'POST',
    )(
      new Request(`${BASE}/api/v1/balancers`, {
        method: 'POST',
        headers: { host: '127.0.0.1:3998', origin: BASE, 'content-type': 'application/json', ...auth },
        body: JSON.stringify({ name, publicUrl: `https://mcp.example.test/${name}` }),
      }),
    );
  }

  async function mintToken(session: string, name: string, scope: 'read' | 'write'): Promise<string> {
    const res = await handler(
      tokensRoute,
      'POST',
    )(
      new Request(`${BASE}/api/v1/tokens`, {
        method: 'POST',
        headers: headers(`erawatch_session=${session}`, { origin: BASE, 'content-type': 'application/json' }),
        body: JSON.stringify({ name, scope }),
      }),
    );
    expect(res.status).toBe(201);
    return ((await res.json()) as { token: string }).token;
  }

  async function trailOf(sub: string) {
    const { getStore } = await import('@/db/index');
    const { listAudit } = await import('@/db/queries/audit');
    return (await listAudit(await getStore({ settings: processSettings() }), { actor: sub, limit: 500 }))
      .items;
  }

  it('a user removed from every group loses every session and token at the refused sign-in', async () => {
    const otto = OIDC_USERS.operator.sub;
    try {
      const { session } = await signIn('operator');
      const token = await mintToken(session, 'otto-deployer', 'write');
      expect((await postBalancer({ session }, 'before-removal-1')).status).toBe(201);
      expect((await postBalancer({ token }, 'before-removal-2')).status).toBe(201);

      // Removed from every group at the provider: the next sign-in is refused, and takes everything with it.
      provider.setGroups(otto, ['staff']);
      const { res } = await signIn('operator');
      expect(refusal(res)).toBe('no_role');
      const withSession = await postBalancer({ session }, 'after-removal-1');
      expect(withSession.status).toBe(401);
      const withToken = await postBalancer({ token }, 'after-removal-2');
      expect(withToken.status).toBe(401);
      expect(((await withToken.json()) as { type: string }).type).toMatch(/invalid_token$/);
      expect(await sessionState(session)).toMatchObject({ authenticated: false });

      // Each step audited, with the user as the actor.
      const entries = await trailOf(otto);
      const refused = entries.find((e) => e.operation === 'session.refused');
      expect(refused).toMatchObject({
        actor: { kind: 'user', id: otto },
        subject: { type: 'user', id: otto },
        changes: { code: { before: null, after: 'no_role' }, groups: { before: null, after: ['staff'] } },
      });
      const revoked = entries.filter(
        (e) => e.operation === 'token.revoke' && e.subject.name === 'otto-deployer',
      );
      expect(revoked).toHaveLength(1);
      expect(revoked[0]?.changes.revokedBecause?.after).toMatch(/no_role/);
      const ended = entries.filter((e) => e.operation === 'session.end' && e.subject.id !== '');
      expect(ended.length).toBeGreaterThanOrEqual(1);
      expect(ended[0]?.changes.endedBecause?.after).toMatch(/no_role/);

      // A refused sign-in of someone who holds nothing records nothing more.
      const before = (await trailOf(otto)).length;
      expect(refusal((await signIn('operator')).res)).toBe('no_role');
      expect((await trailOf(otto)).length).toBe(before);
    } finally {
      provider.setGroups(otto, OIDC_USERS.operator.groups);
    }
  });

  it('a sign-in with a lower role ends the subject’s earlier sessions of a higher role, not others’', async () => {
    const otto = OIDC_USERS.operator.sub;
    try {
      const operator = (await signIn('operator')).session;
      const token = await mintToken(operator, 'otto-writer', 'write');
      const vera = (await signIn('viewer')).session;
      expect((await postBalancer({ session: operator }, 'before-demotion')).status).toBe(201);

      provider.setGroups(otto, ['mcp-viewers']);
      const viewer = (await signIn('operator')).session;
      expect(await sessionState(viewer)).toMatchObject({ authenticated: true, role: 'viewer' });
      // The old operator cookie is ended (401), not merely kept at its old role.
      expect((await postBalancer({ session: operator }, 'after-demotion-1')).status).toBe(401);
      expect(await sessionState(operator)).toMatchObject({ authenticated: false });
      // The new session is a viewer's; the write token is now a read token.
      expect((await postBalancer({ session: viewer }, 'after-demotion-2')).status).toBe(403);
      expect((await postBalancer({ token }, 'after-demotion-3')).status).toBe(403);
      // Someone else's session, and a second sign-in at the same role, leave the others be.
      expect(await sessionState(vera)).toMatchObject({ authenticated: true, role: 'viewer' });
      await signIn('operator');
      expect(await sessionState(viewer)).toMatchObject({ authenticated: true, role: 'viewer' });

      const ended = (await trailOf(otto)).filter(
        (e) =>
          e.operation === 'session.end' && e.changes.endedBecause?.after === 'a sign-in gave the viewer role',
      );
      expect(ended.map((e) => e.subject.id)).toContain(
        JSON.parse(Buffer.from(operator.split('.')[0] ?? '', 'base64url').toString('utf8')).sid,
      );
    } finally {
      provider.setGroups(otto, OIDC_USERS.operator.groups);
    }
  });

  it('refuses a wrong state', async () => {
    const { authorizationUrl, tx } = await start();
    const back = await signInThrough(authorizationUrl, OIDC_USERS.viewer.sub);
    back.searchParams.set('state', 'not-the-state');
    expect(refusal(await callback(back, tx))).toBe('state_mismatch');
  });

  it('refuses a callback without the transaction cookie of its start', async () => {
    const { authorizationUrl } = await start();
    const back = await signInThrough(authorizationUrl, OIDC_USERS.viewer.sub);
    const other = await start();
    expect(refusal(await callback(back, other.tx))).toBe('state_mismatch');
    expect(refusal(await callback(back, 'forged.cookie'))).toBe('no_transaction');
  });

  it('refuses a replayed code', async () => {
    const { authorizationUrl, tx } = await start();
    const back = await signInThrough(authorizationUrl, OIDC_USERS.viewer.sub);
    const first = await callback(back, tx);
    expect(cookieOf(first, 'erawatch_session')).toBeTruthy();
    expect(refusal(await callback(back, tx))).toBe('code_refused');
  });

  /** A hand between Erawatch and the token endpoint that swaps the ID token for `forge(claims)`'s. */
  function swapIdToken(forge: (claims: Record<string, unknown>) => Promise<string>): OidcRuntime {
    return {
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
        if (!url.endsWith('/token')) return res;
        const body = (await res.json()) as Record<string, unknown>;
        const [, payload] = String(body.id_token).split('.');
        const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8')) as Record<
          string,
          unknown
        >;
        return new Response(JSON.stringify({ ...body, id_token: await forge(claims) }), {
          status: res.status,
          headers: { 'content-type': 'application/json' },
        });
      },
    };
  }

  async function refusedWith(runtime: OidcRuntime): Promise<string | null> {
    const { authorizationUrl, tx } = await start();
    const back = await signInThrough(authorizationUrl, OIDC_USERS.admin.sub);
    return refusal(await callback(back, tx, runtime));
  }

  it('refuses an ID token signed with a key that is not the provider’s', async () => {
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const jwk = await exportJWK(privateKey);
    expect(jwk.kty).toBe('RSA');
    const forged = swapIdToken((claims) =>
      new SignJWT({ ...claims, groups: ['mcp-admins'] })
        .setProtectedHeader({ alg: 'RS256', kid: 'fixture-1' })
        .sign(privateKey),
    );
    expect(await refusedWith(forged)).toBe('id_token_invalid');
  });

  it('refuses an expired ID token, even signed with the provider’s own key', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect(
      await refusedWith(
        swapIdToken((claims) => provider.sign({ ...claims, iat: now - 7200, exp: now - 3600 })),
      ),
    ).toBe('id_token_invalid');
  });

  it('refuses an ID token issued in the future beyond a minute, signed with the provider’s own key', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect(await refusedWith(swapIdToken((claims) => provider.sign({ ...claims, iat: now + 3600 })))).toBe(
      'id_token_invalid',
    );
    expect(await refusedWith(swapIdToken((claims) => provider.sign({ ...claims, iat: now + 120 })))).toBe(
      'id_token_invalid',
    );
    // A few seconds ahead is a clock difference, not a forgery: the sign-in goes through.
    const { authorizationUrl, tx } = await start();
    const back = await signInThrough(authorizationUrl, OIDC_USERS.admin.sub);
    const ok = await callback(
      back,
      tx,
      swapIdToken((claims) => provider.sign({ ...claims, iat: now + 5 })),
    );
    expect(cookieOf(ok, 'erawatch_session')).toBeTruthy();
  });

  it('refuses an ID token of another issuer, or for another audience, or with another nonce', async () => {
    expect(
      await refusedWith(swapIdToken((claims) => provider.sign({ ...claims, iss: 'https://evil.example' }))),
    ).toBe('id_token_invalid');
    expect(
      await refusedWith(swapIdToken((claims) => provider.sign({ ...claims, aud: 'someone-else' }))),
    ).toBe('id_token_invalid');
    expect(await refusedWith(swapIdToken((claims) => provider.sign({ ...claims, nonce: 'replayed' })))).toBe(
      'id_token_invalid',
    );
    // The untouched token, re-signed with the provider's key, passes: the refusals above are the claims'.
    const { authorizationUrl, tx } = await start();
    const back = await signInThrough(authorizationUrl, OIDC_USERS.admin.sub);
    const ok = await callback(
      back,
      tx,
      swapIdToken((claims) => provider.sign(claims)),
    );
    expect(cookieOf(ok, 'erawatch_session')).toBeTruthy();
  });

  it('refuses a provider whose discovery names another issuer', async () => {
    const { forgetDiscovered } = await import('@/lib/auth/oidc');
    const { resetProcessSettings } = await import('@/lib/settings');
    const issuer = process.env.ERAWATCH_OIDC_ISSUER ?? '';
    process.env.ERAWATCH_OIDC_ISSUER = issuer.replace('127.0.0.1', 'localhost');
    resetProcessSettings();
    forgetDiscovered();
    try {
      const res = await sso.ssoLoginHandler()(new Request(`${BASE}/auth/login`, { headers: headers('') }));
      expect(refusal(res)).toBe('discovery_failed');
    } finally {
      process.env.ERAWATCH_OIDC_ISSUER = issuer;
      resetProcessSettings();
      forgetDiscovered();
    }
  });

  it('logout ends the session and offers the provider’s logout', async () => {
    const { session } = await signIn('viewer');
    const res = await handler(
      sessionRoute,
      'DELETE',
    )(
      new Request(`${BASE}/api/v1/session`, {
        method: 'DELETE',
        headers: headers(`erawatch_session=${session}`, { origin: BASE }),
      }),
    );
    const body = (await res.json()) as { endSessionUrl?: string };
    const end = new URL(body.endSessionUrl ?? '');
    expect(end.origin).toBe(provider.issuer);
    expect(end.searchParams.get('post_logout_redirect_uri')).toBe(`${BASE}/login`);
    expect(await sessionState(session)).toMatchObject({ authenticated: false });
    // The provider's logout page answers the URL (its confirmation form).
    expect((await fetch(end)).status).toBe(200);
  });

  it('keeps the admin secret as the break-glass login, with the admin role', async () => {
    const res = await handler(
      sessionRoute,
      'POST',
    )(
      new Request(`${BASE}/api/v1/session`, {
        method: 'POST',
        headers: headers('', { origin: BASE, 'content-type': 'application/json' }),
        body: JSON.stringify({ secret: process.env.ERAWATCH_ADMIN_SECRET }),
      }),
    );
    const session = cookieOf(res, 'erawatch_session') ?? '';
    expect(await sessionState(session)).toMatchObject({ authenticated: true, role: 'admin', user: null });
    const tokens = await handler(
      tokensRoute,
      'GET',
    )(new Request(`${BASE}/api/v1/tokens`, { headers: headers(`erawatch_session=${session}`) }));
    expect(tokens.status).toBe(200);
  });
});
