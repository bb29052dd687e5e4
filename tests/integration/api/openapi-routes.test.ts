// The OpenAPI document and the route files are two lists of one API: every exported HTTP method of a route
// file under app/api/v1 has an operation in /api/v1/openapi.json, and every operation has its route and method.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeLocation } from '../../support/store';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-openapi-'));
process.env.ERAWATCH_DB = await storeLocation(dir, 'openapi.db');
process.env.ERAWATCH_BIND = '127.0.0.1';

const API_ROOT = path.resolve(__dirname, '../../../app/api/v1');
const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

type Handler = (req: Request) => Promise<Response>;
/** path → method (lower case) → the exported handler. */
type RouteTable = Map<string, Map<string, unknown>>;

function routeFiles(root: string): string[] {
  return fs
    .readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((f) => path.basename(f) === 'route.ts')
    .sort();
}

/** `balancers/[id]/route.ts` → `/balancers/{id}`, the path syntax of the OpenAPI document. */
function apiPathOf(file: string): string {
  const segments = path.dirname(file).split(path.sep);
  return `/${segments
    .map((s) => {
      if (s.startsWith('[...') || s.startsWith('[['))
        throw new Error(`catch-all route ${file} has no OpenAPI form`);
      return s.replace(/^\[(\w+)\]$/, '{$1}');
    })
    .join('/')}`;
}

async function loadRoutes(): Promise<RouteTable> {
  const table: RouteTable = new Map();
  for (const file of routeFiles(API_ROOT)) {
    const mod = (await import(path.join(API_ROOT, file))) as Record<string, unknown>;
    const methods = new Map<string, unknown>();
    for (const m of HTTP_METHODS) if (typeof mod[m] === 'function') methods.set(m.toLowerCase(), mod[m]);
    table.set(apiPathOf(file), methods);
  }
  return table;
}

interface DocOperation {
  responses: Record<string, unknown>;
}
type Paths = Record<string, Record<string, DocOperation>>;

/**
 * What differs between the route table and the document. A method bound to the shared 405 refusal (stdio targets
 * are config-only) needs no operation of its own, but the path's operations must document the 405.
 */
function drift(routes: RouteTable, paths: Paths, refusal: unknown): string[] {
  const problems: string[] = [];
  for (const [p, methods] of routes) {
    for (const [m, handler] of methods) {
      if (paths[p]?.[m]) continue;
      if (handler === refusal) {
        const documented = Object.values(paths[p] ?? {}).some((op) => '405' in op.responses);
        if (!documented)
          problems.push(`${m.toUpperCase()} ${p} refuses with 405, which no operation of ${p} lists`);
        continue;
      }
      problems.push(`${m.toUpperCase()} ${p} has a route file but no OpenAPI operation`);
    }
  }
  for (const [p, ops] of Object.entries(paths)) {
    for (const m of Object.keys(ops)) {
      const handler = routes.get(p)?.get(m);
      if (!handler)
        problems.push(`${m.toUpperCase()} ${p} is an OpenAPI operation with no route file or method`);
      else if (handler === refusal) problems.push(`${m.toUpperCase()} ${p} is documented but only refuses`);
    }
  }
  return problems;
}

let routes: RouteTable;
let paths: Paths;
let refusal: unknown;

beforeAll(async () => {
  routes = await loadRoutes();
  refusal = (await import('@/lib/api/stdio-read-only')).refuseStdioWrite;
  const openapi = routes.get('/openapi.json')?.get('get') as Handler | undefined;
  if (!openapi) throw new Error('no GET /openapi.json route');
  const res = await openapi(
    new Request('http://127.0.0.1:3999/api/v1/openapi.json', { headers: { host: '127.0.0.1:3999' } }),
  );
  expect(res.status).toBe(200);
  paths = ((await res.json()) as { paths: Paths }).paths;
});

afterAll(async () => {
  const { getStore } = await import('@/db/index');
  await (await getStore()).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('OpenAPI operations against the route files', () => {
  it('finds the route files and the operations', () => {
    expect(routes.size).toBeGreaterThan(20);
    expect(routes.get('/balancers/{id}')?.has('patch')).toBe(true);
    expect(Object.keys(paths).length).toBeGreaterThan(20);
  });

  it('lists every route method as an operation and every operation as a route method', () => {
    expect(drift(routes, paths, refusal)).toEqual([]);
  });

  it('names a route added without an operation, and an operation whose route is gone', () => {
    const added: RouteTable = new Map([...routes, ['/balancers/{id}/pause', new Map([['post', () => {}]])]]);
    expect(drift(added, paths, refusal)).toContain(
      'POST /balancers/{id}/pause has a route file but no OpenAPI operation',
    );
    const removed: RouteTable = new Map([...routes].filter(([p]) => p !== '/events'));
    expect(drift(removed, paths, refusal)).toContain(
      'GET /events is an OpenAPI operation with no route file or method',
    );
  });

  it('lets the read-only stdio paths refuse writes only where the 405 is documented', () => {
    expect(routes.get('/stdio-targets')?.get('post')).toBe(refusal);
    const undocumented: Paths = { ...paths, '/stdio-targets': { get: { responses: { '200': {} } } } };
    expect(drift(routes, undocumented, refusal)).toEqual(
      ['post', 'put', 'patch', 'delete'].map(
        (m) =>
          `${m.toUpperCase()} /stdio-targets refuses with 405, which no operation of /stdio-targets lists`,
      ),
    );
  });
});
