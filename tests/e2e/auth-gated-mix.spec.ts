// An auth-gated node beside a modern one: the History chart counts it as its own series (not red
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
  const history = page.getByTestId('history');
  await expect(history.getByTestId('history-authGated')).toHaveText('Auth-gated: 1', { timeout: 60_000 });
  await expect(history.getByTestId('history-unavailable')).toHaveText('Unavailable: 0');
  await expect(page.getByText('Node auth-gated').first()).toBeVisible();
  await expect(page.getByText('Node unavailable')).toHaveCount(0);
  await history.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath('history-auth-gated'), fullPage: true });

  await page.goto(`${app.url}/balancers/${id}`);
  await page
    .getByRole('link', { name: peer?.url ?? '' })
    .first()
    .click();
  const latency = page.getByRole('img', { name: 'Probe latency per minute, p50 and p95' });
  await expect(latency).toBeVisible({ timeout: 30_000 });
  await page.screenshot({ path: screenshotPath('latency-minutes'), fullPage: true });
});
