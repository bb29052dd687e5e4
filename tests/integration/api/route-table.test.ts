// The route table (lib/api/routes.ts) and the route files are one list: every HTTP method a route file under
// app/ exports is built by route() from the table entry of its path and method, every table entry is served
// by its file, and the OpenAPI document has exactly the table's /api/v1 entries.
import { processSettings } from '@/lib/settings';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeLocation } from '../../support/store';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-routes-'));
process.env.ERAWATCH_DB = await storeLocation(dir, 'routes.db');
process.env.ERAWATCH_BIND = '127.0.0.1';

const { ROUTES, routeEntries } = await import('@/lib/api/routes');

const APP_ROOT = path.resolve(__dirname, '../../../app');
const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** One exported method of a route file. */
interface Export {
  file: string;
  path: string;
  method: string;
  operationId: unknown;
}

/** `api/v1/balancers/[id]/route.ts` → `/api/v1/balancers/{id}`; route groups such as `(ops)` are dropped. */
function urlPathOf(file: string): string {
  const segments = path
    .dirname(file)
    .split(path.sep)
    .filter((s) => !/^\(.*\)$/.test(s));
  return `/${segments
    .map((s) => {
      if (s.startsWith('[...') || s.startsWith('[['))
        throw new Error(`catch-all route ${file} has no table form`);
      return s.replace(/^\[(\w+)\]$/, '{$1}');
    })
    .join('/')}`;
}

async function routeExports(): Promise<Export[]> {
  const files = fs
    .readdirSync(APP_ROOT, { recursive: true, encoding: 'utf8' })
    .filter((f) => path.basename(f) === 'route.ts')
    .sort();
  const out: Export[] = [];
  for (const file of files) {
    const mod = (await import(path.join(APP_ROOT, file))) as Record<string, unknown>;
    for (const method of HTTP_METHODS) {
      const handler = mod[method];
      if (handler === undefined) continue;
      const operationId =
        typeof handler === 'function' ? (handler as { operationId?: unknown }).operationId : undefined;
      out.push({ file, path: urlPathOf(file), method, operationId });
    }
  }
  return out;
}

type Table = Record<string, { method: string; path: string }>;

/** What differs between the route files and the table. */
function drift(exports: Export[], table: Table): string[] {
  const problems: string[] = [];
  const served = new Set<string>();
  for (const e of exports) {
    const where = `${e.method} ${e.path} (app/${e.file})`;
    if (typeof e.operationId !== 'string') {
      problems.push(`${where} is not built by route() from the route table`);
      continue;
    }
    const def = table[e.operationId];
    if (!def) {
      problems.push(`${where} names ${e.operationId}, which the route table does not have`);
      continue;
    }
    if (def.method !== e.method || def.path !== e.path)
      problems.push(
        `${where} serves ${e.operationId}, which the table declares as ${def.method} ${def.path}`,
      );
    if (served.has(e.operationId)) problems.push(`${where} serves ${e.operationId} a second time`);
    served.add(e.operationId);
  }
  for (const [id, def] of Object.entries(table)) {
    if (!served.has(id)) problems.push(`${id} (${def.method} ${def.path}) has no route file exporting it`);
  }
  return problems;
}

interface DocOperation {
  operationId: string;
  responses: Record<string, unknown>;
}
type Paths = Record<string, Record<string, DocOperation>>;

let exports: Export[];
let paths: Paths;

beforeAll(async () => {
  exports = await routeExports();
  const { GET } = await import('@/app/api/v1/openapi.json/route');
  const res = await GET(
    new Request('http://127.0.0.1:3999/api/v1/openapi.json', { headers: { host: '127.0.0.1:3999' } }),
  );
  expect(res.status).toBe(200);
  paths = ((await res.json()) as { paths: Paths }).paths;
});

afterAll(async () => {
  const { getStore } = await import('@/db/index');
  await (await getStore({ settings: processSettings() })).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the route table against the route files', () => {
  it('finds the route files, the API, the dashboard read model and the ops endpoints', () => {
    expect(exports.length).toBeGreaterThan(50);
    const seen = new Set(exports.map((e) => `${e.method} ${e.path}`));
    for (const p of [
      'PATCH /api/v1/balancers/{id}',
      'GET /dashboard-data/fleet',
      'GET /healthz',
      'GET /metrics',
      'POST /api/v1/stdio-targets',
    ])
      expect(seen).toContain(p);
  });

  it('serves every table entry from its file and every exported method from the table', () => {
    expect(drift(exports, ROUTES)).toEqual([]);
  });

  it('names a handler outside the table, a wrong path, and an entry no file serves', () => {
    const stray: Export = {
      file: 'api/v1/x/route.ts',
      path: '/api/v1/x',
      method: 'POST',
      operationId: undefined,
    };
    expect(drift([...exports, stray], ROUTES)).toContain(
      'POST /api/v1/x (app/api/v1/x/route.ts) is not built by route() from the route table',
    );
    const moved = exports.map((e) =>
      e.operationId === 'listEvents' ? { ...e, path: '/api/v1/event-log' } : e,
    );
    expect(drift(moved, ROUTES)).toContain(
      'GET /api/v1/event-log (app/api/v1/events/route.ts) serves listEvents, which the table declares as GET /api/v1/events',
    );
    const table: Table = {
      ...ROUTES,
      pauseBalancer: { method: 'POST', path: '/api/v1/balancers/{id}/pause' },
    };
    expect(drift(exports, table)).toContain(
      'pauseBalancer (POST /api/v1/balancers/{id}/pause) has no route file exporting it',
    );
  });
});

describe('the OpenAPI document from the route table', () => {
  it('has exactly the /api/v1 entries, under their operationIds', () => {
    const documented = Object.entries(paths).flatMap(([p, ops]) =>
      Object.entries(ops).map(([m, op]) => `${m.toUpperCase()} /api/v1${p} ${op.operationId}`),
    );
    const declared = routeEntries()
      .filter((r) => r.path.startsWith('/api/v1/'))
      .map((r) => `${r.method} ${r.path} ${r.operationId}`);
    expect(documented.sort()).toEqual(declared.sort());
  });

  it('documents the read-only stdio paths as 405 refusals, and keeps the dashboard and ops routes out', () => {
    expect(Object.keys(paths['/stdio-targets']?.post?.responses ?? {})).toEqual(['405']);
    expect(Object.keys(paths).some((p) => p.startsWith('/dashboard-data') || p === '/healthz')).toBe(false);
  });

  it('lists each entry’s problem statuses', () => {
    for (const r of routeEntries().filter((e) => e.path.startsWith('/api/v1/'))) {
      const op = paths[r.path.slice('/api/v1'.length)]?.[r.method.toLowerCase()];
      for (const status of r.problems) expect(Object.keys(op?.responses ?? {})).toContain(String(status));
    }
  });
});
