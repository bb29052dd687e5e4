// The tool catalog on the balancer page, against real SDK servers: drift "catalog differs" with the tool each
// group adds or lacks, and the demo's search balancer mid-rollout showing only answers that nodes present.
import { expect, test } from '@playwright/test';
import { SEARCH_RELEASES, startDemoFleet, type DemoFleet } from '@/lib/demo/fleet';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { apiPost, screenshotPath, startApp, type RunningApp } from './support/app';

let app: RunningApp;
const peers: RunningPeer[] = [];
let fleet: DemoFleet | null = null;

test.beforeAll(async () => {
  app = await startApp();
});

test.afterEach(async () => {
  const testInfo = test.info();
  if (testInfo.status !== testInfo.expectedStatus && app) {
    await testInfo.attach('server log', { body: app.log(), contentType: 'text/plain' });
  }
});

test.afterAll(async () => {
  await fleet?.stop();
  await Promise.all(peers.map((p) => p.stop()));
  await app?.stop();
});

test('nodes that differ only by one tool drift, and the page names the tool', async ({ page }) => {
  const same = { name: 'orders-api', version: '3.2.0' };
  peers.push(
    ...(await Promise.all([
      startPeer('v2-modern', { ...same, tools: ['echo', 'refund'] }),
      startPeer('v2-modern', { ...same, tools: ['echo', 'refund'] }),
      startPeer('v2-modern', { ...same, tools: ['echo'] }),
    ])),
  );
  const res = await apiPost(app, '/api/v1/balancers', {
    name: 'orders-catalog',
    publicUrl: peers[0]?.url,
    nodeUrls: peers.map((p) => p.url),
    intervalMs: 2_000,
    timeoutMs: 500,
    legacyProbeTimeoutMs: 500,
    samplesPerCycle: 0,
  });
  expect(res.status).toBe(201);
  const { id } = (await res.json()) as { id: string };
  await page.setViewportSize({ width: 1280, height: 1000 });
  await page.goto(`${app.url}/balancers/${id}`);
  await expect(page.getByTestId('balancer-status')).toHaveText('Drift', { timeout: 30_000 });
  await expect(page.getByTestId('nonuniform-notice')).toContainText('catalog differs');
  await expect(page.getByTestId('answer-count')).toHaveText('2');
  await expect(page.getByTestId('group-tools')).toHaveText(['2 tools: echo, refund', '1 tool: echo']);
  await expect(page.getByTestId('catalog-diff')).toHaveText('lacks refund');
  // The revision is uniform, so the gate is open, and its panel says the catalogs differ and which tool.
  await expect(page.getByTestId('gate')).toContainText('Open');
  await expect(page.getByTestId('gate')).toContainText('but their tool catalogs differ');
  await expect(page.getByTestId('gate-catalog-drift')).toContainText('Tools that differ: refund');
  await page.getByTestId('partition').scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath('catalog-diff'), fullPage: true });
});

test('the demo search balancer mid-rollout shows only answers that nodes present', async ({ page }) => {
  test.setTimeout(120_000);
  fleet = await startDemoFleet();
  const search = fleet.balancers.find((b) => b.name === 'demo-search');
  if (!search) throw new Error('the demo has no search balancer');
  // Step 1 of the scripted rollout: search-3 on the modern-only build, search-4 still legacy.
  await fleet.replaceNode('search-3', SEARCH_RELEASES.modern);
  const res = await apiPost(app, '/api/v1/balancers', search);
  expect(res.status).toBe(201);
  const { id } = (await res.json()) as { id: string };
  await page.setViewportSize({ width: 1280, height: 1000 });
  await page.goto(`${app.url}/balancers/${id}`);
  await expect(page.getByTestId('balancer-status')).toHaveText('Era split', { timeout: 30_000 });
  // dual-era 2.0.0 (search-1, -2), modern-only 2.1.0 (search-3), legacy 1.9.0 (search-4): three answers,
  // and every group lists a node: no sample forms a combination no node has.
  await expect(page.getByTestId('partition-group')).toHaveCount(3);
  await expect(page.getByTestId('answer-count')).toHaveText('3');
  for (const group of await page.getByTestId('partition-group').all()) {
    await expect(group.locator('.group-nodes a').first()).toBeVisible();
  }
  await expect(page.getByTestId('catalog-diff')).toContainText(['adds suggest']);
  await page.screenshot({ path: screenshotPath('demo-search-rollout'), fullPage: true });
});
