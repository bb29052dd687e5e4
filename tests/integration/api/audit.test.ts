// The audit trail through the real routes and store: who changed a balancer (a signed-in user, a token, the
// admin secret, the config file), from which address, each field before and after with secrets redacted,
// written with the change or not at all; GET /api/v1/audit for admins only, filtered and paged; retention.
import { processSettings } from '@/lib/settings';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stampClientAddress } from '@/lib/api/front-door';
import { storeLocation } from '../../support/store';
import { issueSession } from '@/lib/auth/session';
import type { UserRole } from '@/lib/schemas/session';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-audit-'));
process.env.ERAWATCH_DB = await storeLocation(dir, 'audit.db');
const ADMIN = 'admin-secret-for-audit-tests-0123456789';
process.env.ERAWATCH_ADMIN_SECRET = ADMIN;
process.env.ERAWATCH_BIND = '127.0.0.1';
process.env.ERAWATCH_RATE_LIMIT = '0';
process.env.ERAWATCH_AUTH_FAILURE_LIMIT = '0';
const BASE = 'http://127.0.0.1:3997';

type Handler = (req: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response>;
type Mod = Record<string, Handler | undefined>;

let balancers: Mod;
let balancer: Mod;
let audit: Mod;
let tokens: Mod;

function handler(mod: Mod, method: string): Handler {
  const h = mod[method];
  if (!h) throw new Error(`no ${method} handler`);
  return h;
}

/** A real session cookie of a signed-in user with `role`. */
function sessionFor(role: UserRole, sub: string, email: string): string {
  return issueSession(ADMIN, Date.now(), { user: { sub, email, name: null }, role }).value;
}

interface Call {
  method?: string;
  session?: string;
  bearer?: string;
  body?: unknown;
  params?: Record<string, string>;
  from?: string;
}

async function call(h: Handler, url: string, opts: Call = {}) {
  const headers: Record<string, string> = { host: '127.0.0.1:3997', origin: BASE };
  if (opts.session) headers.cookie = `erawatch_session=${opts.session}`;
  if (opts.bearer) headers.authorization = `Bearer ${opts.bearer}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const stamped = new Headers(headers);
  // The client's socket address, as the server's front door records it (lib/api/front-door.ts).
  if (opts.from) stampClientAddress(stamped, opts.from);
  const res = await h(
    new Request(`${BASE}${url}`, {
      method: opts.method ?? 'GET',
      headers: stamped,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    }),
    { params: Promise.resolve(opts.params ?? {}) },
  );
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

interface Entry {
  id: string;
  at: number;
  actor: { kind: string; id: string | null; name: string | null; address: string | null };
  operation: string;
  subject: { type: string; id: string; name: string | null };
  changes: Record<string, { before: unknown; after: unknown }>;
}

async function trail(query = '', session = sessionFor('admin', 'ada', 'ada@example.test')) {
  const r = await call(handler(audit, 'GET'), `/api/v1/audit${query}`, { session });
  expect(r.status).toBe(200);
  return r.json as { items: Entry[]; nextCursor: string | null };
}

let sinks: Mod;
let sink: Mod;
let webhooks: Mod;
let webhook: Mod;

beforeAll(async () => {
  sinks = (await import('@/app/api/v1/alert-sinks/route')) as unknown as Mod;
  sink = (await import('@/app/api/v1/alert-sinks/[id]/route')) as unknown as Mod;
  webhooks = (await import('@/app/api/v1/webhooks/route')) as unknown as Mod;
  webhook = (await import('@/app/api/v1/webhooks/[id]/route')) as unknown as Mod;
  balancers = (await import('@/app/api/v1/balancers/route')) as unknown as Mod;
  balancer = (await import('@/app/api/v1/balancers/[id]/route')) as unknown as Mod;
  audit = (await import('@/app/api/v1/audit/route')) as unknown as Mod;
  tokens = (await import('@/app/api/v1/tokens/route')) as unknown as Mod;
});

afterAll(async () => {
  const { getStore } = await import('@/db/index');
  await (await getStore({ settings: processSettings() })).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the audit trail', () => {
  it('reads back who changed a balancer, from where, with each field before and after', async () => {
    const otto = sessionFor('operator', 'otto', 'otto@example.test');
    const created = await call(handler(balancers, 'POST'), '/api/v1/balancers', {
      method: 'POST',
      session: otto,
      from: '192.0.2.7',
      body: {
        name: 'audited-one',
        publicUrl: 'https://mcp.example.test/mcp',
        headers: { 'x-api-key': 'very-secret-key' },
      },
    });
    expect(created.status).toBe(201);
    const id = created.json?.id as string;
    const patched = await call(handler(balancer, 'PATCH'), `/api/v1/balancers/${id}`, {
      method: 'PATCH',
      session: otto,
      from: '192.0.2.7',
      params: { id },
      body: { samplesPerCycle: 9, headers: { 'x-api-key': 'another-secret' } },
    });
    expect(patched.status).toBe(200);

    const page = await trail(`?subject=${id}`);
    expect(page.items.map((e) => e.operation)).toEqual(['balancer.update', 'balancer.create']);
    const [update, create] = page.items;
    expect(update).toMatchObject({
      actor: { kind: 'user', id: 'otto', name: 'otto@example.test', address: '192.0.2.7' },
      subject: { type: 'balancer', id, name: 'audited-one' },
    });
    expect(update?.changes.samplesPerCycle).toEqual({ before: 4, after: 9 });
    expect(update?.at).toBeGreaterThan(0);
    expect(create?.changes.name).toEqual({ before: null, after: 'audited-one' });
    // The subject's id is the subject, not a change.
    expect(create?.changes).not.toHaveProperty('id');
    // Secrets never reach the trail: that one changed does, as [changed].
    expect(JSON.stringify(page)).not.toMatch(/very-secret-key|another-secret/);
    expect(create?.changes.headers?.after).toEqual({ 'x-api-key': '[redacted]' });
    expect(update?.changes.headers).toEqual({
      before: { 'x-api-key': '[redacted]' },
      after: { 'x-api-key': '[changed]' },
    });
  });

  it('records a change of a credential alone as [changed], never the value', async () => {
    const otto = sessionFor('operator', 'otto', 'otto@example.test');
    // A probe header's value and an OAuth client secret, each changed alone.
    const made = await call(handler(balancers, 'POST'), '/api/v1/balancers', {
      method: 'POST',
      session: otto,
      body: {
        name: 'credentials-one',
        publicUrl: 'https://mcp.example.test/cred',
        headers: { authorization: 'Bearer first-header-secret', 'x-tenant': 'env:TENANT' },
        auth: {
          type: 'oauth-client-credentials',
          clientId: 'erawatch',
          clientSecret: 'first-client-secret',
          tokenUrl: 'https://auth.example.test/token',
        },
      },
    });
    expect(made.status).toBe(201);
    const id = made.json?.id as string;
    const patch = async (body: unknown) => {
      const r = await call(handler(balancer, 'PATCH'), `/api/v1/balancers/${id}`, {
        method: 'PATCH',
        session: otto,
        params: { id },
        body,
      });
      expect(r.status).toBe(200);
      return (await trail(`?subject=${id}&limit=1`)).items[0];
    };
    const header = await patch({
      headers: { authorization: 'Bearer second-header-secret', 'x-tenant': 'env:TENANT' },
    });
    expect(header?.changes).toEqual({
      headers: {
        before: { authorization: '[redacted]', 'x-tenant': 'env:TENANT' },
        after: { authorization: '[changed]', 'x-tenant': 'env:TENANT' },
      },
    });
    const secret = await patch({
      auth: {
        type: 'oauth-client-credentials',
        clientId: 'erawatch',
        clientSecret: 'second-client-secret',
        tokenUrl: 'https://auth.example.test/token',
      },
    });
    expect(Object.keys(secret?.changes ?? {})).toEqual(['auth']);
    // A patch of `auth` alone leaves the headers as they were.
    const got = await call(handler(balancer, 'GET'), `/api/v1/balancers/${id}`, {
      session: otto,
      params: { id },
    });
    expect(got.json?.headers).toEqual({ authorization: '[redacted]', 'x-tenant': 'env:TENANT' });
    expect(secret?.changes.auth).toMatchObject({
      before: { clientSecret: '[redacted]', clientId: 'erawatch' },
      after: { clientSecret: '[changed]', clientId: 'erawatch' },
    });
    // Sending the shown [redacted] back keeps the secret, and records no change of it.
    const kept = await call(handler(balancer, 'PATCH'), `/api/v1/balancers/${id}`, {
      method: 'PATCH',
      session: otto,
      params: { id },
      body: { headers: { authorization: '[redacted]', 'x-tenant': 'env:TENANT' }, samplesPerCycle: 5 },
    });
    expect(kept.status).toBe(200);
    const [keptEntry] = (await trail(`?subject=${id}&limit=1`)).items;
    expect(Object.keys(keptEntry?.changes ?? {})).toEqual(['samplesPerCycle']);

    // An alert sink's password, changed alone.
    const am = await call(handler(sinks, 'POST'), '/api/v1/alert-sinks', {
      method: 'POST',
      session: otto,
      body: {
        name: 'credentials-sink',
        urls: ['https://am.example.test'],
        auth: { type: 'basic', username: 'erawatch', password: 'first-sink-password' },
      },
    });
    expect(am.status).toBe(201);
    const sinkId = am.json?.id as string;
    const changed = await call(handler(sink, 'PATCH'), `/api/v1/alert-sinks/${sinkId}`, {
      method: 'PATCH',
      session: otto,
      params: { id: sinkId },
      body: { auth: { type: 'basic', username: 'erawatch', password: 'second-sink-password' } },
    });
    expect(changed.status).toBe(200);
    const [sinkEntry] = (await trail(`?subject=${sinkId}&limit=1`)).items;
    expect(sinkEntry).toMatchObject({ operation: 'alert_sink.update' });
    expect(sinkEntry?.changes).toEqual({
      auth: {
        before: { type: 'basic', username: 'erawatch', password: '[redacted]' },
        after: { type: 'basic', username: 'erawatch', password: '[changed]' },
      },
    });

    // The config file changing a sink's password at start-up: recorded the same way.
    const { getStore } = await import('@/db/index');
    const { applyConfig } = await import('@/lib/config/apply');
    const { ConfigFile } = await import('@/lib/schemas/config');
    const store = await getStore({ settings: processSettings() });
    const sinkConfig = (password: string) =>
      ConfigFile.parse({
        alertSinks: [
          {
            name: 'config-sink',
            urls: ['https://am.example.test'],
            auth: { type: 'bearer', token: password },
          },
        ],
      });
    await applyConfig(store, sinkConfig('first-config-token'), Date.now());
    await applyConfig(store, sinkConfig('second-config-token'), Date.now());
    const [configEntry] = (await trail('?actor=config&limit=1')).items;
    expect(configEntry).toMatchObject({ operation: 'alert_sink.update', subject: { name: 'config-sink' } });
    expect(configEntry?.changes.auth).toEqual({
      before: { type: 'bearer', token: '[redacted]' },
      after: { type: 'bearer', token: '[changed]' },
    });

    const all = JSON.stringify(await trail('?limit=500'));
    expect(all).not.toMatch(
      /first-header-secret|second-header-secret|client-secret|sink-password|config-token/,
    );
  });

  it('shows a webhook URL’s query values redacted to a viewer and in the trail, names kept', async () => {
    const otto = sessionFor('operator', 'otto', 'otto@example.test');
    const vera = sessionFor('viewer', 'vera', 'vera@example.test');
    const url = 'https://hooks.example.test/in?apikey=first-query-secret&channel=ops';
    const made = await call(handler(webhooks, 'POST'), '/api/v1/webhooks', {
      method: 'POST',
      session: otto,
      body: { name: 'query-secret', url },
    });
    expect(made.status).toBe(201);
    const id = made.json?.id as string;
    const shown = 'https://hooks.example.test/in?apikey=[redacted]&channel=[redacted]';
    expect(made.json?.url).toBe(shown);
    const one = await call(handler(webhook, 'GET'), `/api/v1/webhooks/${id}`, {
      session: vera,
      params: { id },
    });
    expect(one.status).toBe(200);
    expect(one.json?.url).toBe(shown);
    const list = await call(handler(webhooks, 'GET'), '/api/v1/webhooks', { session: vera });
    expect(JSON.stringify(list.json)).toContain(shown);
    expect(JSON.stringify(list.json)).not.toContain('first-query-secret');

    const { getStore } = await import('@/db/index');
    const { getWebhookRow } = await import('@/db/queries/webhooks');
    const store = await getStore({ settings: processSettings() });
    const patch = (body: unknown) =>
      call(handler(webhook, 'PATCH'), `/api/v1/webhooks/${id}`, {
        method: 'PATCH',
        session: otto,
        params: { id },
        body,
      });
    // The URL sent back as shown keeps the stored values; only what was sent in full changes.
    const kept = await patch({ url: 'https://hooks.example.test/in?apikey=[redacted]&channel=dev' });
    expect(kept.status).toBe(200);
    expect((await getWebhookRow(store, id)).url).toBe(
      'https://hooks.example.test/in?apikey=first-query-secret&channel=dev',
    );
    // A [redacted] value is never carried to another address: refused, nothing changed.
    const elsewhere = await patch({ url: 'https://evil.example.test/in?apikey=[redacted]&channel=dev' });
    expect(elsewhere.status).toBe(422);
    expect((await getWebhookRow(store, id)).url).toBe(
      'https://hooks.example.test/in?apikey=first-query-secret&channel=dev',
    );
    const replaced = await patch({
      url: 'https://hooks.example.test/in?apikey=second-query-secret&channel=dev',
    });
    expect(replaced.status).toBe(200);

    const entries = (await trail(`?subject=${id}`)).items;
    expect(entries.map((e) => e.operation)).toEqual(['webhook.update', 'webhook.update', 'webhook.create']);
    const [second, first, create] = entries;
    expect(create?.changes.url).toEqual({ before: null, after: shown });
    expect(first?.changes.url).toEqual({
      before: shown,
      after: 'https://hooks.example.test/in?apikey=[redacted]&channel=[changed]',
    });
    expect(second?.changes.url).toEqual({
      before: 'https://hooks.example.test/in?apikey=[redacted]&channel=[redacted]',
      after: 'https://hooks.example.test/in?apikey=[changed]&channel=[redacted]',
    });
    expect(JSON.stringify(entries)).not.toMatch(
      /first-query-secret|second-query-secret|channel=ops|channel=dev/,
    );
  });

  it('names the token by id and name, and the admin secret', async () => {
    const minted = await call(handler(tokens, 'POST'), '/api/v1/tokens', {
      method: 'POST',
      bearer: ADMIN,
      body: { name: 'ci-deployer', scope: 'write' },
    });
    expect(minted.status).toBe(201);
    const token = minted.json as { id: string; token: string };
    const created = await call(handler(balancers, 'POST'), '/api/v1/balancers', {
      method: 'POST',
      bearer: token.token,
      body: { name: 'by-token', publicUrl: 'https://mcp.example.test/t' },
    });
    expect(created.status).toBe(201);
    const id = created.json?.id as string;
    const [byToken] = (await trail(`?subject=${id}`)).items;
    expect(byToken?.actor).toMatchObject({ kind: 'token', id: token.id, name: 'ci-deployer' });
    const mintedEntry = (await trail(`?subject=${token.id}`)).items[0];
    expect(mintedEntry).toMatchObject({ operation: 'token.create', actor: { kind: 'admin_secret' } });
    expect(JSON.stringify(mintedEntry)).not.toContain(token.token);
    // Filter by actor: the token's id, or a kind.
    const byActor = await trail(`?actor=${token.id}`);
    expect(byActor.items.map((e) => e.subject.id)).toEqual([id]);
    const bySecret = await trail('?actor=admin_secret');
    expect(bySecret.items.every((e) => e.actor.kind === 'admin_secret')).toBe(true);
  });

  it('writes nothing when the change is refused', async () => {
    const before = (await trail('?limit=500')).items.length;
    const clash = await call(handler(balancers, 'POST'), '/api/v1/balancers', {
      method: 'POST',
      bearer: ADMIN,
      body: { name: 'audited-one', publicUrl: 'https://mcp.example.test/dup' },
    });
    expect(clash.status).toBe(409);
    expect((await trail('?limit=500')).items.length).toBe(before);
  });

  it('pages with a cursor and filters by time', async () => {
    const first = await trail('?limit=2');
    expect(first.items).toHaveLength(2);
    expect(first.nextCursor).toBeTruthy();
    const second = await trail(`?limit=2&cursor=${first.nextCursor}`);
    const ids = [...first.items, ...second.items].map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    const all = (await trail('?limit=500')).items;
    expect(all.slice(0, 4).map((e) => e.id)).toEqual(ids);
    const newest = all[0]?.at ?? 0;
    expect((await trail(`?since=${newest + 1}`)).items).toEqual([]);
    expect((await trail(`?until=${newest + 1}`)).items.length).toBe(all.length);
    const bad = await call(handler(audit, 'GET'), '/api/v1/audit?cursor=nope', {
      session: sessionFor('admin', 'ada', 'ada@example.test'),
    });
    expect(bad.status).toBe(400);
  });

  it('is for admins only', async () => {
    for (const role of ['viewer', 'operator'] as const) {
      const r = await call(handler(audit, 'GET'), '/api/v1/audit', { session: sessionFor(role, 'x', 'x@y') });
      expect(r.status).toBe(403);
    }
  });

  it('records the config file at start-up as the actor, and prunes by retention', async () => {
    const { getStore } = await import('@/db/index');
    const { applyConfig } = await import('@/lib/config/apply');
    const { ConfigFile } = await import('@/lib/schemas/config');
    const { pruneAudit } = await import('@/db/queries/audit');
    const store = await getStore({ settings: processSettings() });
    const config = ConfigFile.parse({
      balancers: [{ name: 'from-config', publicUrl: 'https://mcp.example.test/c' }],
    });
    await applyConfig(store, config, Date.now());
    const [entry] = (await trail('?actor=config')).items;
    expect(entry).toMatchObject({
      operation: 'balancer.create',
      actor: { kind: 'config', name: 'config file' },
      subject: { name: 'from-config' },
    });
    const all = (await trail('?limit=500')).items;
    const oldest = Math.min(...all.map((e) => e.at));
    expect(await pruneAudit(store, oldest)).toBe(0);
    expect(await pruneAudit(store, Date.now() + 1)).toBe(all.length);
    expect((await trail()).items).toEqual([]);
  });
});
