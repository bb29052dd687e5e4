// A page render reads the store in process: it sends no HTTP request to its own server. A real `next start`
// in local mode with an API budget of two requests a minute per client renders the dashboard's pages, each
// with its data; the budget is still whole afterwards (two API reads answer, the third is refused), where
// one page that fetched its own API would have spent it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore } from '@/db/index';
import { createBalancer } from '@/lib/balancers';
import { ensureNextBuild, startNextServer, type NextServer } from '@/lib/demo/next-app';
import { testSettings } from '../../support/settings';
import { freePort } from '../../support/wait';

const root = path.resolve(import.meta.dirname, '../../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-page-reads-'));
const dbFile = path.join(dir, 'pages.db');
let server: NextServer | null = null;
let balancerId = '';

beforeAll(async () => {
  await ensureNextBuild(root);
  const store = await openStore(dbFile, { settings: testSettings() });
  try {
    const b = await createBalancer(store, {
      name: 'page-reads-shop',
      publicUrl: 'http://127.0.0.1:9/mcp',
      nodeUrls: ['http://127.0.0.1:9/mcp'],
      samplesPerCycle: 0,
    });
    balancerId = b.id;
  } finally {
    await store.close();
  }
  const port = await freePort();
  server = await startNextServer({
    root,
    host: '127.0.0.1',
    port,
    env: {
      ERAWATCH_DB: dbFile,
      ERAWATCH_POLLER: 'off',
      ERAWATCH_WEBHOOKS: 'off',
      ERAWATCH_CONFIG: path.join(dir, 'absent.yaml'),
      ERAWATCH_RATE_LIMIT: '2',
    },
  });
}, 900_000);

afterAll(async () => {
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function get(pathname: string): Promise<{ status: number; body: string }> {
  if (!server) throw new Error('no server');
  const res = await fetch(`${server.url}${pathname}`, { redirect: 'manual' });
  return { status: res.status, body: await res.text() };
}

it('pages render with their data and spend none of the API budget', async () => {
  // Each page prefetches from one to three reads; through the API they would take six tokens of two.
  const pages = [
    ['/', 'page-reads-shop'],
    [`/balancers/${balancerId}`, 'page-reads-shop'],
    [`/balancers/${balancerId}/edit`, 'page-reads-shop'],
    ['/events', 'Events are recorded once per transition'],
    ['/webhooks', 'No webhook endpoints'],
    ['/alert-sinks', 'No alert sinks'],
  ] as const;
  for (const [pathname, shows] of pages) {
    const page = await get(pathname);
    expect(page.status, pathname).toBe(200);
    expect(page.body, pathname).toContain(shows);
  }
  // The budget is whole: two API reads answer, and the limiter is live, so the third is refused.
  expect((await get('/api/v1/balancers')).status).toBe(200);
  expect((await get('/api/v1/balancers')).status).toBe(200);
  expect((await get('/api/v1/balancers')).status).toBe(429);
});
