// Every route × every role: each operation of the route table (lib/api/routes.ts) is called as a viewer, an
// operator and an admin (real session cookies), with read and write tokens, the admin secret and no
// credential. Who may is this file's own written policy (POLICY), never the route table's `access`: where the
// policy's role may not, the answer is 403 problem+json (401 without a credential); where it may, it is
// anything but those. Tokens: everyone sees their own, an admin all; nobody mints above their role.
import { processSettings } from '@/lib/settings';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeLocation } from '../../support/store';
import { issueSession } from '@/lib/auth/session';
import type { UserRole } from '@/lib/schemas/session';
import type { Access } from '@/lib/api/routes';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-roles-'));
process.env.ERAWATCH_DB = await storeLocation(dir, 'roles.db');
const ADMIN = 'admin-secret-for-role-tests-0123456789';
process.env.ERAWATCH_ADMIN_SECRET = ADMIN;
process.env.ERAWATCH_BIND = '127.0.0.1';
process.env.ERAWATCH_RATE_LIMIT = '0';
process.env.ERAWATCH_AUTH_FAILURE_LIMIT = '0';
// A probe-now of a balancer that does not exist answers 404 at once; a short wait bounds anything else.
process.env.ERAWATCH_GATE_FRESH_WAIT_MS = '100';
const BASE = 'http://127.0.0.1:3996';
const root = path.resolve(__dirname, '../../..');

type Handler = (req: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response>;
type Mod = Record<string, Handler | undefined>;

type Caller = 'anonymous' | 'readToken' | 'writeToken' | 'viewer' | 'operator' | 'admin' | 'adminSecret';
const CALLERS: Caller[] = [
  'anonymous',
  'readToken',
  'writeToken',
  'viewer',
  'operator',
  'admin',
  'adminSecret',
];

/**
 * The policy: each operation's least role, written out here on its own and never read from the route table
 * under test (lib/api/routes.ts), so a change of who may call an operation must be made in both places.
 * `account` is any signed-in person of any role but never a token (one's own tokens); `public` needs nothing.
 */
const POLICY: Record<string, Access> = {
  listBalancers: 'viewer',
  createBalancer: 'operator',
  getBalancer: 'viewer',
  updateBalancer: 'operator',
  deleteBalancer: 'operator',
  listBalancerNodes: 'viewer',
  getGate: 'viewer',
  flaggerGate: 'public',
  flaggerRollback: 'public',
  probeBalancer: 'operator',
  getOpenRollout: 'viewer',
  openRollout: 'operator',
  closeRollout: 'operator',
  getNode: 'viewer',
  getNodeHistory: 'viewer',
  getBalancerHistory: 'viewer',
  listStdioTargets: 'viewer',
  postStdioTargets: 'public',
  putStdioTargets: 'public',
  patchStdioTargets: 'public',
  deleteStdioTargets: 'public',
  getStdioTarget: 'viewer',
  postStdioTarget: 'public',
  putStdioTarget: 'public',
  patchStdioTarget: 'public',
  deleteStdioTarget: 'public',
  listEvents: 'viewer',
  listWebhooks: 'viewer',
  createWebhook: 'operator',
  getWebhook: 'viewer',
  updateWebhook: 'operator',
  deleteWebhook: 'operator',
  rotateWebhookSecret: 'operator',
  testWebhook: 'operator',
  listWebhookDeliveries: 'viewer',
  redeliverWebhook: 'operator',
  listAlertSinks: 'viewer',
  createAlertSink: 'operator',
  getAlertSink: 'viewer',
  updateAlertSink: 'operator',
  deleteAlertSink: 'operator',
  listSinkAlerts: 'viewer',
  listAlertSinkDeliveries: 'viewer',
  redeliverAlertSinkPush: 'operator',
  listTokens: 'account',
  createToken: 'account',
  revokeToken: 'account',
  revokeOwnerTokens: 'admin',
  listAudit: 'admin',
  listSessions: 'admin',
  endSession: 'admin',
  getSession: 'public',
  login: 'public',
  logout: 'public',
  getOpenApiDocument: 'public',
  getConfigSchema: 'public',
  dashboardFleet: 'viewer',
  dashboardBalancer: 'viewer',
  dashboardBalancerNodes: 'viewer',
  dashboardNodeLabels: 'viewer',
  dashboardNodeRollups: 'viewer',
  metrics: 'viewer',
  readiness: 'public',
  liveness: 'public',
  startSignIn: 'public',
  finishSignIn: 'public',
};

/** What each least role lets each caller do, written out rather than derived from the code under test. */
const MAY: Record<Exclude<Access, 'public'>, Caller[]> = {
  viewer: ['readToken', 'writeToken', 'viewer', 'operator', 'admin', 'adminSecret'],
  operator: ['writeToken', 'operator', 'admin', 'adminSecret'],
  admin: ['admin', 'adminSecret'],
  account: ['viewer', 'operator', 'admin', 'adminSecret'],
};

const credentials: Record<Caller, Record<string, string>> = {
  anonymous: {},
  readToken: {},
  writeToken: {},
  viewer: {},
  operator: {},
  admin: {},
  adminSecret: { authorization: `Bearer ${ADMIN}` },
};

function session(role: UserRole, sub: string): Record<string, string> {
  const s = issueSession(ADMIN, Date.now(), {
    user: { sub, email: `${sub}@example.test`, name: null },
    role,
  });
  return { cookie: `erawatch_session=${s.value}` };
}

async function call(h: Handler, url: string, method: string, who: Caller, body?: unknown) {
  const headers: Record<string, string> = { host: '127.0.0.1:3996', origin: BASE, ...credentials[who] };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const params = Object.fromEntries(
    [...url.matchAll(/\/missing-(\w+)/g)].map((m) => [m[1] ?? '', `missing-${m[1] ?? ''}`]),
  );
  const res = await h(
    new Request(`${BASE}${url}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    { params: Promise.resolve(params) },
  );
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', text };
}

/** The route table's operations (their paths and handlers); who may call each is POLICY's, not theirs. */
let operations: Array<{ operationId: string; method: string; path: string; access: Access }>;
const handlers = new Map<string, Handler>();

beforeAll(async () => {
  const { routeEntries } = await import('@/lib/api/routes');
  operations = routeEntries().map((r) => ({
    operationId: r.operationId,
    method: r.method.toLowerCase(),
    path: r.path,
    access: r.access,
  }));
  // Every route file's exports, by the operation each serves.
  const files = (fs.readdirSync(path.join(root, 'app'), { recursive: true }) as string[]).filter(
    (f) => path.basename(f) === 'route.ts',
  );
  for (const file of files.map((f) => path.join('app', f))) {
    const mod = (await import(path.join(root, file))) as Record<string, unknown>;
    for (const value of Object.values(mod)) {
      const id = (value as { operationId?: string } | null)?.operationId;
      if (typeof value === 'function' && id) handlers.set(id, value as Handler);
    }
  }
  credentials.viewer = session('viewer', 'vera');
  credentials.operator = session('operator', 'otto');
  credentials.admin = session('admin', 'ada');
  const tokens = (await import('@/app/api/v1/tokens/route')) as unknown as Mod;
  const mint = async (scope: string) => {
    const r = await call(tokens.POST as Handler, '/api/v1/tokens', 'POST', 'adminSecret', {
      name: `role-${scope}`,
      scope,
    });
    expect(r.status).toBe(201);
    return (JSON.parse(r.text) as { token: string }).token;
  };
  credentials.readToken = { authorization: `Bearer ${await mint('read')}` };
  credentials.writeToken = { authorization: `Bearer ${await mint('write')}` };
});

afterAll(async () => {
  const { getStore } = await import('@/db/index');
  await (await getStore({ settings: processSettings() })).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('every route × every role', () => {
  it('has a least role in the written policy for every operation, and no other', () => {
    expect(Object.keys(POLICY).sort()).toEqual(operations.map((o) => o.operationId).sort());
    // A public operation is public in the table too (the walk below calls only the others).
    for (const op of operations) {
      if (POLICY[op.operationId] === 'public' || op.access === 'public') {
        expect(op.access, `${op.operationId} in the route table`).toBe(POLICY[op.operationId]);
      }
    }
  });

  it('refuses with 403 problem+json exactly where the policy’s role may not', async () => {
    const walked: string[] = [];
    for (const op of operations) {
      const least = POLICY[op.operationId];
      expect(least, `${op.operationId} has a least role in POLICY`).toBeDefined();
      if (least === undefined || least === 'public') continue;
      const h = handlers.get(op.operationId);
      expect(h, `${op.method} ${op.path} has a handler`).toBeTypeOf('function');
      // Ids that do not exist: an allowed call gets as far as the handler (404, 422 …), never 401/403.
      const url = `${op.path.replace(/\{(\w+)\}/g, (_m, name: string) => `missing-${name}`)}`;
      const body = op.method === 'get' || op.method === 'delete' ? undefined : {};
      for (const who of CALLERS) {
        const r = await call(h as Handler, url, op.method.toUpperCase(), who, body);
        const may = MAY[least].includes(who);
        const what = `${who} ${op.method.toUpperCase()} ${op.path} → ${r.status} ${r.text.slice(0, 120)}`;
        if (may) {
          expect([401, 403], what).not.toContain(r.status);
          expect(r.status, what).toBeLessThan(500);
        } else {
          expect(r.status, what).toBe(who === 'anonymous' ? 401 : 403);
          expect(r.type, what).toContain('application/problem+json');
        }
        walked.push(what);
      }
    }
    // The walk covered the API: every non-public operation, every caller.
    expect(walked.length).toBe(Object.values(POLICY).filter((a) => a !== 'public').length * CALLERS.length);
  });
});

describe('tokens belong to people', () => {
  it('shows each their own, an admin everyone’s; refuses minting above one’s role; revokes only one’s own', async () => {
    const tokens = (await import('@/app/api/v1/tokens/route')) as unknown as Mod;
    const token = (await import('@/app/api/v1/tokens/[id]/route')) as unknown as Mod;
    const post = tokens.POST as Handler;
    const mine = await call(post, '/api/v1/tokens', 'POST', 'viewer', { name: 'vera-read', scope: 'read' });
    expect(mine.status).toBe(201);
    const made = JSON.parse(mine.text) as { id: string; createdBy: string; createdByName: string };
    expect(made).toMatchObject({ createdBy: 'user:vera', createdByName: 'vera@example.test' });
    const above = await call(post, '/api/v1/tokens', 'POST', 'viewer', {
      name: 'vera-write',
      scope: 'write',
    });
    expect(above.status).toBe(403);
    expect(above.type).toContain('application/problem+json');
    expect(above.text).toContain('scope_above_role');
    expect(
      (await call(post, '/api/v1/tokens', 'POST', 'operator', { name: 'otto-write', scope: 'write' })).status,
    ).toBe(201);

    const list = async (who: Caller) =>
      (
        JSON.parse((await call(tokens.GET as Handler, '/api/v1/tokens', 'GET', who)).text) as {
          items: Array<{ name: string }>;
        }
      ).items.map((t) => t.name);
    expect(await list('viewer')).toEqual(['vera-read']);
    expect(await list('operator')).toEqual(['otto-write']);
    expect((await list('admin')).sort()).toEqual(['otto-write', 'role-read', 'role-write', 'vera-read']);

    // The operator cannot see, so cannot revoke, the viewer's token; the viewer and an admin can.
    const revoke = (who: Caller) =>
      token.DELETE?.(
        new Request(`${BASE}/api/v1/tokens/${made.id}`, {
          method: 'DELETE',
          headers: { host: '127.0.0.1:3996', origin: BASE, ...credentials[who] },
        }),
        { params: Promise.resolve({ id: made.id }) },
      ) as Promise<Response>;
    expect((await revoke('operator')).status).toBe(404);
    expect((await revoke('viewer')).status).toBe(200);
    expect((await revoke('admin')).status).toBe(200);
  });
});

describe('token expiry, and one person’s tokens', () => {
  const balancersGet = async (bearer: string) =>
    (
      await (handlers.get('listBalancers') as Handler)(
        new Request(`${BASE}/api/v1/balancers`, {
          headers: { host: '127.0.0.1:3996', authorization: `Bearer ${bearer}` },
        }),
      )
    ).status;

  it('refuses an expiry in the past, too far ahead or not a time, and makes nothing', async () => {
    const tokens = (await import('@/app/api/v1/tokens/route')) as unknown as Mod;
    const post = tokens.POST as Handler;
    const count = async () =>
      (
        JSON.parse((await call(tokens.GET as Handler, '/api/v1/tokens', 'GET', 'admin')).text) as {
          items: unknown[];
        }
      ).items.length;
    const before = await count();
    for (const expiresAt of [Date.now() - 1000, Date.now() + 6 * 365 * 86_400_000, 'tomorrow', -5, 1.5]) {
      const r = await call(post, '/api/v1/tokens', 'POST', 'operator', {
        name: 'bad-expiry',
        scope: 'read',
        expiresAt,
      });
      expect(r.status, String(expiresAt)).toBe(422);
      expect(r.type).toContain('application/problem+json');
      expect(r.text).toContain('/expiresAt');
    }
    expect(await count()).toBe(before);
  });

  it('an expired token is refused (401), one before its expiry accepted; the listing says when', async () => {
    const tokens = (await import('@/app/api/v1/tokens/route')) as unknown as Mod;
    const at = new Date(Date.now() + 3_600_000);
    const r = await call(tokens.POST as Handler, '/api/v1/tokens', 'POST', 'operator', {
      name: 'otto-expiring',
      scope: 'read',
      expiresAt: at.toISOString(),
    });
    expect(r.status).toBe(201);
    const made = JSON.parse(r.text) as { id: string; token: string; expiresAt: number };
    expect(made.expiresAt).toBe(at.getTime());
    expect(await balancersGet(made.token)).toBe(200);
    // Its time comes (the stored expiry moved to the past, as the clock would): refused from then on.
    const { getStore } = await import('@/db/index');
    const { eq } = await import('drizzle-orm');
    const store = await getStore({ settings: processSettings() });
    const { apiTokens } = store.t;
    await store.write((tx) =>
      tx
        .update(apiTokens)
        .set({ expiresAt: Date.now() - 1 })
        .where(eq(apiTokens.id, made.id)),
    );
    expect(await balancersGet(made.token)).toBe(401);
    const { findTokenBySecret } = await import('@/lib/auth/api-tokens');
    expect(await findTokenBySecret(store, made.token, Date.now())).toBeNull();
    expect(await findTokenBySecret(store, made.token, Date.now() - 60_000)).not.toBeNull();
  });

  it('an admin lists one person’s tokens and revokes them all at once, audited; nobody else can', async () => {
    const tokens = (await import('@/app/api/v1/tokens/route')) as unknown as Mod;
    const revokeAll = (await import('@/app/api/v1/tokens/revoke/route')) as unknown as Mod;
    const veraToken = await call(tokens.POST as Handler, '/api/v1/tokens', 'POST', 'viewer', {
      name: 'vera-kept',
      scope: 'read',
    });
    const vera = (JSON.parse(veraToken.text) as { token: string }).token;
    const minted: string[] = [];
    for (const name of ['otto-a', 'otto-b']) {
      const r = await call(tokens.POST as Handler, '/api/v1/tokens', 'POST', 'operator', {
        name,
        scope: 'write',
      });
      expect(r.status).toBe(201);
      minted.push((JSON.parse(r.text) as { token: string }).token);
    }
    const list = async (who: Caller, owner: string) => {
      const r = await call(
        tokens.GET as Handler,
        `/api/v1/tokens?owner=${encodeURIComponent(owner)}`,
        'GET',
        who,
      );
      return {
        status: r.status,
        items:
          r.status === 200
            ? (
                JSON.parse(r.text) as {
                  items: Array<{ name: string; createdBy: string; revokedAt: number | null }>;
                }
              ).items
            : [],
      };
    };
    const ottos = await list('admin', 'user:otto');
    expect(ottos.items.length).toBeGreaterThanOrEqual(2);
    expect(ottos.items.every((t) => t.createdBy === 'user:otto')).toBe(true);
    // A non-admin sees only their own, whatever owner they name.
    expect((await list('viewer', 'user:otto')).items).toEqual([]);
    expect((await list('admin', 'nobody-shaped')).status).toBe(400);

    const refused = await call(revokeAll.POST as Handler, '/api/v1/tokens/revoke', 'POST', 'operator', {
      owner: 'user:otto',
    });
    expect(refused.status).toBe(403);
    for (const t of minted) expect(await balancersGet(t)).toBe(200);

    const done = await call(revokeAll.POST as Handler, '/api/v1/tokens/revoke', 'POST', 'admin', {
      owner: 'user:otto',
    });
    expect(done.status).toBe(200);
    const revoked = (JSON.parse(done.text) as { items: Array<{ name: string; revokedAt: number | null }> })
      .items;
    expect(revoked.map((t) => t.name)).toEqual(expect.arrayContaining(['otto-a', 'otto-b']));
    expect(revoked.every((t) => t.revokedAt !== null)).toBe(true);
    for (const t of minted) expect(await balancersGet(t)).toBe(401);
    // Every one of otto's is revoked now, but the one that had expired (it was live no more).
    expect(
      (await list('admin', 'user:otto')).items
        .filter((t) => t.name !== 'otto-expiring')
        .every((t) => t.revokedAt !== null),
    ).toBe(true);
    // Another person's tokens are untouched.
    expect(await balancersGet(vera)).toBe(200);

    const { getStore } = await import('@/db/index');
    const { listAudit } = await import('@/db/queries/audit');
    const entries = (
      await listAudit(await getStore({ settings: processSettings() }), { actor: 'ada', limit: 500 })
    ).items.filter((e) => e.operation === 'token.revoke');
    expect(entries.map((e) => e.subject.name)).toEqual(expect.arrayContaining(['otto-a', 'otto-b']));
    expect(entries[0]?.changes.revokedBecause?.after).toBe('an admin revoked every token of user:otto');
  });
});
