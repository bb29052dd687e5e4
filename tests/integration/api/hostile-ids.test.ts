// Hostile path ids, query parameters and cursors on every route of the route table: NUL or another control
// character in a path id or a query parameter, an id too long to be one, and cursors that are well formed but
// not the API's (numbers beyond a bigint, 1e+23, NUL inside). Each gets 400 (or 404), never 500, on both engines
// (PostgreSQL refuses NUL in text and such numbers as a bigint; SQLite takes them, so only PostgreSQL showed it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeLocation } from '../../support/store';

const ADMIN = 'hostile-ids-admin-secret-0123456789';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-hostile-ids-'));
process.env.ERAWATCH_DB = await storeLocation(dir, 'hostile.db');
process.env.ERAWATCH_ADMIN_SECRET = ADMIN;
process.env.ERAWATCH_BIND = '127.0.0.1';
process.env.ERAWATCH_ALLOW_LOOPBACK = '1';
process.env.ERAWATCH_RATE_LIMIT = '0';
process.env.ERAWATCH_POLLER = 'off';
process.env.ERAWATCH_WEBHOOKS = 'off';
(await import('@/lib/settings')).resetProcessSettings();
const { routeEntries } = await import('@/lib/api/routes');

const APP_ROOT = path.resolve(__dirname, '../../../app');
type Handler = (req: Request, route?: { params: Promise<Record<string, string>> }) => Promise<Response>;

/** operationId → its handler, from the route files (`[id]` folders are path parameters). */
async function handlers(): Promise<Map<string, Handler>> {
  const map = new Map<string, Handler>();
  const files = fs
    .readdirSync(APP_ROOT, { recursive: true, encoding: 'utf8' })
    .filter((f) => path.basename(f) === 'route.ts');
  for (const file of files) {
    const mod = (await import(path.join(APP_ROOT, file))) as Record<string, unknown>;
    for (const value of Object.values(mod)) {
      const id = typeof value === 'function' ? (value as { operationId?: unknown }).operationId : undefined;
      if (typeof id === 'string') map.set(id, value as Handler);
    }
  }
  return map;
}

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64url');
const HOSTILE_IDS = ['bal_\u0000x', '\u0000', 'x\u001b[2J', 'a'.repeat(600)];
const HOSTILE_CURSORS = [
  b64('99999999999999999999999'),
  b64('1e+23'),
  b64('9223372036854775808:msg_abcdefgh'),
  b64('99999999999999999999999:tok_abcdefgh'),
  b64('name\u0000with-nul'),
  '%00',
];

interface Answer {
  status: number;
  type: string | undefined;
}

let served: Map<string, Handler>;

beforeAll(async () => {
  served = await handlers();
});

afterAll(async () => {
  const { getStore } = await import('@/db/index');
  const { processSettings } = await import('@/lib/settings');
  await (await getStore({ settings: processSettings() })).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function call(
  operationId: string,
  method: string,
  pathname: string,
  params: Record<string, string>,
): Promise<Answer> {
  const handler = served.get(operationId);
  if (!handler) throw new Error(`no route file serves ${operationId}`);
  const write = method !== 'GET' && method !== 'DELETE';
  const req = new Request(`http://127.0.0.1:3999${pathname}`, {
    method,
    headers: {
      host: '127.0.0.1:3999',
      authorization: `Bearer ${ADMIN}`,
      ...(write ? { 'content-type': 'application/json' } : {}),
    },
    body: write ? '{}' : undefined,
  });
  const res = await handler(req, { params: Promise.resolve(params) });
  const text = await res.text();
  let type: string | undefined;
  try {
    type = (JSON.parse(text) as { type?: string }).type;
  } catch {
    type = undefined;
  }
  return { status: res.status, type };
}

const entries = routeEntries().filter((e) => !e.bare);
const withParams = entries.filter((e) => e.path.includes('{'));
const withQuery = entries.filter((e) => e.query !== undefined);
const withCursor = withQuery.filter((e) => 'cursor' in (e.query?.shape ?? {}));

describe('hostile path ids', () => {
  it('cover every route family with a path parameter', () => {
    const families = new Set(withParams.map((e) => e.path.slice(0, e.path.indexOf('/{'))));
    expect([...families].sort()).toEqual(
      expect.arrayContaining([
        '/api/v1/alert-sinks',
        '/api/v1/balancers',
        '/api/v1/nodes',
        '/api/v1/rollouts',
        '/api/v1/sessions',
        '/api/v1/stdio-targets',
        '/api/v1/tokens',
        '/api/v1/webhooks',
        '/dashboard-data/balancers',
        '/dashboard-data/nodes',
      ]),
    );
  });

  for (const e of withParams) {
    it(`${e.method} ${e.path}: 400 invalid_path`, async () => {
      for (const id of HOSTILE_IDS) {
        const names = [...e.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? '');
        // Each parameter hostile in turn, the others plausible.
        for (const hostile of names) {
          const params = Object.fromEntries(names.map((n) => [n, n === hostile ? id : 'plausible_id']));
          const pathname = e.path.replace(/\{(\w+)\}/g, (_, n: string) =>
            encodeURIComponent(params[n] ?? ''),
          );
          const answer = await call(e.operationId, e.method, pathname, params);
          expect(answer, `${JSON.stringify(id.slice(0, 12))} as ${hostile}`).toEqual({
            status: 400,
            type: 'https://erawatch.dev/problems/invalid_path',
          });
        }
      }
    });
  }
});

describe('hostile query parameters', () => {
  for (const e of withQuery) {
    it(`${e.method} ${e.path}: NUL in any parameter is 400 invalid_query`, async () => {
      const params = Object.fromEntries(
        [...e.path.matchAll(/\{(\w+)\}/g)].map((m) => [m[1] ?? '', 'plausible_id']),
      );
      const base = e.path.replace(/\{(\w+)\}/g, 'plausible_id');
      for (const key of Object.keys(e.query?.shape ?? {})) {
        for (const value of ['\u0000', 'x\u0000y', '\u007f']) {
          const answer = await call(
            e.operationId,
            e.method,
            `${base}?${key}=${encodeURIComponent(value)}`,
            params,
          );
          expect(answer, `${key}=${JSON.stringify(value)}`).toEqual({
            status: 400,
            type: 'https://erawatch.dev/problems/invalid_query',
          });
        }
      }
    });
  }

  it('cover every list with a cursor', () => {
    expect(withCursor.map((e) => e.operationId).sort()).toEqual(
      expect.arrayContaining(['listAudit', 'listBalancers', 'listEvents']),
    );
  });

  for (const e of withCursor) {
    it(`${e.method} ${e.path}: a hostile cursor is never 500; one with NUL is 400`, async () => {
      const params = Object.fromEntries(
        [...e.path.matchAll(/\{(\w+)\}/g)].map((m) => [m[1] ?? '', 'plausible_id']),
      );
      const base = e.path.replace(/\{(\w+)\}/g, 'plausible_id');
      for (const cursor of HOSTILE_CURSORS) {
        const answer = await call(e.operationId, e.method, `${base}?cursor=${cursor}`, params);
        // A balancer list's cursor is a name, and a name may be all digits: such a cursor is a page (200).
        const expected = cursor === '%00' || cursor === b64('name\u0000with-nul') ? [400] : [200, 400, 404];
        expect(expected, `cursor ${cursor} got ${answer.status} ${answer.type ?? ''}`).toContain(
          answer.status,
        );
      }
    });
  }
});
