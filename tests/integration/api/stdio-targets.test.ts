// The stdio target routes, called as real Request → Response functions against a real SQLite file: read-only
// views with env names and never values, and a 405 problem for every write (a web request never runs a command).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '@/db/index';
import { listStdioTargetRows } from '@/db/queries/stdio-targets';
import { applyConfig } from '@/lib/config/apply';
import { parseConfig } from '@/lib/config/load';
import { createLimiter } from '@/lib/poller/limiter';
import { createStdioProbe, runStdioCycle } from '@/lib/poller/stdio-cycle';
import { peerScript } from '../host-check/fixtures';
import { storeLocation } from '../../support/store';
import { parseSettings, processSettings } from '@/lib/settings';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-api-stdio-'));
process.env.ERAWATCH_DB = await storeLocation(dir, 'api.db');
process.env.ERAWATCH_ADMIN_SECRET = 'admin-secret-for-stdio-tests-0123456789';
process.env.ERAWATCH_BIND = '127.0.0.1';
process.env.ERAWATCH_RATE_LIMIT = '0';
process.env.ERAWATCH_AUTH_FAILURE_LIMIT = '0';

type Handler = (req: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response>;
type Routes = Record<string, Handler | undefined>;

const ADMIN = process.env.ERAWATCH_ADMIN_SECRET;
const SECRET_VALUE = 'stdio-secret-value-42';
let list: Routes;
let one: Routes;
let openapi: Routes;
let store: Store;
let targetId = '';

async function call(handler: Handler | undefined, url: string, method = 'GET', token: string | null = ADMIN) {
  if (!handler) throw new Error(`no ${method} handler for ${url}`);
  const headers: Record<string, string> = { host: '127.0.0.1:3999' };
  if (token) headers.authorization = `Bearer ${token}`;
  const body = method === 'GET' || method === 'DELETE' ? undefined : JSON.stringify({ command: 'id' });
  if (body) headers['content-type'] = 'application/json';
  const id = /\/stdio-targets\/([^/]+)$/.exec(url)?.[1];
  const res = await handler(new Request(`http://127.0.0.1:3999${url}`, { method, headers, body }), {
    params: Promise.resolve<Record<string, string>>(id ? { id } : {}),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    json: JSON.parse(text) as Record<string, unknown>,
  };
}

beforeAll(async () => {
  store = await openStore(process.env.ERAWATCH_DB ?? '', { settings: processSettings() });
  const config = `version: 1
stdio:
  - name: current
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(peerScript('v2-stdio'))}, --name, current]
    env:
      CURRENT_TOKEN: "\${CURRENT_TOKEN}"
`;
  await applyConfig(
    store,
    parseConfig(
      config,
      path.join(dir, 'erawatch.config.yaml'),
      parseSettings({ CURRENT_TOKEN: SECRET_VALUE }),
    ),
  );
  const [row] = await listStdioTargetRows(store);
  targetId = row?.id ?? '';
  await runStdioCycle(store, targetId, {
    probe: createStdioProbe(process.env),
    now: Date.now,
    limiter: createLimiter(1),
    region: 'default',
  });
  list = (await import('@/app/api/v1/stdio-targets/route')) as unknown as Routes;
  one = (await import('@/app/api/v1/stdio-targets/[id]/route')) as unknown as Routes;
  openapi = (await import('@/app/api/v1/openapi.json/route')) as unknown as Routes;
});

afterAll(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('GET /api/v1/stdio-targets', () => {
  it('lists targets with the command line and env names, never env values', async () => {
    const r = await call(list.GET, '/api/v1/stdio-targets');
    expect(r.status).toBe(200);
    expect(r.text).not.toContain(SECRET_VALUE);
    const items = r.json.items as Array<Record<string, unknown>>;
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      id: targetId,
      name: 'current',
      envNames: ['CURRENT_TOKEN'],
      state: { clientEra: 'modern', reason: 'discover_result', negotiatedVersion: '2026-07-28' },
    });
    expect(items[0]).not.toHaveProperty('env');
    expect(items[0]?.commandLine).toMatch(/^CURRENT_TOKEN=… .*v2-stdio\.mjs --name current$/);
  });

  it('one target carries the verdict with its evidence and the history', async () => {
    const r = await call(one.GET, `/api/v1/stdio-targets/${targetId}`);
    expect(r.status).toBe(200);
    expect(r.text).not.toContain(SECRET_VALUE);
    const verdict = r.json.verdict as { verdict: string; evidence: Array<{ step: string; outcome: string }> };
    expect(verdict.verdict).toBe('modern');
    expect(verdict.evidence[0]).toMatchObject({ step: 'discover', outcome: 'result' });
    expect(r.json.history).toEqual([expect.objectContaining({ clientEra: 'modern', endedAt: null })]);
  });

  it.each([
    ['an unknown id', 'sto_nope', ADMIN, 404, "stdio target 'sto_nope' not found"],
    ['no credentials', targetId, null, 401, 'needs a bearer token'],
    ['a wrong token', targetId, 'ewt_read_wrong', 401, 'has expired or has been revoked'],
  ])('%s: problem+json with the reason', async (_n, id, token, status, detail) => {
    const r = await call(one.GET, `/api/v1/stdio-targets/${id || targetId}`, 'GET', token);
    expect(r.status).toBe(status);
    expect(r.headers.get('content-type')).toBe('application/problem+json');
    expect(r.json.detail).toContain(detail);
  });
});

describe('writes on stdio targets answer 405 and change nothing', () => {
  const cases = (['POST', 'PUT', 'PATCH', 'DELETE'] as const).flatMap((method) => [
    [method, 'list'] as const,
    [method, 'one'] as const,
  ]);
  it.each(cases)('%s on the %s path', async (method, which) => {
    const before = JSON.stringify(await listStdioTargetRows(store));
    const url = which === 'list' ? '/api/v1/stdio-targets' : `/api/v1/stdio-targets/${targetId}`;
    const r = await call((which === 'list' ? list : one)[method], url, method);
    expect(r.status).toBe(405);
    expect(r.headers.get('content-type')).toBe('application/problem+json');
    expect(r.headers.get('allow')).toBe('GET');
    expect(r.json).toMatchObject({
      status: 405,
      title: 'Method Not Allowed',
      type: 'https://erawatch.dev/problems/stdio_targets_read_only',
    });
    expect(r.json.detail).toContain('declared in the config file');
    expect(JSON.stringify(await listStdioTargetRows(store))).toBe(before);
  });
});

describe('OpenAPI', () => {
  it('documents both read routes with their schemas, and every write as a 405 refusal', async () => {
    const r = await call(openapi.GET, '/api/v1/openapi.json', 'GET', null);
    const paths = r.json.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    for (const p of ['/stdio-targets', '/stdio-targets/{id}']) {
      expect(Object.keys(paths[p] ?? {})).toEqual(['get', 'post', 'put', 'patch', 'delete']);
      for (const m of ['post', 'put', 'patch', 'delete'])
        expect(Object.keys(paths[p]?.[m]?.responses ?? {})).toEqual(['405']);
    }
    const schemas = (r.json.components as { schemas: Record<string, unknown> }).schemas;
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(['StdioTarget', 'StdioTargetDetail']));
  });
});
