// Register a balancer through the form, watch its nodes' verdicts arrive, switch one node from the v2 SDK to
// the legacy v1 SDK on the same port, and see the flag, the partition and the timeline change without a reload.
import { expect, test } from '@playwright/test';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { screenshotPath, startApp, type RunningApp } from './support/app';

let app: RunningApp;
const peers: RunningPeer[] = [];

test.beforeAll(async () => {
  app = await startApp();
  // Same serverInfo on both, so the two modern nodes share one fingerprint: the balancer starts uniform.
  peers.push(await startPeer('v2-dual', { name: 'fleet-node', version: '1.0.0' }));
  peers.push(await startPeer('v2-dual', { name: 'fleet-node', version: '1.0.0' }));
});

test.afterEach(async () => {
  const testInfo = test.info();
  if (testInfo.status !== testInfo.expectedStatus && app) {
    await testInfo.attach('server log', { body: app.log(), contentType: 'text/plain' });
  }
});

test.afterAll(async () => {
  await Promise.all(peers.map((p) => p.stop()));
  await app?.stop();
});

test('a node switched to the legacy SDK shows as an era split, live', async ({ page }) => {
  const [a, b] = peers;
  if (!a || !b) throw new Error('peers did not start');
  const name = `rollout-${Date.now().toString(36)}`;
  test.setTimeout(300_000);

  await page.goto(`${app.url}/`);
  await expect(page.getByTestId('fleet-empty')).toBeVisible();
  await expect(page.getByTestId('fleet-empty')).toContainText('erawatch demo');
  await page.screenshot({ path: screenshotPath('fleet-empty'), fullPage: true });

  await page.getByRole('link', { name: 'Register a balancer' }).click();
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('Public URL', { exact: true }).fill(a.url);
  await page.getByLabel('Node URLs').fill(`${a.url}\n${b.url}`);
  // Deadlines a loaded machine meets: a node that misses one shows unavailable and adds events to the timeline.
  await page.getByLabel('Interval (ms)').fill('10000');
  await page.getByLabel('Timeout (ms)', { exact: true }).fill('3000');
  await page.getByLabel('Legacy timeout (ms)').fill('3000');
  await page.getByLabel('Samples / cycle').fill('2');
  await page.getByLabel(/Allow legacy/).check();
  await page.getByRole('button', { name: 'Register balancer' }).click();

  await expect(page).toHaveURL(/\/balancers\/bal_/);
  await expect(page.getByRole('heading', { name })).toBeVisible();
  // The poller's first cycle lands without a reload: both nodes modern, the balancer uniform.
  const rows = page.getByTestId('node-row');
  await expect(rows).toHaveCount(2);
  await expect(page.getByTestId('node-verdict')).toHaveText(['Modern 2026-07-28', 'Modern 2026-07-28']);
  await expect(page.getByTestId('balancer-status')).toHaveText('Uniform');
  await expect(page.getByTestId('partition-group')).toHaveCount(1);

  // Marks this document: if anything reloaded the page, the mark would be gone.
  await page.evaluate(() => {
    (window as unknown as { __erawatchMark?: number }).__erawatchMark = 42;
  });

  // Restart node b as the legacy SDK on the same port.
  const port = b.port;
  await b.stop();
  peers.splice(peers.indexOf(b), 1);
  const legacy = await startPeer('v1-stateful', { port, name: 'fleet-node', version: '1.0.0' });
  peers.push(legacy);

  // The outage cycle, then one more interval (10 s each), plus a refresh.
  await expect(page.getByTestId('balancer-status')).toHaveText('Era split', { timeout: 60_000 });
  await expect(page.getByTestId('nonuniform-notice')).toContainText('Non-uniform (era-split)');
  await expect(page.getByTestId('partition-group')).toHaveCount(2);
  await expect(page.locator(`[data-testid="node-row"][data-node-url="${legacy.url}"]`)).toContainText(
    'Legacy 2025-11-25',
  );
  await expect(page.locator('[data-testid="timeline-event"][data-type="node.era_changed"]')).toHaveCount(1);
  await expect(page.locator('[data-testid="timeline-event"][data-type="balancer.diverged"]')).toHaveCount(1);
  expect(await page.evaluate(() => (window as unknown as { __erawatchMark?: number }).__erawatchMark)).toBe(
    42,
  );
  // No window: progress counts the largest group, never the target, and offers to declare one.
  await expect(page.getByTestId('progress-headline')).toContainText(
    '1 of 2 available nodes in the largest group (no declared target)',
  );
  await expect(page.getByTestId('progress-offer')).toBeVisible();
  await page.screenshot({ path: screenshotPath('balancer-era-split'), fullPage: true });

  // Probe now runs a cycle on demand.
  await page.getByRole('button', { name: 'Probe now' }).click();
  await expect(page.getByText('Probe cycle finished.')).toBeVisible();

  // A rollout window turns the split into progress, then closing it brings the alert back.
  await page.getByRole('button', { name: 'Open rollout window…' }).click();
  await page.getByLabel('Revision', { exact: true }).fill('2026-07-28');
  await page.getByLabel('Deadline in hours').fill('2');
  await page.getByRole('button', { name: 'Open window' }).click();
  await expect(page.getByTestId('window-progress')).toHaveText('1 of 2 nodes on 2026-07-28', {
    timeout: 60_000,
  });
  await expect(page.getByTestId('balancer-status')).toHaveText('Rolling out');
  await expect(page.getByTestId('progress-headline')).toContainText('1 of 2 available nodes on 2026-07-28');
  await expect(page.getByTestId('progress-offer')).toHaveCount(0);
  await expect(page.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '1');
  await page.screenshot({ path: screenshotPath('balancer-rolling'), fullPage: true });
  await page.getByRole('button', { name: 'Close rollout window' }).click();
  await expect(page.getByTestId('balancer-status')).toHaveText('Era split', { timeout: 60_000 });
  await expect(page.getByRole('button', { name: 'Open rollout window…' })).toBeVisible();

  // The fleet lists it as non-uniform.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Fleet' }).click();
  const row = page.locator(`[data-testid="fleet-row"][data-balancer="${name}"]`);
  await expect(row.getByTestId('fleet-status')).toHaveText('Era split');
  // Not uniform: the compact progress bar (largest group, 1 of 2) with its trend arrow, instead of the era mix.
  await expect(row.getByTestId('fleet-progress')).toBeVisible();
  await expect(row.getByTestId('fleet-progress')).toContainText('1/2');
  await expect(page.getByTestId('count-non-uniform')).toContainText('1');
  await expect(row.getByTestId('since')).toContainText(/^for \d+ (s|min)$/);
  // Filters narrow the list and stay in the URL.
  await page.getByTestId('count-non-uniform').getByRole('button').click();
  await expect(page).toHaveURL(/\?state=non-uniform$/);
  await page.getByLabel('Search balancers').fill('no-such-balancer');
  await expect(page.getByText('No balancer matches this filter.')).toBeVisible();
  await page.getByLabel('Search balancers').fill(name.slice(0, 10));
  await expect(page.locator('[data-testid="fleet-row"]')).toHaveCount(1);
  await page.reload();
  await expect(page.getByLabel('Search balancers')).toHaveValue(name.slice(0, 10));
  await expect(page.getByLabel('Filter by state')).toHaveValue('non-uniform');
  await page.screenshot({ path: screenshotPath('fleet'), fullPage: true });

  // Two clicks to the evidence: the balancer, then the legacy node.
  await row.getByRole('link', { name }).click();
  await page.locator(`[data-testid="node-row"][data-node-url="${legacy.url}"]`).getByRole('link').click();
  await expect(page.getByTestId('evidence')).toBeVisible();
  const steps = page.getByTestId('evidence-step');
  await expect(steps.first()).toHaveAttribute('data-step', 'discover');
  await expect(page.locator('[data-testid="evidence-step"][data-step="initialize"]')).toBeVisible();
  await expect(page.getByTestId('legacy-check')).toHaveCount(5);
  await expect(page.locator('[data-testid="legacy-check"][data-passed="true"]')).toHaveCount(5);
  await expect(page.getByTestId('history-row').first()).toContainText('Legacy');
  await page.screenshot({ path: screenshotPath('node-evidence'), fullPage: true });

  // The event log, filtered by type.
  const nodePath = page.url().replace(app.url, '');
  await page.goto(`${app.url}/events`);
  await expect(page.getByTestId('event-row').first()).toBeVisible();
  await page.screenshot({ path: screenshotPath('events'), fullPage: true });
  await page.getByLabel('Type').selectOption('node.era_changed');
  await expect(page).toHaveURL(/type=node\.era_changed/);
  await expect(page.getByTestId('event-row')).toHaveCount(1);
  await expect(page.getByTestId('event-row')).toContainText('modern (modern-only) → legacy (legacy-only)');
  await expect(page.getByTestId('event-row')).toContainText(legacy.url);

  // A narrow laptop: nothing pushes the page sideways (wide tables scroll inside their panel).
  await page.setViewportSize({ width: 1024, height: 700 });
  for (const path of ['/', '/events', nodePath]) {
    await page.goto(`${app.url}${path}`);
    await expect(page.locator('h1').first()).toBeVisible();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `horizontal overflow on ${path}`).toBeLessThanOrEqual(0);
  }
  await page.goto(`${app.url}/`);
  await row.getByRole('link', { name }).click();
  await expect(page.getByTestId('node-row')).toHaveCount(2);
  expect(
    await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
  ).toBeLessThanOrEqual(0);
  await page.screenshot({ path: screenshotPath('balancer-narrow'), fullPage: true });

  // Keyboard: on a fresh load the first Tab reaches the skip link, a visible control.
  await page.goto(page.url());
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: 'Skip to content' });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
});
