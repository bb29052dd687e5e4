// An auth-gated node beside a modern one: "Era mix over time" draws it as its own series (not red
// "Unavailable"), the timeline says "Node auth-gated", and the node page's latency chart draws minutes.
import { expect, test } from '@playwright/test';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { startFaultPeer, type FaultPeer } from '@/tests/support/fault-peer';
import { apiPost, screenshotPath, startApp, type RunningApp } from './support/app';

let app: RunningApp;
let peer: RunningPeer | null = null;
let gated: FaultPeer | null = null;

test.beforeAll(async () => {
  app = await startApp();
  peer = await startPeer('v2-modern', { name: 'orders-api', version: '3.2.0' });
  gated = await startFaultPeer((_req, res) => {
    res.writeHead(401, { 'www-authenticate': 'Bearer realm="mcp", scope="mcp:read"' });
    res.end();
  });
});

test.afterEach(async () => {
  const testInfo = test.info();
  if (testInfo.status !== testInfo.expectedStatus && app) {
    await testInfo.attach('server log', { body: app.log(), contentType: 'text/plain' });
  }
});

test.afterAll(async () => {
  await peer?.stop();
  await gated?.close();
  await app?.stop();
});

test('an auth-gated node has its own series and event; the latency chart draws minutes', async ({ page }) => {
  test.setTimeout(180_000);
  const res = await apiPost(app, '/api/v1/balancers', {
    name: 'orders-gated',
    publicUrl: peer?.url,
    nodeUrls: [peer?.url, gated?.url],
    intervalMs: 2_000,
    timeoutMs: 500,
    legacyProbeTimeoutMs: 500,
    samplesPerCycle: 0,
  });
  expect(res.status).toBe(201);
  const { id } = (await res.json()) as { id: string };
  await page.setViewportSize({ width: 1280, height: 1000 });
  await page.goto(`${app.url}/balancers/${id}`);
  const mix = page.locator('figure', {
    has: page.getByRole('img', { name: 'Nodes per client era over time' }),
  });
  await expect(mix).toContainText('Auth-gated: 1 now', { timeout: 30_000 });
  await expect(mix).toContainText('Unavailable: 0 now');
  await expect(page.getByText('Node auth-gated').first()).toBeVisible();
  // Let the poller run on until the auth-gated series covers part of the chart's two minutes.
  const since = async () => {
    const r = await fetch(`${app.url}/api/v1/balancers/${id}`);
    const body = (await r.json()) as { analysis: { analyzedAt: number } | null };
    const ev = await fetch(`${app.url}/api/v1/events?balancerId=${id}&type=node.auth_gated`);
    const first = ((await ev.json()) as { items: Array<{ at: number }> }).items.at(-1)?.at ?? Infinity;
    return (body.analysis?.analyzedAt ?? 0) - first;
  };
  await expect.poll(since, { timeout: 90_000 }).toBeGreaterThan(40_000);
  await page.reload();
  await expect(mix).toContainText('Auth-gated: 1 now', { timeout: 30_000 });
  await expect(page.getByText('Node unavailable')).toHaveCount(0);
  await mix.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath('era-mix-auth-gated'), fullPage: true });

  await page.goto(`${app.url}/balancers/${id}`);
  await page
    .getByRole('link', { name: peer?.url ?? '' })
    .first()
    .click();
  const latency = page.getByRole('img', { name: 'Probe latency per minute, p50 and p95' });
  await expect(latency).toBeVisible({ timeout: 30_000 });
  await page.screenshot({ path: screenshotPath('latency-minutes'), fullPage: true });
});
