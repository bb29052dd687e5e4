// What an admin does with other people's dashboard sessions, against a real OpenID Connect provider
// (oidc-provider on loopback) and the real routes and store: every session issued (single sign-on, the admin
// secret's login) is listed while live, an admin ends one and its cookie is refused from then on, the end is
// in the audit trail, the maintain role prunes the expired records; and a user who signs in with a lower
// role than before finds the tokens they own brought down to it.
import { processSettings } from '@/lib/settings';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stampClientAddress } from '@/lib/api/front-door';
import { storeLocation } from '../../support/store';
import {
  OIDC_GROUP_SETTINGS,
  OIDC_USERS,
  signInThrough,
  startOidcProvider,
  type OidcFixture,
} from '../../support/oidc-provider';
import { pollUntil } from '../../support/wait';
import { testSettings } from '../../support/settings';
import type { DashboardSession } from '@/lib/schemas/session';
import type { ApiToken } from '@/lib/schemas/token';

const BASE = 'http://127.0.0.1:3995';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-sessions-'));
process.env.ERAWATCH_DB = await storeLocation(dir, 'sessions.db');
const ADMIN = 'admin-secret-for-session-tests-0123456789';
process.env.ERAWATCH_ADMIN_SECRET = ADMIN;
process.env.ERAWATCH_BIND = '127.0.0.1';
process.env.ERAWATCH_PUBLIC_URL = BASE;
process.env.ERAWATCH_RATE_LIMIT = '0';
process.env.ERAWATCH_AUTH_FAILURE_LIMIT = '0';

type Handler = (req: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response>;
type Mod = Record<string, Handler | undefined>;

let provider: OidcFixture;
let sso: typeof import('@/lib/api/sso');
let sessions: Mod;
let session: Mod;
let sessionRoute: Mod;
let balancers: Mod;
let tokens: Mod;

function handler(mod: Mod, method: string): Handler {
  const h = mod[method];
  if (!h) throw new Error(`no ${method} handler`);
  return h;
}

interface Call {
  method?: string;
  cookie?: string;
  bearer?: string;
  body?: unknown;
  params?: Record<string, string>;
  from?: string;
}

/** A request as the server's front door hands it on: Host, Origin and the stamped client address. */
function request(url: string, opts: Call = {}): Request {
  const headers = new Headers({ host: '127.0.0.1:3995', origin: BASE });
  if (opts.cookie) headers.set('cookie', opts.cookie);
  if (opts.bearer) headers.set('authorization', `Bearer ${opts.bearer}`);
  if (opts.body !== undefined) headers.set('content-type', 'application/json');
  if (opts.from) stampClientAddress(headers, opts.from);
  return new Request(`${BASE}${url}`, {
    method: opts.method ?? 'GET',
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
}

async function call(h: Handler, url: string, opts: Call = {}) {
  const res = await h(request(url, opts), { params: Promise.resolve(opts.params ?? {}) });
  const text = await res.text();
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    json: text ? (JSON.parse(text) as Record<string, unknown>) : null,
    res,
  };
}

function cookieOf(res: Response, name: string): string | null {
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(';');
    if (pair?.startsWith(`${name}=`)) return pair.slice(name.length + 1);
  }
  return null;
}

/** A dashboard session's cookie header, and its id (what the listing names). */
interface Signed {
  cookie: string;
  sid: string;
}

async function sidOf(cookie: string): Promise<string> {
  const { verifySession } = await import('@/lib/auth/session');
  const value = cookie.slice('erawatch_session='.length);
  const s = verifySession(value, ADMIN, Date.now());
  if (!s) throw new Error('not a session cookie of this server');
  return s.sid;
}

/** Signs in through the provider's login and consent pages as `who`, from client address `from`. */
async function signIn(who: keyof typeof OIDC_USERS, from: string): Promise<Signed> {
  const start = await sso.ssoLoginHandler()(request('/auth/login', { from }));
  expect(start.status).toBe(303);
  const tx = cookieOf(start, 'erawatch_oidc') ?? '';
  const back = await signInThrough(start.headers.get('location') ?? '', OIDC_USERS[who].sub);
  const res = await sso.ssoCallbackHandler()(
    request(`/auth/callback${back.search}`, { cookie: `erawatch_oidc=${tx}`, from }),
  );
  expect(res.status).toBe(303);
  const value = cookieOf(res, 'erawatch_session');
  expect(value, `${who} got a session`).toBeTruthy();
  const cookie = `erawatch_session=${value}`;
  return { cookie, sid: await sidOf(cookie) };
}

/** The break-glass login with the admin secret, through POST /api/v1/session. */
async function secretLogin(from: string): Promise<Signed> {
  const r = await call(handler(sessionRoute, 'POST'), '/api/v1/session', {
    method: 'POST',
    body: { secret: ADMIN },
    from,
  });
  expect(r.status).toBe(200);
  const cookie = `erawatch_session=${cookieOf(r.res, 'erawatch_session')}`;
  return { cookie, sid: await sidOf(cookie) };
}

async function live(as: Signed): Promise<DashboardSession[]> {
  const r = await call(handler(sessions, 'GET'), '/api/v1/sessions', { cookie: as.cookie });
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  // Exactly what the route table's schema says: nothing missing, nothing undocumented.
  const { ROUTES } = await import('@/lib/api/routes');
  expect(ROUTES.listSessions.response.parse(r.json)).toEqual(r.json);
  return (r.json as { items: DashboardSession[] }).items;
}

const end = (as: Call, sid: string) =>
  call(handler(session, 'DELETE'), `/api/v1/sessions/${sid}`, {
    ...as,
    method: 'DELETE',
    params: { id: sid },
  });

let ada: Signed;
let vera: Signed;
let otto: Signed;
let breakGlass: Signed;

beforeAll(async () => {
  provider = await startOidcProvider({ redirectUris: [`${BASE}/auth/callback`] });
  process.env.ERAWATCH_OIDC_ISSUER = provider.issuer;
  process.env.ERAWATCH_OIDC_CLIENT_ID = provider.clientId;
  process.env.ERAWATCH_OIDC_CLIENT_SECRET = provider.clientSecret;
  Object.assign(process.env, OIDC_GROUP_SETTINGS);
  sso = await import('@/lib/api/sso');
  sessions = (await import('@/app/api/v1/sessions/route')) as unknown as Mod;
  session = (await import('@/app/api/v1/sessions/[id]/route')) as unknown as Mod;
  sessionRoute = (await import('@/app/api/v1/session/route')) as unknown as Mod;
  balancers = (await import('@/app/api/v1/balancers/route')) as unknown as Mod;
  tokens = (await import('@/app/api/v1/tokens/route')) as unknown as Mod;
  breakGlass = await secretLogin('192.0.2.10');
  vera = await signIn('viewer', '192.0.2.11');
  otto = await signIn('operator', '192.0.2.12');
  ada = await signIn('admin', '192.0.2.13');
});

afterAll(async () => {
  await provider?.close();
  const { getStore } = await import('@/db/index');
  await (await getStore({ settings: processSettings() })).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('an admin and other people’s sessions', () => {
  it('lists every live session, newest first: how it was issued, who, the role, from where, which is mine', async () => {
    const items = await live(ada);
    expect(items.map((s) => s.id)).toEqual([ada.sid, otto.sid, vera.sid, breakGlass.sid]);
    expect(items.map((s) => s.current)).toEqual([true, false, false, false]);
    expect(items[0]).toMatchObject({
      issuedVia: 'sso',
      role: 'admin',
      user: { sub: 'ada', email: OIDC_USERS.admin.email, name: OIDC_USERS.admin.name },
      address: '192.0.2.13',
    });
    expect(items[2]).toMatchObject({ issuedVia: 'sso', role: 'viewer', address: '192.0.2.11' });
    expect(items[3]).toMatchObject({
      issuedVia: 'admin_secret',
      role: 'admin',
      user: null,
      address: '192.0.2.10',
    });
    for (const s of items) expect(s.expiresAt - s.issuedAt).toBe(12 * 3_600_000);
    // The admin secret's own session lists them too, and marks itself.
    expect((await live(breakGlass)).find((s) => s.current)?.id).toBe(breakGlass.sid);
  });

  it('refuses a viewer and an operator with 403 problem+json, listing or ending', async () => {
    for (const who of [vera, otto]) {
      const list = await call(handler(sessions, 'GET'), '/api/v1/sessions', { cookie: who.cookie });
      expect(list.status).toBe(403);
      expect(list.type).toContain('application/problem+json');
      expect(String(list.json?.detail)).toContain('needs the admin role');
      const ended = await end({ cookie: who.cookie }, ada.sid);
      expect(ended.status).toBe(403);
      expect(ended.type).toContain('application/problem+json');
    }
    expect((await live(ada)).map((s) => s.id)).toContain(ada.sid);
  });

  it('ends another’s session: its cookie gets 401, it leaves the list, and the audit trail says who', async () => {
    const before = await call(handler(balancers, 'GET'), '/api/v1/balancers', { cookie: vera.cookie });
    expect(before.status).toBe(200);
    const ended = await end({ cookie: ada.cookie, from: '192.0.2.13' }, vera.sid);
    expect(ended.status).toBe(204);
    const after = await call(handler(balancers, 'GET'), '/api/v1/balancers', { cookie: vera.cookie });
    expect(after.status).toBe(401);
    expect(after.type).toContain('application/problem+json');
    expect((await live(ada)).map((s) => s.id)).not.toContain(vera.sid);

    const { getStore } = await import('@/db/index');
    const { listAudit } = await import('@/db/queries/audit');
    const { items } = await listAudit(await getStore({ settings: processSettings() }), { subject: vera.sid });
    expect(items[0]).toMatchObject({
      operation: 'session.end',
      actor: { kind: 'user', id: 'ada', name: OIDC_USERS.admin.email, address: '192.0.2.13' },
      subject: { type: 'session', id: vera.sid, name: OIDC_USERS.viewer.email },
    });
    expect(Object.keys(items[0]?.changes ?? {})).toEqual(['endedAt']);
    expect(items[0]?.changes.endedAt?.before).toBeNull();
    expect(items[0]?.changes.endedAt?.after).toBeTypeOf('number');
    expect(items.map((e) => e.operation)).toContain('session.login');
  });

  it('answers 404 problem+json for an unknown or already-ended session, and records nothing', async () => {
    const { getStore } = await import('@/db/index');
    const { listAudit } = await import('@/db/queries/audit');
    const store = await getStore({ settings: processSettings() });
    for (const sid of [vera.sid, 'no-such-session']) {
      const r = await end({ cookie: ada.cookie }, sid);
      expect(r.status).toBe(404);
      expect(r.type).toContain('application/problem+json');
      expect(String(r.json?.detail)).toContain(sid);
    }
    const ends = (await listAudit(store, { actor: 'ada' })).items.filter(
      (e) => e.operation === 'session.end',
    );
    expect(ends).toHaveLength(1);
  });

  it('a logout takes its session off the list too', async () => {
    const other = await secretLogin('192.0.2.20');
    expect((await live(ada)).map((s) => s.id)).toContain(other.sid);
    const out = await call(handler(sessionRoute, 'DELETE'), '/api/v1/session', {
      method: 'DELETE',
      cookie: other.cookie,
    });
    expect(out.status).toBe(200);
    expect((await live(ada)).map((s) => s.id)).not.toContain(other.sid);
    expect((await end({ cookie: ada.cookie }, other.sid)).status).toBe(404);
  });

  it('the maintain role prunes the records of expired sessions, and keeps the live ones', async () => {
    const { getStore } = await import('@/db/index');
    const { recordDashboardSession } = await import('@/db/queries/sessions');
    const { startMaintenance } = await import('@/lib/worker/maintain');
    const store = await getStore({ settings: processSettings() });
    const old = Date.now() - 13 * 3_600_000;
    await recordDashboardSession(store, {
      id: 'expired-session',
      issuedVia: 'admin_secret',
      role: 'admin',
      user: null,
      address: '192.0.2.30',
      issuedAt: old,
      expiresAt: old + 12 * 3_600_000,
    });
    const count = async (sid: string) =>
      (
        await store.read((db) =>
          db.select().from(store.t.dashboardSessions).where(eq(store.t.dashboardSessions.sid, sid)),
        )
      ).length;
    expect(await count('expired-session')).toBe(1);
    // Expired sessions are not listed even before they are pruned.
    expect((await live(ada)).map((s) => s.id)).not.toContain('expired-session');
    const lines: string[] = [];
    const job = await startMaintenance({
      store,
      settings: testSettings(),
      applyConfig: false,
      log: (l) => lines.push(l),
    });
    try {
      await pollUntil('a maintain run', 60_000, () => job.status().runs >= 1);
    } finally {
      await job.stop();
    }
    expect(job.status().lastError).toBeNull();
    expect(await count('expired-session')).toBe(0);
    expect(await count(ada.sid)).toBe(1);
    expect(lines.join('\n')).toContain('1 expired sessions');
  });
});

describe('a token never outranks its owner', () => {
  it('lowers the tokens a user owns to the scope their new, lower role may mint when they sign in', async () => {
    const { getStore } = await import('@/db/index');
    const { listAudit } = await import('@/db/queries/audit');
    const mint = async (who: Signed, name: string, scope: string) => {
      const r = await call(handler(tokens, 'POST'), '/api/v1/tokens', {
        method: 'POST',
        cookie: who.cookie,
        body: { name, scope },
      });
      expect(r.status, JSON.stringify(r.json)).toBe(201);
      return r.json as ApiToken & { token: string };
    };
    const write = await mint(otto, 'otto-deploys', 'write');
    const read = await mint(otto, 'otto-reads', 'read');
    const adas = await mint(ada, 'ada-deploys', 'write');
    const createBalancer = (bearer: string, name: string) =>
      call(handler(balancers, 'POST'), '/api/v1/balancers', {
        method: 'POST',
        bearer,
        body: { name, publicUrl: 'https://mcp.example.test/mcp' },
      });
    expect((await createBalancer(write.token, 'before-demotion')).status).toBe(201);

    // An operator who signs in again as an operator keeps the write token.
    await signIn('operator', '192.0.2.12');
    const scopes = async () =>
      Object.fromEntries(
        (
          (await call(handler(tokens, 'GET'), '/api/v1/tokens', { cookie: ada.cookie })).json as {
            items: ApiToken[];
          }
        ).items.map((t) => [t.name, t.scope]),
      );
    expect(await scopes()).toMatchObject({ 'otto-deploys': 'write', 'otto-reads': 'read' });

    // The provider moves otto out of the operators; his next sign-in is as a viewer.
    provider.setGroups('otto', ['mcp-viewers']);
    try {
      const demoted = await signIn('operator', '192.0.2.12');
      expect((await live(ada)).find((s) => s.id === demoted.sid)?.role).toBe('viewer');
    } finally {
      provider.setGroups('otto', OIDC_USERS.operator.groups);
    }
    expect(await scopes()).toMatchObject({
      'otto-deploys': 'read',
      'otto-reads': 'read',
      'ada-deploys': 'write',
    });
    const refused = await createBalancer(write.token, 'after-demotion');
    expect(refused.status).toBe(403);
    expect(String(refused.json?.type)).toMatch(/insufficient_scope$/);
    expect((await call(handler(balancers, 'GET'), '/api/v1/balancers', { bearer: write.token })).status).toBe(
      200,
    );
    expect((await createBalancer(adas.token, 'ada-still-writes')).status).toBe(201);

    // Audited as his sign-in, in the trail with the login that caused it.
    const { items } = await listAudit(await getStore({ settings: processSettings() }), { subject: write.id });
    expect(items[0]).toMatchObject({
      operation: 'token.cap_scope',
      actor: { kind: 'user', id: 'otto', name: OIDC_USERS.operator.email, address: '192.0.2.12' },
      subject: { type: 'token', id: write.id, name: 'otto-deploys' },
      changes: { scope: { before: 'write', after: 'read' } },
    });
    expect(
      (await listAudit(await getStore({ settings: processSettings() }), { subject: read.id })).items.map(
        (e) => e.operation,
      ),
    ).toEqual(['token.create']);
  });
});
