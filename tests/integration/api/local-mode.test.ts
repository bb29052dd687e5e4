// Local mode: a loopback bind with no admin secret. The dashboard reads and writes without a login; writes
// still need a same-origin Origin, and only loopback Host names are answered (no DNS rebinding).
import { processSettings } from '@/lib/settings';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { storeLocation } from '../../support/store';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-local-'));
process.env.ERAWATCH_DB = await storeLocation(dir, 'local.db');
delete process.env.ERAWATCH_ADMIN_SECRET;
process.env.ERAWATCH_BIND = '127.0.0.1';
process.env.ERAWATCH_RATE_LIMIT = '0';
process.env.ERAWATCH_ALLOW_LOOPBACK = '1';

type Handler = (req: Request) => Promise<Response>;

afterAll(async () => {
  const { getStore } = await import('@/db/index');
  await (await getStore({ settings: processSettings() })).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function balancers(method: string): Promise<Handler> {
  const mod = (await import('@/app/api/v1/balancers/route')) as unknown as Record<
    string,
    Handler | undefined
  >;
  const h = mod[method];
  if (!h) throw new Error(method);
  return h;
}

function req(method: string, headers: Record<string, string>, body?: unknown) {
  return new Request('http://127.0.0.1:3000/api/v1/balancers', {
    method,
    headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
}

describe('local mode', () => {
  it.each([
    ['a read from loopback', 'GET', { host: '127.0.0.1:3000' }, undefined, 200, null],
    ['a read from localhost', 'GET', { host: 'localhost:3000' }, undefined, 200, null],
    [
      'a read through a rebound name',
      'GET',
      { host: 'evil.example:3000' },
      undefined,
      403,
      'host_not_loopback',
    ],
    [
      'a write from the dashboard',
      'POST',
      { host: '127.0.0.1:3000', origin: 'http://127.0.0.1:3000' },
      { name: 'local-a', publicUrl: 'http://127.0.0.1:9/' },
      201,
      null,
    ],
    [
      'a write from another site',
      'POST',
      { host: '127.0.0.1:3000', origin: 'http://evil.example' },
      { name: 'local-b', publicUrl: 'http://127.0.0.1:9/' },
      401,
      'credentials_required',
    ],
    [
      'a write with no Origin',
      'POST',
      { host: '127.0.0.1:3000' },
      { name: 'local-c', publicUrl: 'http://127.0.0.1:9/' },
      401,
      'credentials_required',
    ],
  ] as const)('%s → %i', async (_name, method, headers, body, status, code) => {
    const res = await (await balancers(method))(req(method, headers, body));
    expect(res.status).toBe(status);
    if (code)
      expect(((await res.json()) as { type: string }).type).toBe(`https://erawatch.dev/problems/${code}`);
  });

  it('only the dashboard write took effect', async () => {
    const res = await (await balancers('GET'))(req('GET', { host: '127.0.0.1:3000' }));
    expect(((await res.json()) as { items: Array<{ name: string }> }).items.map((b) => b.name)).toEqual([
      'local-a',
    ]);
  });
});
